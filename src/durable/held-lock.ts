/**
 * Lock files held across mutations: the one mechanism behind the fs run store's `holdLocks` and
 * the chain file journal's `holdLocks`. A holder takes a lock file once (how — O_EXCL, or a
 * `link(2)` of a lock body — and what a taken lock answers are the caller's: {@link
 * HeldLockFiles.hold} runs the caller's `take`) and keeps it, instead of creating and removing it
 * around every mutation.
 *
 * What is common, and lives here:
 * - **check**: before each later mutation one `lstat` of the lock path; the lock is still ours
 *   only when the path names a regular file with the very device and inode this holder took
 *   ({@link sameLockFile}; a planted symlink is never ours and never followed);
 * - **pin**: the holder keeps a descriptor that pins the lock's inode ({@link HeldLockPin}: the
 *   creating descriptor, a read-only one — {@link pinLockFile} — or none for a link to a lock body
 *   that lives as long as the process), so that inode cannot be freed and handed to a lock someone
 *   else creates: a lock removed and re-created behind the holder never passes for ours;
 * - **taken afresh**: a lock removed or replaced behind the holder is forgotten without being
 *   touched and taken again with the caller's `take` (which answers the caller's `busy` when
 *   another file is there); the old pin is closed only after the new lock exists, so the new lock
 *   cannot reuse the old inode;
 * - **release**: a held lock is removed only when it is still ours (same device and inode), then
 *   its pin closed (after the unlink: the inode was never reusable while the name existed) — on
 *   {@link HeldLockFiles.release}, {@link HeldLockFiles.releaseAll}, the least recently used beyond
 *   a cap, and at process exit (one `exit` hook for every holder);
 * - a lock is never broken: a holder that dies leaves its lock, as a per-mutation writer killed
 *   inside a mutation does.
 *
 * Every call goes through the {@link FsLayer} (fault injection). Nothing here throws for a refusal:
 * outcomes are values; a caller's `take` may throw (its own errors), and the old pin is still closed.
 */
import { errnoOf } from './errno.js';
import { removeExclusiveFile } from './exclusive-file.js';
import { type FsLayer, type FsStat, O } from './fs-layer.js';

/**
 * The identity of a held lock file and the descriptor that pins its inode (`fd` -1: no descriptor
 * of its own — a link to a lock body whose inode lives as long as the process).
 *
 * @example
 * ```ts
 * const st = fsl.fstat(fd);
 * const pin: HeldLockPin = { fd, ino: st.ino, dev: st.dev };
 * ```
 */
export interface HeldLockPin {
  readonly fd: number;
  readonly ino: number;
  readonly dev: number;
}

/**
 * Whether `st` (an `lstat` of the lock path) is the lock `pin` names: a regular file (never a
 * symlink) with the same device and inode. Pure.
 *
 * @example
 * ```ts
 * sameLockFile(fsl.lstat(lockPath), pin); // true: still ours
 * ```
 */
export function sameLockFile(st: FsStat, pin: Pick<HeldLockPin, 'ino' | 'dev'>): boolean {
  return st.isFile() && st.ino === pin.ino && st.dev === pin.dev;
}

/**
 * Pins an already open descriptor of a lock this process created (O_EXCL's creating descriptor):
 * its identity from `fstat`, so the pin is the created inode whatever the path names now. Takes
 * ownership of `fd` (closed when it cannot be identified); never throws.
 *
 * @example
 * ```ts
 * const pin = pinOpenFile(fsl, creatingFd); // { fd, ino, dev } or null
 * ```
 */
export function pinOpenFile(fsl: FsLayer, fd: number): HeldLockPin | null {
  try {
    const st = fsl.fstat(fd);
    return { fd, ino: st.ino, dev: st.dev };
  } catch {
    closePin(fsl, fd);
    return null;
  }
}

/**
 * Opens `lockPath` read-only without following a symlink (nor waiting on a FIFO) and returns its pin (descriptor, inode,
 * device), for a lock created by a call that closed its own descriptor; null when it cannot be
 * opened or stat'ed (then nothing stays open: the lock is not held, the caller releases it after
 * its mutation). Never throws.
 *
 * @example
 * ```ts
 * const pin = pinLockFile(fsl, '/p/.handoff/runs/R/.lock'); // { fd: 23, ino: 1234, dev: 2049 }
 * ```
 */
