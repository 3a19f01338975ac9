/**
 * The append lock of a chain JSON-lines file (effects layer): `<path>.lock`, taken exclusively —
 * an existing lock means another writer is inside its critical section (or crashed there): `busy`,
 * and the lock is never broken. Readers take no lock.
 *
 * How the lock file is made: as a hard link (`link(2)`, which fails with EEXIST when the name is
 * taken — as exclusive as O_CREAT|O_EXCL, and the classic lock primitive on NFS too) to a **lock
 * body** file this process wrote once per directory, `<dir>/.lock-bodies/<host>.<pid>.<random>`,
 * holding `{host, pid}`. Taking and releasing the lock is then one `link` and one `unlink`: no
 * inode is allocated, written and freed per commit, which on ext4 made the O_EXCL lock cost more
 * than the commit's own `write` (and added its metadata to the commit's `fsync`). What another
 * process sees is unchanged: a regular file at `<path>.lock` with the holder's `{host, pid}`, so
 * writers of either kind (this one, or an O_EXCL writer such as an older version) exclude each
 * other. Where a link cannot be made (a file system without hard links, a failing call) the lock is
 * created with O_CREAT|O_EXCL as before. Lock bodies are not locks: the process removes its own on
 * exit, and when it makes one it removes those of processes of this host that are gone (a body
 * still linked as a held lock does not keep that lock from being a lock — the lock's own name does).
 */
import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { canonicalJson } from '../canonical/index.js';
import {
  createExclusiveFile,
  errnoOf,
  type FsLayer,
  makeDirsDurable,
  nodeFsLayer,
  O,
  readRange,
  removeExclusiveFile,
  StepFailure,
} from '../durable/index.js';
import { HandoffError } from '../errors/index.js';

const defaultFsl = nodeFsLayer();

/**
 * The lock file that guards appends to `path`.
 *
 * @example
 * ```ts
 * appendLockFile('/var/chain/baton-1a2b.jsonl'); // '/var/chain/baton-1a2b.jsonl.lock'
 * ```
 */
export function appendLockFile(path: string): string {
  return `${path}.lock`;
}

/**
 * The directory (inside a locked file's directory) that holds this host's processes' lock bodies.
 *
 * @example
 * ```ts
 * join('/var/chain', LOCK_BODY_DIR); // '/var/chain/.lock-bodies'
 * ```
 */
export const LOCK_BODY_DIR = '.lock-bodies';

/** The most bytes of a lock file read as its holder (a planted huge file is not read whole). */
const MAX_HOLDER_BYTES = 4096;

/**
 * The holder a lock file names (`{host, pid}` as written), for diagnostics: null when the lock is
 * being created or removed right now, is not JSON, or is larger than a lock body can be.
 *
 * @example
 * ```ts
 * appendLockHolder(nodeFsLayer(), '/var/chain/baton-1a2b.jsonl.lock'); // { host: 'h1', pid: 4242 }
 * ```
 */
