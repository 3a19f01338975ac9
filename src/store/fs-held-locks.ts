/**
 * Run locks held across mutations (the fs store's opt-in `holdLocks` mode). A writer that owns a
 * run takes its `.lock` with O_EXCL once (the same body `{acquired, host, pid}`, the same `busy`
 * for everyone else) and keeps it until `close()`, `releaseHeldLocks()` or process exit, instead
 * of creating and unlinking it around every mutation: two directory operations fewer per append,
 * and on ext4 a lighter fsync (the journal commit no longer carries the lock's inode).
 *
 * Before each mutation the held lock is re-checked with one `lstat`: the path must still name the
 * very file this instance created (inode and device). The holder keeps a read-only descriptor of
 * its lock file open, so that inode cannot be freed and handed to another file while it is held
 * (a lock removed and re-created by someone else never passes for ours). A lock removed behind the writer's back is
 * taken afresh with O_EXCL (and the run's sidecar state is read again: another writer may have
 * used the run meanwhile); a lock replaced by another file is not ours any more — the O_EXCL
 * create then answers `busy`. The lock is never broken: a crashed holder leaves its lock, which
 * `handoff store recover` removes only when its recorded pid is provably gone (same host).
 */
import { errnoOf, type FsLayer, O } from '../durable/index.js';
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

const FRESH: RunLock = Object.freeze({ ok: true, fresh: true });
const REUSED: RunLock = Object.freeze({ ok: true, fresh: false });

interface Held {
  readonly ino: number;
  readonly dev: number;
  /** A read-only descriptor of the lock file: its inode stays allocated while held. */
  readonly fd: number;
}

/** Instances holding at least one lock, released on process exit. */
const holders = new Set<HeldLocks>();
let exitHook = false;

/**
 * The locks one fs store instance holds across mutations, by lock path.
 *
 * @example
 * ```ts
 * const held = new HeldLocks(fsl);
 * lockRun(fsl, held, '/p/.handoff/runs/R/.lock', body); // created, kept
 * lockRun(fsl, held, '/p/.handoff/runs/R/.lock', body); // one lstat: still ours
 * held.releaseAll();
 * ```
 */
export class HeldLocks {
  readonly #fsl: FsLayer;
  readonly #held = new Map<string, Held>();

  constructor(fsl: FsLayer) {
    this.#fsl = fsl;
  }

  /** The identity of the lock held at `lockPath`, if any. */
  get(lockPath: string): Held | undefined {
    return this.#held.get(lockPath);
  }

  /** Records a lock this instance created (its inode and device). */
  keep(lockPath: string, held: Held): void {
    this.#held.set(lockPath, held);
    holders.add(this);
    if (!exitHook) {
      exitHook = true;
      process.once('exit', () => {
        for (const h of holders) h.releaseAll();
      });
    }
  }

  /** Forgets a lock without touching the file (it is not ours any more); closes its descriptor. */
  drop(lockPath: string): void {
    const h = this.#held.get(lockPath);
    this.#held.delete(lockPath);
    if (this.#held.size === 0) holders.delete(this);
    if (h !== undefined) closeQuietly(this.#fsl, h.fd);
  }

  /** How many locks are held. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Releases every held lock that is still ours (same inode and device); a lock replaced behind
   * this instance's back is left alone. Returns the warnings of locks that could not be removed.
   */
  releaseAll(): string[] {
    const warnings: string[] = [];
    for (const [lockPath, h] of [...this.#held]) {
      let ours = false;
      try {
        const st = this.#fsl.lstat(lockPath);
        ours = st.isFile() && st.ino === h.ino && st.dev === h.dev;
      } catch {
        ours = false; // gone already
      }
      if (ours) {
        const warn = releaseLock(this.#fsl, lockPath);
        if (warn !== null) warnings.push(`${lockPath}: ${warn}`);
      }
      this.drop(lockPath); // the descriptor closes after the unlink: the inode was never reusable
    }
    return warnings;
  }
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
  const h = held.get(lockPath);
  if (h !== undefined) {
    try {
      const st = fsl.lstat(lockPath);
      if (st.isFile() && st.ino === h.ino && st.dev === h.dev) return REUSED;
      held.drop(lockPath); // replaced: another writer's lock now (never touched)
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT')
        return {
          ok: false,
          code: 'lock_unavailable',
          detail: `cannot check the held .lock: ${errnoOf(e) || String(e)}`,
        };
      held.drop(lockPath); // removed behind our back: take it afresh
    }
  }
  const r = acquireLock(fsl, lockPath, body);
  if (!r.ok) return r;
  let fd = -1;
  try {
    fd = fsl.open(lockPath, O.O_RDONLY | O.O_NOFOLLOW);
    const st = fsl.fstat(fd);
    held.keep(lockPath, { ino: st.ino, dev: st.dev, fd });
  } catch {
    // not held (its identity is unknown): it is released after this mutation (see unlockRun)
    if (fd >= 0) closeQuietly(fsl, fd);
  }
  return FRESH;
}

function closeQuietly(fsl: FsLayer, fd: number): void {
  try {
    fsl.close(fd);
  } catch {
    // read-only descriptor: nothing to lose
  }
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
  if (held?.get(lockPath) !== undefined) return null;
  return releaseLock(fsl, lockPath);
}
