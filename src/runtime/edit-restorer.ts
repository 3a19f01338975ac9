/**
 * The edit restorer (layer 3, effects; issue 27 §1): a failed edit is put back. Before each
 * dispatch it captures the dispatch's owned files (and each batch sibling's) — bytes, existence
 * and permission bits; when the cycle decides an edit's `solved` claim did not hold
 * (src/cycle/restore-edits.ts) it puts those files back with src/runtime/owned-files'
 * `restoreOwned` (a temp beside each file renamed over it, never a write through the path),
 * re-reads them, and hands the run's verified custody the restored bytes (`revert`), so the
 * late-write re-check and the built-in scan see them and no checkpoint stages them. A file it
 * cannot put back is a result (`failed` with the reason), never a throw. An edit names the
 * pre-dispatch state each file goes back to (`to`: its sha256): the restorer keeps the last few
 * distinct states of each file, so a stop after a later deep or repair pass still puts back the
 * refuted dispatch's pre-dispatch bytes.
 */
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import type { Handoff } from '../contract/index.js';
import {
  absorbStopRestore,
  stopRestoreDue,
  stopRestoreFailed,
  stopRestoreInput,
} from '../cycle/restore-edits.js';
import { finalizeStopped, finalizeStuck } from '../cycle/run-end.js';
import type { CycleContext, EditRestoreInput, EditRestoreOutput, WorkerInput } from '../cycle/types.js';
import { captureOwned, type OwnedCapture, restoreOwned } from './owned-files.js';
import type { Unstamped } from './ports.js';
import type { VerifiedCustody } from './verified-custody.js';

/** Options of {@link createEditRestorer}. */
export interface EditRestorerOptions {
  /** The project root (a realpath): project-relative owned files resolve under it. */
  readonly projectRoot: string;
  /** The run's verified custody, handed the restored bytes (absent: none is held). */
  readonly custody?: VerifiedCustody;
}

/** The edit restorer of one run (see {@link createEditRestorer}). */
export interface EditRestorer {
  /** Captures the owned files of a dispatch (and of its batch) as they are before it runs. */
  capture(input: Pick<WorkerInput, 'target' | 'ownedFiles' | 'batch'>): Promise<void>;
  /** Puts the edits' files back to the bytes captured before their dispatch. */
  restore(input: EditRestoreInput): Promise<Unstamped<EditRestoreOutput>>;
}

/** One captured pre-dispatch state of a file: its bytes (null: absent), mode and sha256 (null: absent). */
interface Held {
  readonly bytes: Buffer | null;
  readonly mode: number;
  readonly state: string | null;
}

/** How many distinct pre-dispatch states of one file the restorer keeps (a cycle's fill, deep and repair dispatches). */
const KEPT_STATES = 4;

const ownedOf = (i: Pick<WorkerInput, 'target' | 'ownedFiles'>): readonly string[] =>
  i.ownedFiles ?? [i.target.file];

/**
 * Creates the edit restorer of one run. A capture that cannot be taken (an owned file over the
 * size limit) is skipped: the worker's own custody refuses that dispatch, and a restore of a file
 * never captured fails by name.
 *
 * @example
 * ```ts
 * const edits = createEditRestorer({ projectRoot: '/repo', custody });
 * await edits.capture(workerInput); // before the dispatch
 * await edits.restore({ cycle: 1, edits: [{ target: 'A.lean:2', files: ['/repo/A.lean'], reason: '…' }] });
 * // { restored: ['/repo/A.lean'], failed: [], detail: null }
 * ```
 */