export function pinLockFile(fsl: FsLayer, lockPath: string): HeldLockPin | null {
  let fd = -1;
  try {
    // O_NONBLOCK: a FIFO planted at the path is opened without waiting for a writer (then it is
    // not ours: the next check sees no regular file), never a hang
    fd = fsl.open(lockPath, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
    const st = fsl.fstat(fd);
    return { fd, ino: st.ino, dev: st.dev };
  } catch {
    if (fd >= 0) closePin(fsl, fd);
    return null;
  }
}

/**
 * What a caller's `take` answers to {@link HeldLockFiles.hold}: the lock taken — with its pin to be
 * kept, or `pin: null` when it was taken but cannot be identified (then it is not held: the caller
 * releases it after its mutation) — or the caller's refusal (`busy`…), passed through.
 *
 * @example
 * ```ts
 * const took: HeldLockTake<'busy'> = exists ? { ok: false, refusal: 'busy' } : { ok: true, pin };
 * ```
 */
export type HeldLockTake<F> =
  | { readonly ok: true; readonly pin: HeldLockPin | null }
  | { readonly ok: false; readonly refusal: F };

/**
 * Outcome of {@link HeldLockFiles.hold}: the lock is ours (`fresh` when it was taken by this call —
 * what it guards may have changed since this holder last held it: read it again), the caller's
 * refusal from `take`, or `check_failed` when the held lock could not be checked (`lstat` failed
 * other than ENOENT; the lock stays held as far as the holder knows).
 *
 * @example
 * ```ts
 * const h: HeldLockHold<string> = held.hold(lockPath, take);
 * if (h.ok && h.fresh) rereadJournal();
 * ```
 */
export type HeldLockHold<F> =
  | { readonly ok: true; readonly fresh: boolean }
  | { readonly ok: false; readonly reason: 'refused'; readonly refusal: F }
  | { readonly ok: false; readonly reason: 'check_failed'; readonly cause: unknown };

/**
 * Outcome of {@link HeldLockFiles.release}: `removed`; `not_held` (this holder held no lock
 * there); `not_ours` (gone, replaced behind the holder, or not checkable: left alone); or
 * `unlink_failed` (it is ours but could not be removed: it stays, read as held — never as broken).
 *
 * @example
 * ```ts
 * const r: HeldLockRelease = held.release(lockPath);
 * if (r.outcome === 'unlink_failed') warn(errnoOf(r.cause));
 * ```
 */
export type HeldLockRelease =
  | { readonly outcome: 'removed' | 'not_held' | 'not_ours' }
  | { readonly outcome: 'unlink_failed'; readonly cause: unknown };

/**
 * A held lock that {@link HeldLockFiles.releaseAll} could not remove, and why.
 *
 * @example
 * ```ts
 * for (const u of held.releaseAll()) warn(`${u.lockPath}: ${errnoOf(u.cause)}`);
 * ```
 */
export interface HeldLockUnreleased {
  readonly lockPath: string;
  readonly cause: unknown;
}

/**
 * Options of {@link HeldLockFiles}.
 *
 * @example
 * ```ts
 * const o: HeldLockFilesOptions = { max: 8 }; // the least recently used beyond 8 are released
 * ```
 */
export interface HeldLockFilesOptions {
  /** Locks kept at most (at least 1); the least recently used are released first. Default: no cap. */
  readonly max?: number;
}

const OURS = Object.freeze({ ok: true, fresh: false }) as HeldLockHold<never>;
const TAKEN = Object.freeze({ ok: true, fresh: true }) as HeldLockHold<never>;
const REMOVED: HeldLockRelease = Object.freeze({ outcome: 'removed' });
const NOT_HELD: HeldLockRelease = Object.freeze({ outcome: 'not_held' });
const NOT_OURS: HeldLockRelease = Object.freeze({ outcome: 'not_ours' });

/** Holders holding at least one lock, released on process exit. */
const holders = new Set<HeldLockFiles>();
let exitHooked = false;

function closePin(fsl: FsLayer, fd: number): void {
  if (fd < 0) return; // a linked lock: no descriptor of its own
  try {
    fsl.close(fd);
  } catch {
    // a pinning descriptor: nothing to lose
  }
}

/**
 * The lock files one holder (a store instance, a journal object) keeps across mutations, by lock
 * path, least recently used first (see the file comment).
 *
 * @example
 * ```ts
 * const held = new HeldLockFiles(nodeFsLayer());
 * const take = () => {
 *   const r = createExclusiveFile(fsl, lockPath, body);
 *   return r.ok ? { ok: true, pin: pinLockFile(fsl, lockPath) } : { ok: false, refusal: r.reason };
 * };
 * held.hold(lockPath, take); // { ok: true, fresh: true }: created and kept
 * held.hold(lockPath, take); // { ok: true, fresh: false }: one lstat, still ours
 * held.release(lockPath); // { outcome: 'removed' }
 * ```
 */
export class HeldLockFiles {
  readonly #fsl: FsLayer;
  readonly #max: number;
  /** Lock path → its pin, least recently used first (order kept only under a cap). */
  readonly #held = new Map<string, HeldLockPin>();

  /** `fsl`: the file-system layer every check, unlink and close goes through. */
  constructor(fsl: FsLayer, options: HeldLockFilesOptions = {}) {
    this.#fsl = fsl;
    this.#max = options.max === undefined ? Number.POSITIVE_INFINITY : Math.max(1, Math.floor(options.max));
  }

  /**
   * Makes sure this holder holds the lock at `lockPath`. A lock it holds is checked with one
   * `lstat` ({@link sameLockFile}) and reused; a lock it does not hold, or holds no more (removed
   * or replaced behind it: forgotten, never touched), is taken with `take` and kept when `take`
   * pins it. `take` may throw; the old pin is closed after it, either way.
   *
   * @example
   * ```ts
   * const h = held.hold(lockPath, () => ({ ok: true, pin: pinLockFile(fsl, lockPath) }));
   * if (!h.ok && h.reason === 'check_failed') refuse('lock_unavailable');
   * ```
   */
  hold<F>(lockPath: string, take: () => HeldLockTake<F>): HeldLockHold<F> {
    const pin = this.#held.get(lockPath);
    if (pin === undefined) return this.#take(lockPath, take);
    let st: FsStat | undefined;
    try {
      st = this.#fsl.lstat(lockPath);
    } catch (e) {
      if (errnoOf(e) !== 'ENOENT') return { ok: false, reason: 'check_failed', cause: e };
    }
    if (st !== undefined && sameLockFile(st, pin)) {
      if (this.#max !== Number.POSITIVE_INFINITY) {
        this.#held.delete(lockPath); // most recently used last
        this.#held.set(lockPath, pin);
      }
      return OURS;
    }
    // removed or replaced behind our back: not ours any more, never touched; its pin is closed
    // only after the new lock exists, so the new lock cannot reuse the old inode
    this.#held.delete(lockPath);
    try {
      return this.#take(lockPath, take);
    } finally {
      closePin(this.#fsl, pin.fd);
      if (this.#held.size === 0) holders.delete(this);
    }
  }

  /**
   * Whether this holder holds the lock at `lockPath` (as far as it knows; {@link hold} re-checks).
   *
   * @example
   * ```ts
   * if (!held.holds(lockPath)) releaseAfterMutation(lockPath);
   * ```
   */
  holds(lockPath: string): boolean {
    return this.#held.has(lockPath);
  }

  /**
   * How many locks this holder holds.
   *
   * @example
   * ```ts
   * held.size; // 0 after releaseAll()
   * ```
   */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Releases the lock at `lockPath` when this holder holds it and it is still its own (one
   * `lstat`, then `unlink`); a lock replaced behind its back is left alone. The lock is forgotten
   * and its pin closed either way.
   *
   * @example
   * ```ts
   * held.release('/var/chain/baton-1a2b.jsonl.lock'); // { outcome: 'removed' }
   * ```
   */
  release(lockPath: string): HeldLockRelease {
    const pin = this.#held.get(lockPath);
    if (pin === undefined) return NOT_HELD;
    let result = NOT_OURS;
    let ours = false;
    try {
      ours = sameLockFile(this.#fsl.lstat(lockPath), pin);
    } catch {
      // gone already, or it cannot be checked: then it is left alone (never broken)
    }
    if (ours) {
      const r = removeExclusiveFile(this.#fsl, lockPath);
      result = r.ok ? REMOVED : { outcome: 'unlink_failed', cause: r.cause };
    }
    this.#held.delete(lockPath);
    if (this.#held.size === 0) holders.delete(this);
    closePin(this.#fsl, pin.fd); // after the unlink: the inode was never reusable
    return result;
  }

  /**
   * Releases every lock this holder holds ({@link release} each); returns those that were its own
   * but could not be removed (they stay: read as held, never as broken).
   *
   * @example
   * ```ts
   * const left = held.releaseAll(); // [] when every lock of ours was removed
   * ```
   */
  releaseAll(): HeldLockUnreleased[] {
    const left: HeldLockUnreleased[] = [];
    for (const lockPath of [...this.#held.keys()]) {
      const r = this.release(lockPath);
      if (r.outcome === 'unlink_failed') left.push({ lockPath, cause: r.cause });
    }
    return left;
  }

  #take<F>(lockPath: string, take: () => HeldLockTake<F>): HeldLockHold<F> {
    const t = take();
    if (!t.ok) return { ok: false, reason: 'refused', refusal: t.refusal };
    if (t.pin !== null) this.#keep(lockPath, t.pin);
    return TAKEN;
  }

  #keep(lockPath: string, pin: HeldLockPin): void {
    this.#held.set(lockPath, pin);
    holders.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const h of [...holders]) h.releaseAll();
      });
    }
    if (this.#held.size <= this.#max) return;
    for (const p of [...this.#held.keys()]) {
      if (this.#held.size <= this.#max) break;
      this.release(p);
    }
  }
}
