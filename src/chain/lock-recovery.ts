/**
 * A person's explicit recovery of a chain journal's stale lock (effects layer). Nothing in the
 * chain ever breaks a lock by itself; this is the call a person (or a verb they run) makes after a
 * writer was killed holding a baton's lock (inside a commit, or — with `holdLocks` — anywhere in
 * its run). It removes the lock only when its body names this host and a pid that is provably not
 * running ({@link judgeChainLock}); a lock of another host, of a live pid, or with an unreadable
 * body is left and the refusal returned. The file judged is the file removed: it is opened without
 * following symlinks, and removed only while the path still names that inode.
 */
import { hostname } from 'node:os';
import { errnoOf, type FsLayer, nodeFsLayer, O, readRange } from '../durable/index.js';
import { chainJournalLockFile } from './file-journal-path.js';
import { type ChainLockHere, judgeChainLock } from './lock-holder-rule.js';

/** Options of {@link recoverChainJournalLock}. */
export interface RecoverChainLockOptions {
  readonly fs?: FsLayer;
  /** This machine's hostname (default `os.hostname()`). */
  readonly host?: string;
  /** Whether a pid runs here (default: `kill(pid, 0)` is not ESRCH). */
  readonly isAlive?: (pid: number) => boolean;
}

/** What {@link recoverChainJournalLock} did. */
export type RecoverChainLockResult =
  | { readonly outcome: 'no_lock'; readonly lock: string }
  | {
      readonly outcome: 'removed';
      readonly lock: string;
      readonly holder: { readonly host: string; readonly pid: number };
    }
  | {
      readonly outcome: 'refused';
      readonly lock: string;
      readonly reason: 'unreadable' | 'other_host' | 'owner_alive' | 'not_a_file' | 'changed' | 'io_error';
      readonly detail: string;
    };

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errnoOf(e) !== 'ESRCH';
  }
}

/**
 * Removes `batonId`'s journal lock under `dir` when, and only when, its holder is provably gone
 * (same host, pid not running). Never throws for what it finds: the result says what it did.
 *
 * @example
 * ```ts
 * const r = recoverChainJournalLock('/var/lib/payroll/journal', 'payroll-2026-06');
 * if (r.outcome === 'removed') await chain.resume(journal, 'payroll-2026-06');
 * ```
 */
export function recoverChainJournalLock(
  dir: string,
  batonId: string,
  options: RecoverChainLockOptions = {},
): RecoverChainLockResult {
  const fsl = options.fs ?? nodeFsLayer();
  const lock = chainJournalLockFile(dir, batonId);
  const here: ChainLockHere = {
    host: options.host ?? hostname(),
    isAlive: options.isAlive ?? isProcessAlive,
  };
  const refused = (
    reason: Extract<RecoverChainLockResult, { outcome: 'refused' }>['reason'],
    detail: string,
  ) => ({ outcome: 'refused', lock, reason, detail }) as const;
  let fd: number;
  try {
    fd = fsl.open(lock, O.O_RDONLY | O.O_NOFOLLOW);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { outcome: 'no_lock', lock };
    if (errnoOf(e) === 'ELOOP') return refused('not_a_file', 'the lock path is a symlink: left as it is');
    return refused('io_error', `cannot open the lock: ${errnoOf(e) || String(e)}`);
  }
  let ino: number;
  let dev: number;
  let body: Buffer;
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile()) return refused('not_a_file', 'the lock path is not a regular file: left as it is');
    ino = st.ino;
    dev = st.dev;
    body = readRange(fsl, fd, 0, Math.min(st.size, 4097));
  } catch (e) {
    return refused('io_error', `cannot read the lock: ${errnoOf(e) || String(e)}`);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only
    }
  }
  const verdict = judgeChainLock(body, here);
  if (!verdict.stale) return refused(verdict.reason, verdict.detail);
  try {
    const now = fsl.lstat(lock);
    if (!now.isFile() || now.ino !== ino || now.dev !== dev)
      return refused('changed', 'the lock changed while it was judged: left as it is');
    fsl.unlink(lock);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return { outcome: 'no_lock', lock };
    return refused('io_error', `cannot remove the lock: ${errnoOf(e) || String(e)}`);
  }
  return { outcome: 'removed', lock, holder: verdict.holder };
}
