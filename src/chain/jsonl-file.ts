/**
 * Durable append-only JSON-lines files (effects layer): one `write` per record followed by
 * `fsync`; a torn last line (a crash mid-write) is ignored on read and cut off before the next
 * append. Writers serialize through an exclusive lock file per appended file
 * ({@link withAppendLock}): a second concurrent writer is refused with `busy`, and the lock is never
 * broken. The lock file and the directory fsync are src/durable's. Shared by the file journal, the
 * file effect ledger and the example's payment rail.
 */
import { mkdir, open, readFile, stat } from 'node:fs/promises';
import { hostname } from 'node:os';
import { dirname } from 'node:path';
import { canonicalJson } from '../canonical/index.js';
import { createExclusiveFile, fsyncDir, nodeFsLayer, removeExclusiveFile } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';

const fsl = nodeFsLayer();

function syncDir(dir: string): void {
  try {
    fsyncDir(fsl, dir, 'dir_fsync');
  } catch {
    // directories cannot be fsync'd on every platform; the file itself was fsync'd
  }
}

const errno = (e: unknown): string => (e as NodeJS.ErrnoException)?.code ?? '';

const stampOf = (s: { ino: bigint; size: bigint; mtimeNs: bigint }): string =>
  `${s.ino}:${s.size}:${s.mtimeNs}`;

/**
 * A cheap change detector for an append-only file: `absent`, or its inode, size and modification
 * time in nanoseconds. Every append changes it, so a cache keyed by the stamp is reloaded exactly
 * when another writer (another process) appended.
 *
 * @example
 * ```ts
 * if ((await fileStamp(path)) !== cached.stamp) cached = await reload(path);
 * ```
 * @throws HandoffError `io_error` for stat errors other than a missing file.
 */
export async function fileStamp(path: string): Promise<string> {
  try {
    return stampOf(await stat(path, { bigint: true }));
  } catch (e) {
    if (errno(e) === 'ENOENT') return 'absent';
    throw new HandoffError('io_error', `cannot stat ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
}

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

async function lockHolder(lockPath: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(lockPath, 'utf8'));
  } catch {
    return null; // being created or removed right now, or not JSON: diagnostic only
  }
}

/**
 * Runs `fn` while holding the append lock of `path`: `<path>.lock`, created with
 * O_CREAT|O_EXCL|O_NOFOLLOW (its body `{pid, host}` is diagnostic only) and removed when `fn`
 * settles. An existing lock means another writer is inside its critical section — or crashed
 * there: the call is refused with `busy` and the lock is **never broken** (a crashed writer's lock
 * stays until a human who knows no writer runs removes it). Readers take no lock.
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
export async function withAppendLock<T>(path: string, fn: () => Promise<T>): Promise<T> {
  const lockPath = appendLockFile(path);
  try {
    await mkdir(dirname(path), { recursive: true });
  } catch (e) {
    throw new HandoffError('io_error', `cannot create ${lockPath}: ${(e as Error).message}`, {
      details: { path, lock: lockPath },
      cause: e,
    });
  }
  const made = createExclusiveFile(
    fsl,
    lockPath,
    Buffer.from(`${canonicalJson({ pid: process.pid, host: hostname() })}\n`),
  );
  if (!made.ok) {
    if (made.reason === 'exists') {
      const holder = await lockHolder(lockPath);
      throw new HandoffError(
        'busy',
        `another writer holds ${lockPath}; it is never broken (remove it only when no writer runs)`,
        { details: { path, lock: lockPath, holder } },
      );
    }
    // init_failed: the half-made lock was removed again
    const verb = made.reason === 'create_failed' ? 'create' : 'initialize';
    throw new HandoffError('io_error', `cannot ${verb} ${lockPath}: ${(made.cause as Error)?.message}`, {
      details: { path, lock: lockPath },
      cause: made.cause,
    });
  }
  try {
    return await fn();
  } finally {
    // when removal fails the lock stays: later writers are refused with busy until a human removes it
    removeExclusiveFile(fsl, lockPath);
  }
}

/**
 * Appends `line` (without newline) plus `\n` durably and resolves to the file's new
 * {@link fileStamp}. A torn tail left by a crash is truncated first so it never merges with the new
 * record. Callers that can race with other processes hold {@link withAppendLock}.
 *
 * @example
 * ```ts
 * const stamp = await appendLineDurably('/tmp/j/x.jsonl', JSON.stringify(record));
 * ```
 * @throws HandoffError `io_error` when the file cannot be written.
 */
export async function appendLineDurably(path: string, line: string): Promise<string> {
  if (line.includes('\n')) throw new HandoffError('internal', 'a journal line may not contain a newline');
  try {
    await mkdir(dirname(path), { recursive: true });
    const fd = await open(path, 'a+');
    let created = false;
    let stamp: string;
    try {
      const { size } = await fd.stat();
      created = size === 0;
      if (size > 0) {
        const last = Buffer.alloc(1);
        await fd.read(last, 0, 1, size - 1);
        if (last[0] !== 0x0a) {
          const bytes = await readFile(path);
          await fd.truncate(bytes.lastIndexOf(0x0a) + 1);
        }
      }
      await fd.write(`${line}\n`);
      await fd.sync();
      stamp = stampOf(await fd.stat({ bigint: true }));
    } finally {
      await fd.close();
    }
    if (created) syncDir(dirname(path));
    return stamp;
  } catch (e) {
    if (e instanceof HandoffError) throw e;
    throw new HandoffError('io_error', `cannot append to ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
}

/**
 * Reads the complete lines of a JSON-lines file (a torn last line is dropped); `[]` when absent.
 *
 * @example
 * ```ts
 * for (const line of await readCompleteLines(path)) JSON.parse(line);
 * ```
 * @throws HandoffError `io_error` for read errors other than a missing file.
 */
export async function readCompleteLines(path: string): Promise<string[]> {
  let text: string;
  try {
    text = (await readFile(path)).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw new HandoffError('io_error', `cannot read ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
  const end = text.lastIndexOf('\n');
  return end < 0 ? [] : text.slice(0, end).split('\n');
}
