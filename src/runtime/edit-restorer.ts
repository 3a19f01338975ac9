/**
 * The edit restorer (layer 3, effects; issue 27 §1): a failed edit is put back. Before each
 * dispatch it captures the dispatch's owned files (and each batch sibling's) — bytes, existence
 * and permission bits; when the cycle decides an edit's `solved` claim did not hold
 * (src/cycle/restore-edits.ts) it puts those files back with src/runtime/owned-files'
 * `restoreOwned` (a temp beside each file renamed over it, never a write through the path),
 * re-reads them, and hands the run's verified custody the restored bytes (`revert`), so the
 * late-write re-check and the built-in scan see them and no checkpoint stages them. A file it
 * cannot put back is a result (`failed` with the reason), never a throw.
 */
import { resolve } from 'node:path';
import type { EditRestoreInput, EditRestoreOutput, WorkerInput } from '../cycle/types.js';
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
  const held = new Map<string, { bytes: Buffer | null; mode: number }>();
  const abs = (f: string) => resolve(o.projectRoot, f);
  return {
    async capture(input) {
      const files = [input, ...(input.batch ?? [])].flatMap((i) => ownedOf(i).map(abs));
      const got = await captureOwned([...new Set(files)]).catch(() => null);
      for (const [p, v] of got ?? []) held.set(p, v);
    },
    async restore(input) {
      const wanted = [...new Set(input.edits.flatMap((e) => e.files))];
      const failed: string[] = [];
      const problems: string[] = [];
      const capture = new Map<string, { bytes: Buffer | null; mode: number }>();
      const spelled = new Map<string, string>();
      for (const f of wanted) {
        const v = held.get(abs(f));
        if (v === undefined) {
          failed.push(f);
          problems.push(`${f}: no pre-dispatch capture`);
          continue;
        }
        capture.set(abs(f), v);
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
