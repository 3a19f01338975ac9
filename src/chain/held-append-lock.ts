/**
 * Append locks held across commits (effects layer; the file journal's opt-in `holdLocks` mode). A
 * single writer that owns a baton takes the baton's lock (`<journal file>.lock`, the very name
 * every writer takes per commit) once — as a hard link to this process's lock body, like the
 * per-commit lock (no inode allocated, written and freed per baton), or where links cannot be used
 * with O_CREAT|O_EXCL|O_NOFOLLOW and the same `{host, pid}` body — and keeps it until its run ends, the object releases it (`release`, `close`, the
 * least-recently-used lock beyond the cap) or the process exits — instead of a `link` and an
 * `unlink` around every commit. Everyone else sees what they always saw: a regular file at the lock
 * path naming its holder, so every other writer (per-commit or held, this version or an older one)
 * is refused with `busy`.
 *
 * Before each commit the held lock is re-checked with one `lstat`: the path must still name the
 * very inode this object's lock was (device and inode). A linked lock is a name of this process's
 * lock body, which lives as long as the process; an O_EXCL lock's creating descriptor is kept open:
 * either way that inode cannot be freed and handed to another file while held, so a lock removed
 * and re-created by another process or by hand never passes for ours. (A linked lock's inode says
 * "this process", not "this object": should a person remove a held lock and another journal
 * object of the same process link it again, both objects take it for theirs — harmless, as a
 * held-mode commit runs synchronously from its check to its fsync and re-reads a file another
 * object extended, but the second object's lock may then be released by the first.) A lock removed behind the holder's
 * back is taken afresh with O_EXCL, and the caller re-reads the journal (another writer may have
 * committed meanwhile); a lock replaced by another file is not ours any more — the O_EXCL create
 * then answers `busy`, and the replacement is never touched. The lock is never broken: a holder
 * killed (SIGKILL, power loss) leaves its lock, exactly like a per-commit writer killed inside a
 * commit; it is removed by hand once no writer runs.
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import { errnoOf, type FsLayer, nodeFsLayer, O, writeFully } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { appendLockBody, appendLockFile, appendLockHolder, linkAppendLock } from './append-lock.js';

const defaultFsl = nodeFsLayer();

/**
 * How many batons' locks one {@link HeldAppendLocks} keeps by default (least recently used are
 * released first).
 *
 * @example
 * ```ts
 * new HeldAppendLocks(nodeFsLayer(), HELD_APPEND_LOCKS); // the default cap
 * ```
 */
export const HELD_APPEND_LOCKS = 8;

interface Held {
  /**
   * The descriptor an O_EXCL lock was created with (its inode stays allocated while held), or -1
   * for a lock linked to this process's lock body (that inode lives as long as the process).
   */
  readonly fd: number;
  readonly ino: number;
  readonly dev: number;
}

/** Objects holding at least one lock, released on process exit. */
const holders = new Set<HeldAppendLocks>();
let exitHooked = false;

function closeQuietly(fsl: FsLayer, fd: number): void {
  if (fd < 0) return; // a linked lock: no descriptor of its own
  try {
    fsl.close(fd);
  } catch {
    // nothing to lose: the lock's body was written when it was taken
  }
}

function lockIoError(path: string, lockPath: string, what: string, e: unknown): HandoffError {
  return new HandoffError('io_error', `cannot ${what} ${lockPath}: ${(e as Error)?.message ?? String(e)}`, {
    details: { path, lock: lockPath },
    cause: e,
  });
}

/** The answer to a writer that finds the lock taken (the same as a per-commit writer's). */
function busy(fsl: FsLayer, path: string, lockPath: string): HandoffError {
  return new HandoffError(
    'busy',
    `another writer holds ${lockPath}; it is never broken (remove it only when no writer runs)`,
    { details: { path, lock: lockPath, holder: appendLockHolder(fsl, lockPath) } },
  );
}

/**
 * The append locks one writer holds across commits, by appended file (see the file comment).
 *
 * @example
 * ```ts
 * const locks = new HeldAppendLocks();
 * locks.hold('/var/chain/baton-1a2b.jsonl'); // true: taken now (re-read the file)
 * locks.hold('/var/chain/baton-1a2b.jsonl'); // false: still ours (one lstat)
 * locks.release('/var/chain/baton-1a2b.jsonl');
 * ```
 */
export class HeldAppendLocks {
  readonly #fsl: FsLayer;
  readonly #max: number;
  /** Appended file → its held lock, least recently used first. */
  readonly #held = new Map<string, Held>();

  /** `fsl`: the file-system layer (default node's); `max`: locks kept at most (at least 1). */
  constructor(fsl: FsLayer = defaultFsl, max = HELD_APPEND_LOCKS) {
    this.#fsl = fsl;
    this.#max = Math.max(1, Math.floor(max));
  }