export function appendLockHolder(fsl: FsLayer, lockPath: string): unknown {
  try {
    // O_NONBLOCK: a FIFO planted at the lock reads as no holder at once, never a wait for a writer
    const fd = fsl.open(lockPath, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
    try {
      const size = fsl.fstat(fd).size;
      if (size > MAX_HOLDER_BYTES) return null;
      return JSON.parse(readRange(fsl, fd, 0, size).toString('utf8'));
    } finally {
      fsl.close(fd);
    }
  } catch {
    return null; // being created or removed right now, or not JSON: diagnostic only
  }
}

/** The lock body: `{host, pid}` (diagnostic only), computed once per process. */
let lockBody: Buffer | undefined;

/**
 * The bytes every lock this process takes holds: canonical `{host, pid}` and a newline.
 *
 * @example
 * ```ts
 * appendLockBody().toString(); // '{"host":"h1","pid":4242}\n'
 * ```
 */
export const appendLockBody = (): Buffer =>
  (lockBody ??= Buffer.from(`${canonicalJson({ pid: process.pid, host: hostname() })}\n`));
const bodyOf = appendLockBody;

const hostTag = (): string => hostname().replace(/[^A-Za-z0-9_-]/g, '_');

/** Directory → this process's lock body file there (null: links are not used there). */
const bodies = new Map<string, { readonly fsl: FsLayer; readonly path: string } | null>();
let exitHooked = false;

function removeBodiesOnExit(): void {
  if (exitHooked) return;
  exitHooked = true;
  process.once('exit', () => {
    for (const b of bodies.values()) if (b !== null) removeExclusiveFile(b.fsl, b.path);
  });
}

/** Removes the lock bodies of this host's processes that no longer run (best effort). */
function sweepDeadBodies(fsl: FsLayer, sub: string): void {
  let names: string[];
  try {
    names = fsl.readdir(sub);
  } catch {
    return;
  }
  const prefix = `${hostTag()}.`;
  for (const n of names) {
    if (!n.startsWith(prefix)) continue;
    const pid = Number(n.slice(prefix.length).split('.')[0]);
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid) continue;
    try {
      process.kill(pid, 0);
    } catch (e) {
      if (errnoOf(e) === 'ESRCH') removeExclusiveFile(fsl, join(sub, n));
    }
  }
}

/** This process's lock body in `dir`, made on first use; null when it cannot be made. */
function bodyIn(fsl: FsLayer, dir: string): string | null {
  const known = bodies.get(dir);
  if (known !== undefined && known?.fsl === fsl) return known.path;
  if (known) removeExclusiveFile(known.fsl, known.path); // made through another fs layer: replaced
  const sub = join(dir, LOCK_BODY_DIR);
  try {
    fsl.mkdir(sub);
  } catch (e) {
    if (errnoOf(e) !== 'EEXIST') return null; // e.g. the directory is missing: the caller makes it
  }
  try {
    const st = fsl.lstat(sub);
    if (!st.isDirectory() || st.isSymbolicLink()) return null;
  } catch {
    return null;
  }
  sweepDeadBodies(fsl, sub);
  const path = join(sub, `${hostTag()}.${process.pid}.${randomBytes(6).toString('hex')}`);
  if (!createExclusiveFile(fsl, path, bodyOf()).ok) return null;
  bodies.set(dir, { fsl, path });
  removeBodiesOnExit();
  return path;
}

type Take = { readonly ok: true } | { readonly ok: false; readonly busy: boolean; readonly cause: unknown };

/** Links the lock from this process's body; null when the link way is not available here. */
function linkLock(fsl: FsLayer, dir: string, lockPath: string): Take | null {
  const body = bodyIn(fsl, dir);
  if (body === null) return null;
  try {
    fsl.link(body, lockPath);
    return { ok: true };
  } catch (e) {
    if (errnoOf(e) === 'EEXIST') return { ok: false, busy: true, cause: e };
    // the body vanished (ENOENT), no hard links here (EPERM, EXDEV, ENOTSUP, EMLINK) or a failing
    // call: forget the body and take the lock the O_EXCL way this time
    bodies.delete(dir);
    return null;
  }
}

function exclusiveLock(fsl: FsLayer, lockPath: string): Take | { readonly initFailed: unknown } {
  const made = createExclusiveFile(fsl, lockPath, bodyOf());
  if (made.ok) return { ok: true };
  if (made.reason === 'init_failed') return { initFailed: made.cause }; // removed again
  return { ok: false, busy: made.reason === 'exists', cause: made.cause };
}

/**
 * Takes the append lock of `path` as a hard link to this process's lock body (the way
 * {@link withAppendLock} takes it), for a holder that keeps it: `{ok: true}` when linked, `{ok:
 * false, busy: true}` when the lock exists, or null when links cannot be used here (no lock body
 * could be made, no hard links on this file system, a failing call) — then the caller creates it
 * with O_EXCL. Every lock this process links in one directory is a name of the same inode (its
 * body), so the inode says "held by this process", not by which object.
 *
 * @example
 * ```ts
 * const took = linkAppendLock(fsl, '/var/chain/baton-1a2b.jsonl'); // { ok: true }
 * ```
 */
