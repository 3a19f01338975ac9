/**
 * Durable directory creation: a new directory's entry is fsync'd into its parent, so a crash
 * cannot lose the directory a durable file was just published into.
 */
import { dirname } from 'node:path';
import { errnoOf } from './errno.js';
import type { FsLayer } from './fs-layer.js';
import { fsyncDir } from './fsync-dir.js';
import { StepFailure } from './step-failure.js';

/**
 * Whether a failed directory fsync means "this file system does not support it" (so a
 * best-effort sync may go on) rather than a real I/O failure (EIO, ENOSPC…, which must surface).
 *
 * @example
 * ```ts
 * dirFsyncUnsupported(Object.assign(new Error('x'), { code: 'EINVAL' })); // true
 * dirFsyncUnsupported(Object.assign(new Error('x'), { code: 'EIO' }));    // false
 * ```
 */
export function dirFsyncUnsupported(e: unknown): boolean {
  const code = errnoOf(e instanceof StepFailure ? e.cause : e);
  return UNSUPPORTED.has(code);
}

const UNSUPPORTED = new Set(['EINVAL', 'ENOTSUP', 'EOPNOTSUPP', 'EISDIR', 'EACCES', 'EPERM']);

/**
 * Creates `dir` and any missing ancestors (like `mkdir -p`), then fsyncs the parent of every
 * directory it created, top-down, so each new entry is durable. Directories that already exist
 * are left alone (another process creating one at the same time is fine). With
 * `bestEffort`, a parent fsync the file system does not support is skipped
 * ({@link dirFsyncUnsupported}); every other failure is a {@link StepFailure} with `step`. With
 * `undoOnFailure`, a failure removes again (deepest first, best effort) the directories this call
 * made, so a retry makes them — and fsyncs their parents — afresh instead of finding them there
 * with entries that were never made durable.
 *
 * @example
 * ```ts
 * makeDirsDurable(fsl, '/repo/.handoff/gate/ledger/p1/log', 'ledger_mkdir'); // ['/repo/.handoff/gate/ledger/p1', '…/log']
 * ```
 * @returns the directories it created, outermost first.
 * @throws StepFailure(step) when a directory cannot be created or a parent not fsync'd.
 */
export function makeDirsDurable(
  fsl: FsLayer,
  dir: string,
  step: string,
  options: { readonly bestEffort?: boolean; readonly undoOnFailure?: boolean } = {},
): string[] {
  const missing: string[] = [];
  let cur = dir;
  for (;;) {
    try {
      const st = fsl.lstat(cur);
      if (!st.isDirectory()) {
        throw new StepFailure(
          step,
          Object.assign(new Error(`${cur} is not a directory`), { code: 'ENOTDIR' }),
        );
      }
      break;
    } catch (e) {
      if (e instanceof StepFailure) throw e;
      if (errnoOf(e) !== 'ENOENT') throw new StepFailure(step, e);
    }
    missing.unshift(cur);
    const up = dirname(cur);
    if (up === cur) break;
    cur = up;
  }
  const created: string[] = [];
  const undo = (): void => {
    if (options.undoOnFailure !== true) return;
    for (const d of [...created].reverse()) {
      try {
        fsl.rmdir(d); // empty unless another process already uses it: then it stays
      } catch {
        break; // an ancestor of a directory that stays cannot go either
      }
    }
  };
  for (const d of missing) {
    try {
      fsl.mkdir(d);
      created.push(d);
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST') {
        undo();
        throw new StepFailure(step, e);
      }
    }
  }
  for (const d of created) {
    try {
      fsyncDir(fsl, dirname(d), step);
    } catch (e) {
      if (!(options.bestEffort === true && dirFsyncUnsupported(e))) {
        undo();
        throw e;
      }
    }
  }
  return created;
}
