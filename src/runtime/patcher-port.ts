/**
 * Repair mode's patcher (layer 3, effects; seed 002 § Repair Mode): the runtime applies a
 * patch-only repair worker's unified diff itself, under custody — src/patch's
 * `applyPatchUnderCustody` checks the baseline immediately before applying, refuses fuzzy and
 * out-of-scope hunks and advances the baseline — then keeps the statement fence (a diff that
 * changes a declaration header is put back and refused) and hands the applied bytes to the run's
 * verified custody as accepted, so the checkpoint commits exactly them. The port stamps nothing:
 * the runtime stamps `now`.
 */
import type { PatchInput } from '../cycle/types.js';
import { applyPatchUnderCustody, type ParsePatchOptions } from '../patch/index.js';
import { resolveUnder } from './dispatch-builder.js';
import { captureOwned, restoreOwned } from './owned-files.js';
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
 * kept). It rejects only when a write fails after the custody checks passed (src/patch's
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
      });
      if (r.kind !== 'applied') return r;
      if (r.changed.length === 0) return r;
      const after = await captureOwned(owned);
      const breach = await fenceVerdict(o.projectRoot, headersBefore, after, fence);
      if (breach !== null) {
        const back = await restoreOwned(before);
        const note =
          back.failed.length > 0
            ? `; could not restore ${back.failed.join(', ')}`
            : '; the patched files were put back';
        return { kind: 'refused', detail: `${breach}${note}` };
      }
      if (o.custody !== undefined) {
        o.custody.accept(after, await snapshotWorkspace(o.custody.zones, owned), owned, headersBefore);
      }
      return r;
    },
  };
}
