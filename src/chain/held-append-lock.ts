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
 *
 * The check, the pin, the lock taken afresh, the release of a lock still ours, the cap's eviction
 * and the exit hook are the durable layer's held lock files (src/durable/held-lock.ts); what is
 * the chain's own is here: the lock's name (`<journal file>.lock`, by appended file), how it is
 * taken (a link of the lock body, else O_EXCL keeping its creating descriptor as the pin, the
 * directory made when missing), the cap of held locks, and the answers `busy` and `io_error`,
 * thrown as {@link HandoffError}s.
 */
import {
  errnoOf,
  type FsLayer,
  HeldLockFiles,
  type HeldLockPin,
  type HeldLockTake,
  nodeFsLayer,
  O,
  writeFully,
} from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import {
  appendLockBody,
  appendLockFile,
  appendLockHolder,
  linkAppendLock,
  makeAppendDirDurable,
} from './append-lock.js';

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

function closeQuietly(fsl: FsLayer, fd: number): void {
  try {
    fsl.close(fd);
  } catch {
    // already failing: the lock file is removed next
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
 * Takes the append lock of `path` for a holder (see the file comment) and returns its pin: a link
 * of this process's lock body (no descriptor of its own), else an O_EXCL file whose creating
 * descriptor is the pin.
 *
 * @throws HandoffError `busy` when another writer holds the lock; `io_error` when it cannot be
 *   created or checked.
 */
function takeAppendLock(fsl: FsLayer, path: string, lockPath: string): HeldLockTake<never> {
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
      return { ok: true, pin: { fd: -1, ino: st.ino, dev: st.dev } };
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
    makeAppendDirDurable(fsl, path, lockPath);
    try {
      fd = fsl.open(lockPath, flags, 0o644);
    } catch (e2) {
      if (errnoOf(e2) === 'EEXIST') throw busy(fsl, path, lockPath);
      throw lockIoError(path, lockPath, 'create', e2);
    }
  }
  let pin: HeldLockPin;
  try {
    writeFully(fsl, fd, appendLockBody(), 'lock_body');
    const st = fsl.fstat(fd);
    pin = { fd, ino: st.ino, dev: st.dev }; // the creating descriptor pins the inode while held
  } catch (e) {
    closeQuietly(fsl, fd);
    try {
      fsl.unlink(lockPath); // created by this call and never held: ours to remove
    } catch {
      // if this fails too the file stays: a lock then reads as held, never as broken
    }
    throw lockIoError(path, lockPath, 'initialize', e);
  }
  return { ok: true, pin };
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
  /** The held lock files, by lock path (`<appended file>.lock`), least recently used first. */
  readonly #locks: HeldLockFiles;

  /** `fsl`: the file-system layer (default node's); `max`: locks kept at most (at least 1). */
  constructor(fsl: FsLayer = defaultFsl, max = HELD_APPEND_LOCKS) {
    this.#fsl = fsl;
    this.#locks = new HeldLockFiles(fsl, { max });
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
    const h = this.#locks.hold(lockPath, () => takeAppendLock(this.#fsl, path, lockPath));
    if (h.ok) return h.fresh;
    // takeAppendLock throws its refusals: only a held lock that could not be checked is left
    throw lockIoError(
      path,
      lockPath,
      'check the held lock',
      h.reason === 'check_failed' ? h.cause : h.refusal,
    );
  }

  /** Whether this object holds `path`'s lock (as far as it knows; {@link hold} re-checks). */
  holds(path: string): boolean {
    return this.#locks.holds(appendLockFile(path));
  }

  /** How many locks this object holds. */
  get size(): number {
    return this.#locks.size;
  }

  /**
   * Releases `path`'s lock when this object holds it and it is still its own (same inode and
   * device); a lock replaced behind its back is left alone. Returns whether a lock was removed.
   */
  release(path: string): boolean {
    return this.#locks.release(appendLockFile(path)).outcome === 'removed';
  }

  /** Releases every lock this object holds ({@link release} each). */
  releaseAll(): void {
    this.#locks.releaseAll();
  }
}