  /**
   * Makes sure this object holds the append lock of `path`. Returns `false` when it already held it
   * and the lock is still its own (one `lstat`), `true` when the lock was taken by this call (the
   * file may have changed since this object last held it: re-read it).
   *
   * @throws HandoffError `busy` (details `path`, `lock`, `holder`) when another writer holds the
   *   lock — including one that replaced this object's lock; `io_error` when the lock cannot be
   *   checked or created.
   */
  hold(path: string): boolean {
    const lockPath = appendLockFile(path);
    const h = this.#held.get(path);
    if (h !== undefined) {
      let ours = false;
      try {
        const st = this.#fsl.lstat(lockPath);
        ours = st.isFile() && st.ino === h.ino && st.dev === h.dev;
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw lockIoError(path, lockPath, 'check the held lock', e);
      }
      if (ours) {
        this.#held.delete(path); // most recently used last
        this.#held.set(path, h);
        return false;
      }
      // removed or replaced behind our back: not ours any more, never touched; its descriptor is
      // closed only after the new lock exists, so the new lock cannot reuse the old inode
      this.#held.delete(path);
      try {
        this.#take(path, lockPath);
      } finally {
        closeQuietly(this.#fsl, h.fd);
        if (this.#held.size === 0) holders.delete(this);
      }
      return true;
    }
    this.#take(path, lockPath);
    return true;
  }

  /** Whether this object holds `path`'s lock (as far as it knows; {@link hold} re-checks). */
  holds(path: string): boolean {
    return this.#held.has(path);
  }

  /** How many locks this object holds. */
  get size(): number {
    return this.#held.size;
  }

  /**
   * Releases `path`'s lock when this object holds it and it is still its own (same inode and
   * device); a lock replaced behind its back is left alone. Returns whether a lock was removed.
   */
  release(path: string): boolean {
    const h = this.#held.get(path);
    if (h === undefined) return false;
    const lockPath = appendLockFile(path);
    let removed = false;
    try {
      const st = this.#fsl.lstat(lockPath);
      if (st.isFile() && st.ino === h.ino && st.dev === h.dev) {
        this.#fsl.unlink(lockPath);
        removed = true;
      }
    } catch {
      // gone already, or it cannot be removed: then it stays (busy until a person removes it)
    }
    this.#forget(path); // the descriptor closes after the unlink: the inode was never reusable
    return removed;
  }

  /** Releases every lock this object holds ({@link release} each). */
  releaseAll(): void {
    for (const path of [...this.#held.keys()]) this.release(path);
  }

  #forget(path: string): void {
    const h = this.#held.get(path);
    this.#held.delete(path);
    if (this.#held.size === 0) holders.delete(this);
    if (h !== undefined) closeQuietly(this.#fsl, h.fd);
  }

  #take(path: string, lockPath: string): void {
    const fsl = this.#fsl;
    const linked = linkAppendLock(fsl, path);
    if (linked !== null) {
      if (linked.ok) {
        // a name of this process's lock body: held by this process while that inode is at the path
        let st: { ino: number; dev: number };
        try {
          st = fsl.lstat(lockPath);
        } catch (e) {
          try {
            fsl.unlink(lockPath); // linked by this call and never held: ours to remove
          } catch {
            // if this fails too the lock stays: it then reads as held, never as broken
          }
          throw lockIoError(path, lockPath, 'check', e);
        }
        this.#keepHeld(path, { fd: -1, ino: st.ino, dev: st.dev });
        return;
      }
      if (linked.busy) throw busy(fsl, path, lockPath);
    }
    const flags = O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW;
    let fd: number;
    try {
      fd = fsl.open(lockPath, flags, 0o644);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') throw busy(fsl, path, lockPath);
      if (errnoOf(e) !== 'ENOENT') throw lockIoError(path, lockPath, 'create', e);
      try {
        fs.mkdirSync(dirname(path), { recursive: true });
        fd = fsl.open(lockPath, flags, 0o644);
      } catch (e2) {
        if (errnoOf(e2) === 'EEXIST') throw busy(fsl, path, lockPath);
        throw lockIoError(path, lockPath, 'create', e2);
      }
    }
    let held: Held;
    try {
      writeFully(fsl, fd, appendLockBody(), 'lock_body');
      const st = fsl.fstat(fd);
      held = { fd, ino: st.ino, dev: st.dev };
    } catch (e) {
      closeQuietly(fsl, fd);
      try {
        fsl.unlink(lockPath); // created by this call and never held: ours to remove
      } catch {
        // if this fails too the file stays: a lock then reads as held, never as broken
      }
      throw lockIoError(path, lockPath, 'initialize', e);
    }
    this.#keepHeld(path, held);
  }

  #keepHeld(path: string, held: Held): void {
    this.#held.set(path, held);
    holders.add(this);
    if (!exitHooked) {
      exitHooked = true;
      process.once('exit', () => {
        for (const x of [...holders]) x.releaseAll();
      });
    }
    for (const p of [...this.#held.keys()]) {
      if (this.#held.size <= this.#max) break;
      this.release(p);
    }
  }
}
