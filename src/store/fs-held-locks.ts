/**
 * Run locks held across mutations (the fs store's opt-in `holdLocks` mode). A writer that owns a
 * run takes its `.lock` with O_EXCL once (the same body `{acquired, host, pid}`, the same `busy`
 * for everyone else) and keeps it until `close()`, `releaseAll()` or process exit, instead
 * of creating and unlinking it around every mutation: two directory operations fewer per append,
 * and on ext4 a lighter fsync (the journal commit no longer carries the lock's inode).
 *
 * The mechanism — one `lstat` per mutation (the path must still name the very file this instance
 * created: inode and device), a read-only descriptor that pins the lock's inode while held (a lock
 * removed and re-created by someone else never passes for ours), a lock removed behind the writer
 * taken afresh, a replaced lock never touched, release only of a lock still ours, and the exit
 * hook — is the durable layer's held lock files (src/durable/held-lock.ts). What is the store's
 * own is here: the lock is created by {@link acquireLock} (its body and its refusal codes `busy`,
 * `lock_unavailable`, `lock_init_failed`) and pinned with its creating descriptor; a check that
 * fails is `lock_unavailable`; a lock taken afresh means the run's sidecar state is read again
 * (another writer may have used the run meanwhile). The lock is never broken: a crashed holder
 * leaves its lock, which `handoff store recover` removes only when its recorded pid is provably
 * gone (same host).
 */
import { errnoOf, type FsLayer, HeldLockFiles, type HeldLockTake, pinOpenFile } from '../durable/index.js';
import { acquireLock, type LockAcquire, releaseLock } from './fs-lock.js';

/**
 * Outcome of {@link lockRun}: acquired (`fresh` when the lock file was created by this call, so the
 * run may have changed since this instance last held it), or the refusal.
 *
 * @example
 * ```ts
 * const l: RunLock = lockRun(fsl, held, lockPath, body);
 * if (l.ok && l.fresh) state.sidecar = undefined;
 * ```
 */
export type RunLock =
  | { readonly ok: true; readonly fresh: boolean }
  | Extract<LockAcquire, { readonly ok: false }>
  | {
      readonly ok: false;
      readonly code: 'lock_unavailable';
      readonly detail: string;
    };

type LockRefusal = Extract<LockAcquire, { readonly ok: false }>;

const FRESH: RunLock = Object.freeze({ ok: true, fresh: true });
const REUSED: RunLock = Object.freeze({ ok: true, fresh: false });

/**
 * The run locks one fs store instance holds across mutations, by lock path (uncapped: a store
 * holds the lock of every run it appended to until `close()`).
 *
 * @example
 * ```ts
 * const held = new HeldLocks(fsl);
 * lockRun(fsl, held, '/p/.handoff/runs/R/.lock', body); // created, kept
 * lockRun(fsl, held, '/p/.handoff/runs/R/.lock', body); // one lstat: still ours
 * held.releaseAll(); // [] when every lock of ours was removed
 * ```
 */
export class HeldLocks extends HeldLockFiles {}

/**
 * Creates the run lock ({@link acquireLock}) and pins it with its creating descriptor: the pin is
 * the inode this call created (`fstat` of that descriptor), never whatever the path names a moment
 * later (a lock swapped in between a create and a re-open would otherwise be pinned as ours).
 */
function takeRunLock(fsl: FsLayer, lockPath: string, body: Uint8Array): HeldLockTake<LockRefusal> {
  const r = acquireLock(fsl, lockPath, body, { keepOpen: true });
  if (!r.ok) return { ok: false, refusal: r };
  // pin null: not held (its identity is unknown): it is released after this mutation (see unlockRun)
  return { ok: true, pin: r.fd === undefined ? null : pinOpenFile(fsl, r.fd) };
}

/**
 * Takes the run lock for one mutation. Without `held` (the default mode) this is
 * {@link acquireLock}: O_EXCL create and body. With `held`, a lock this instance already holds is
 * reused after one `lstat` shows the same file; otherwise it is created with O_EXCL and kept.
 *
 * @example
 * ```ts
 * const l = lockRun(ctx.fsl, ctx.locks, paths.lock, ctx.lockBody(ts));
 * if (!l.ok) return refused(runId, l.code, l.detail);
 * ```
 */
export function lockRun(fsl: FsLayer, held: HeldLocks | null, lockPath: string, body: Uint8Array): RunLock {
  if (held === null) {
    const r = acquireLock(fsl, lockPath, body);
    return r.ok ? FRESH : r;
  }
  const h = held.hold(lockPath, () => takeRunLock(fsl, lockPath, body));
  if (h.ok) return h.fresh ? FRESH : REUSED;
  if (h.reason === 'refused') return h.refusal;
  return {
    ok: false,
    code: 'lock_unavailable',
    detail: `cannot check the held .lock: ${errnoOf(h.cause) || String(h.cause)}`,
  };
}

/**
 * Ends one mutation's use of the run lock: removes it in the default mode (a warning text when it
 * could not, as {@link releaseLock}), keeps it when `held` holds it.
 *
 * @example
 * ```ts
 * const warn = unlockRun(ctx.fsl, ctx.locks, paths.lock); // null: released or kept
 * ```
 */
export function unlockRun(fsl: FsLayer, held: HeldLocks | null, lockPath: string): string | null {
  if (held?.holds(lockPath) === true) return null;
  return releaseLock(fsl, lockPath);
}