export function createEditRestorer(o: EditRestorerOptions): EditRestorer {
  // per file, its last few distinct pre-dispatch states (newest last): a deep or repair pass after a
  // refuted dispatch captures the file again, and a stop puts back the earlier dispatch's bytes
  const held = new Map<string, Held[]>();
  const abs = (f: string) => resolve(o.projectRoot, f);
  return {
    async capture(input) {
      const files = [input, ...(input.batch ?? [])].flatMap((i) => ownedOf(i).map(abs));
      const got = await captureOwned([...new Set(files)]).catch(() => null);
      for (const [p, v] of got ?? []) {
        const state = v.bytes === null ? null : createHash('sha256').update(v.bytes).digest('hex');
        const kept = (held.get(p) ?? []).filter((h) => h.state !== state);
        held.set(p, [...kept, { ...v, state }].slice(-KEPT_STATES));
      }
    },
    async restore(input) {
      const wanted = new Map<string, string | null | undefined>();
      for (const e of input.edits)
        for (const f of e.files) if (!wanted.has(f)) wanted.set(f, e.to === undefined ? undefined : e.to[f]);
      const failed: string[] = [];
      const problems: string[] = [];
      const capture = new Map<string, { bytes: Buffer | null; mode: number }>();
      const spelled = new Map<string, string>();
      for (const [f, state] of wanted) {
        const states = held.get(abs(f)) ?? [];
        const v = state === undefined ? states.at(-1) : states.find((h) => h.state === state);
        if (v === undefined) {
          failed.push(f);
          problems.push(`${f}: no pre-dispatch capture${states.length > 0 ? ' of those bytes' : ''}`);
          continue;
        }
        capture.set(abs(f), { bytes: v.bytes, mode: v.mode });
        spelled.set(abs(f), f);
      }
      const r = await restoreOwned(capture);
      for (const p of r.failed) problems.push(`${p}: could not be written`);
      // read back: a file counts as restored only when it holds the captured bytes again
      const now = await captureOwned([...capture.keys()]).catch(() => null);
      const back = new Map<string, { bytes: Buffer | null; mode: number }>();
      const restored: string[] = [];
      for (const [p, want] of capture) {
        const got = now?.get(p);
        const same =
          got !== undefined &&
          (want.bytes === null
            ? got.bytes === null
            : got.bytes?.equals(want.bytes) === true && got.mode === want.mode);
        const name = spelled.get(p) ?? p;
        if (same) {
          restored.push(name);
          back.set(p, want);
        } else {
          failed.push(name);
          if (!r.failed.includes(p))
            problems.push(`${p}: does not hold its pre-dispatch bytes after the restore`);
        }
      }
      if (back.size > 0) o.custody?.revert(back as OwnedCapture);
      return { restored, failed, detail: problems.length === 0 ? null : problems.join('; ') };
    },
  };
}

/**
 * The last step of a run that ended before its cycle's checkpoint — `stopped` (a protocol, custody
 * or operational error, a human's stop), or `stuck` after a failed deep rollback (issue 27 §1): this cycle's
 * refuted edits still waiting (src/cycle/restore-edits.ts `stopEditsToRestore`) are put back to
 * their pre-dispatch bytes — whatever a later repair or deep pass wrote over them — and the final
 * record is made again from the context that results, naming each edit restored or not
 * (`restored T.lean: the claim 'solved' did not hold — …`, `could not restore …`). A run that did
 * not end that way (`solved`), or has nothing waiting, comes back unchanged. The host
 * (src/runtime/run-cycle.ts) calls it once the machine reached a final state; the machine's own
 * checkpoint restores the edits of a cycle that reaches its checkpoint (nothing waits after it).
 *
 * @example
 * ```ts
 * const end = await restoreOnStop(context, handoff, edits, Date.now);
 * end.handoff.failed_avenues; // [..., "restored T.lean: the claim 'solved' did not hold — …"]
 * ```
 */
export async function restoreOnStop(
  context: CycleContext,
  handoff: Handoff,
  restorer: EditRestorer | undefined,
  clock: () => number,
): Promise<{ readonly context: CycleContext; readonly handoff: Handoff }> {
  if (handoff.status === 'solved' || restorer === undefined || !stopRestoreDue(context))
    return { context, handoff };
  let update: Partial<CycleContext>;
  try {
    const out = await restorer.restore(stopRestoreInput(context));
    update = absorbStopRestore(context, { ...out, now: clock() });
  } catch (e) {
    update = stopRestoreFailed(context, e);
  }
  const next: CycleContext = { ...context, ...update };
  const final = (handoff.status === 'stuck' ? finalizeStuck(next) : finalizeStopped(next)).final ?? handoff;
  return { context: { ...next, final }, handoff: final };
}
