/**
 * Repair mode's patcher (layer 3, effects; seed 002 § Repair Mode): the runtime applies a
 * patch-only repair worker's unified diff itself, under custody — src/patch's
 * `applyPatchUnderCustody` checks the baseline immediately before applying, refuses fuzzy and
 * out-of-scope hunks and advances the baseline, and the statement fence judges the patched texts
 * before anything is written (a diff that changes a declaration header is refused, nothing
 * written) — then hands the applied bytes to the run's verified custody as accepted, so the
 * checkpoint commits exactly them. The port stamps nothing:
 * the runtime stamps `now`.
 */
import type { PatchInput } from '../cycle/types.js';
import { applyPatchUnderCustody, type ParsePatchOptions } from '../patch/index.js';
import { resolveUnder } from './dispatch-builder.js';
import { captureOwned, type OwnedCapture } from './owned-files.js';
import type { PatcherPort } from './ports.js';
import {
  defaultFenceResolver,
  type FenceResolver,
  fenceVerdict,
  headersOfCapture,
} from './statement-fence.js';
import type { VerifiedCustody } from './verified-custody.js';
import { snapshotWorkspace } from './workspace-watch.js';

/** Options of {@link createPatcher}. */
export interface PatcherOptions {
  /** The project root (a realpath; patch paths are relative to it). */
  readonly projectRoot: string;
  /** The run's verified custody: the applied bytes are accepted into it (absent: none). */
  readonly custody?: VerifiedCustody;
  /** The statement fence's header extractor per file (default: Lean for `.lean`). */
  readonly fence?: FenceResolver;
  /** Parse options of the diff (creation/deletion, size limits; default: src/patch's). */
  readonly parse?: ParsePatchOptions;
}

/**
 * Creates the patcher port. `apply` resolves to `applied` (the project-relative files whose bytes
 * changed and the advanced baseline), `stale` (a touched file drifted from the baseline: nothing
 * written) or `refused` (malformed, out of scope, fuzzy, a link, or a header changed — nothing
 * written). It rejects only when a write fails after the custody checks passed (src/patch's
 * `io_error`): the chain can no longer be trusted and the run must stop.
 *
 * @example
 * ```ts
 * const patcher = createPatcher({ projectRoot: '/repo', custody });
 * const r = await patcher.apply({ patch: diff, files: ['A.lean'], baseline });
 * if (r.kind === 'applied') baseline = r.baseline;
 * ```
 */
export function createPatcher(o: PatcherOptions): PatcherPort {
  const fence = o.fence ?? defaultFenceResolver;
  return {
    async apply(input: PatchInput) {
      const owned: string[] = [];
      for (const f of input.files) {
        const abs = resolveUnder(o.projectRoot, f);
        if (abs === null) return { kind: 'refused', detail: `${f} is outside the project root` };
        owned.push(abs);
      }
      const before = await captureOwned(owned);
      const headersBefore = await headersOfCapture(before, fence);
      const r = await applyPatchUnderCustody({
        projectRoot: o.projectRoot,
        patch: input.patch,
        allowed: input.files,
        baseline: input.baseline,
        ...(o.parse === undefined ? {} : { parse: o.parse }),
        // the statement fence on the patched texts, before anything is written
        vet: async (files) => {
          const patched = new Map<string, { bytes: Buffer | null; mode: number }>(before);
          for (const f of files) {
            const abs = resolveUnder(o.projectRoot, f.path);
            if (abs === null) return `${f.path} is outside the project root`;
            const was = before.get(abs);
            patched.set(abs, {
              bytes: f.kind === 'delete' ? null : Buffer.from(f.after, 'utf8'),
              mode: was?.mode ?? 0o644,
            });
          }
          const view: OwnedCapture = patched;
          // with the repair dispatch's grants, as the worker's own edit would be fenced
          return fenceVerdict(o.projectRoot, headersBefore, view, fence, input.grants ?? []);
        },
      });
      if (r.kind !== 'applied') return r;
      if (r.changed.length === 0) return r;
      const after = await captureOwned(owned);
      if (o.custody !== undefined) {
        o.custody.accept(after, await snapshotWorkspace(o.custody.zones, owned), owned, headersBefore);
      }
      return r;
    },
  };
}