export function linkAppendLock(
  fsl: FsLayer,
  path: string,
): { readonly ok: true } | { readonly ok: false; readonly busy: boolean; readonly cause: unknown } | null {
  return linkLock(fsl, dirname(path), appendLockFile(path));
}

function takeLock(fsl: FsLayer, path: string, lockPath: string): Take | { readonly initFailed: unknown } {
  const dir = dirname(path);
  return linkLock(fsl, dir, lockPath) ?? exclusiveLock(fsl, lockPath);
}

/**
 * Makes the directory of the appended file `path` when it is missing, through the durable layer's
 * one directory-creation path: `mkdir` of every missing directory, then an fsync of each one's
 * parent (a file system that cannot fsync a directory is let through; EIO and every other failure
 * surface). A directory made but whose parent could not be fsync'd is removed again, so the next
 * attempt makes it — and fsyncs its parent — afresh.
 *
 * @example
 * ```ts
 * makeAppendDirDurable(nodeFsLayer(), '/var/chain/new/baton-1a2b.jsonl', '/var/chain/new/baton-1a2b.jsonl.lock');
 * ```
 * @throws HandoffError `io_error` (details `path`, `lock`, `step: 'journal_mkdir'`) when a
 *   directory cannot be made or its entry made durable.
 */
export function makeAppendDirDurable(fsl: FsLayer, path: string, lockPath: string): void {
  try {
    makeDirsDurable(fsl, dirname(path), 'journal_mkdir', { bestEffort: true, undoOnFailure: true });
  } catch (e) {
    const cause = e instanceof StepFailure ? e.cause : e;
    throw new HandoffError(
      'io_error',
      `cannot create the directory of ${lockPath}: ${(cause as Error)?.message ?? String(cause)}`,
      { details: { path, lock: lockPath, step: 'journal_mkdir' }, cause: e },
    );
  }
}

/**
 * Runs `fn` while holding the append lock of `path` (see the file comment) and removes the lock
 * when `fn` settles. An existing lock refuses the call with `busy`; the lock is **never broken**
 * (a crashed writer's lock stays until a human who knows no writer runs removes it). The
 * directory is created only when it is missing, durably ({@link makeAppendDirDurable}).
 *
 * @example
 * ```ts
 * await withAppendLock(path, async () => {
 *   if (!(await alreadyRecorded(path))) await appendLineDurably(path, line);
 * });
 * ```
 * @throws HandoffError `busy` (details `lock`, `holder`) when the lock exists; `io_error` when it
 *   cannot be created; whatever `fn` throws.
 */
export async function withAppendLock<T>(
  path: string,
  fn: () => Promise<T>,
  fsl: FsLayer = defaultFsl,
): Promise<T> {
  const lockPath = appendLockFile(path);
  let took = takeLock(fsl, path, lockPath);
  if ('ok' in took && !took.ok && !took.busy && errnoOf(took.cause) === 'ENOENT') {
    makeAppendDirDurable(fsl, path, lockPath);
    took = takeLock(fsl, path, lockPath);
  }
  if (!('ok' in took)) {
    throw new HandoffError(
      'io_error',
      `cannot initialize ${lockPath}: ${(took.initFailed as Error)?.message}`,
      { details: { path, lock: lockPath }, cause: took.initFailed },
    );
  }
  if (!took.ok) {
    if (took.busy) {
      throw new HandoffError(
        'busy',
        `another writer holds ${lockPath}; it is never broken (remove it only when no writer runs)`,
        { details: { path, lock: lockPath, holder: appendLockHolder(fsl, lockPath) } },
      );
    }
    throw new HandoffError('io_error', `cannot create ${lockPath}: ${(took.cause as Error)?.message}`, {
      details: { path, lock: lockPath },
      cause: took.cause,
    });
  }
  try {
    return await fn();
  } finally {
    // when removal fails the lock stays: later writers are refused with busy until a human removes it
    removeExclusiveFile(fsl, lockPath);
  }
}
