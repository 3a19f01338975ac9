/**
 * Durable append-only JSON-lines files (effects layer). One durable boundary costs one lock
 * acquisition, one `write` and one `fsync` of the file (plus one directory fsync when the append
 * created the file): the lines of a boundary are written together, a torn last line (a crash
 * mid-write) is ignored on read and cut off before the next append, and a {@link JsonlAppender}
 * keeps each file's descriptor open between appends (re-checked under the lock before every
 * write, so a replaced or extended file is noticed). Writers serialize through an exclusive lock
 * file per appended file ({@link withAppendLock}, re-exported from ./append-lock.ts, where the lock
 * is a link(2) to this process's lock body): a second concurrent writer is refused with `busy`,
 * and the lock is never broken. Every file-system step goes through an {@link FsLayer}
 * (src/durable), so tests can fail any single call. Shared by the file journal, the file effect
 * ledger and the example's payment rail.
 */
import * as fs from 'node:fs';
import { dirname } from 'node:path';
import {
  dirFsyncUnsupported,
  errnoOf,
  type FsLayer,
  fsyncDir,
  makeDirsDurable,
  nodeFsLayer,
  O,
  readRange,
  StepFailure,
  writeFully,
} from '../durable/index.js';
import { HandoffError } from '../errors/index.js';

export { appendLockFile, LOCK_BODY_DIR, withAppendLock } from './append-lock.js';

const defaultFsl = nodeFsLayer();

const stampOf = (s: { dev: number; ino: number; size: number }): string => `${s.dev}:${s.ino}:${s.size}`;

/**
 * A cheap change detector for an append-only file: `absent`, or its device, inode and size. Every
 * append changes it (the size grows) and a replaced file changes it (another inode), so a cache
 * keyed by the stamp is reloaded exactly when another writer appended or replaced the file. (A
 * rewrite in place to the very same size is not an append and is not noticed by such a cache; the
 * loader that reads the file afresh still checks every line.)
 *
 * @example
 * ```ts
 * if ((await fileStamp(path)) !== cached.stamp) cached = await reload(path);
 * ```
 * @throws HandoffError `io_error` for stat errors other than a missing file.
 */
export async function fileStamp(path: string): Promise<string> {
  return fileStampSync(path);
}

/**
 * {@link fileStamp}, synchronously (one `stat(2)`).
 *
 * @example
 * ```ts
 * const stamp = fileStampSync('/var/chain/baton-1a2b.jsonl'); // 'absent' or '<dev>:<ino>:<size>'
 * ```
 * @throws HandoffError `io_error` for stat errors other than a missing file.
 */
export function fileStampSync(path: string): string {
  try {
    return stampOf(fs.statSync(path));
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return 'absent';
    throw new HandoffError('io_error', `cannot stat ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
}

/** An open journal file: its descriptor, identity, and the size this appender left it at. */
interface Held {
  fd: number;
  readonly ino: number;
  readonly dev: number;
  size: number;
}

/**
 * How many descriptors one {@link JsonlAppender} keeps open between appends (least recently used
 * are closed first).
 *
 * @example
 * ```ts
 * for (const p of paths.slice(0, HELD_JSONL_FILES)) appender.append(p, [line]); // all held
 * ```
 */
export const HELD_JSONL_FILES = 8;

const finalizer = new FinalizationRegistry<{ fsl: FsLayer; held: Map<string, Held> }>((x) => {
  for (const h of x.held.values()) closeQuietly(x.fsl, h.fd);
  x.held.clear();
});

function closeQuietly(fsl: FsLayer, fd: number): void {
  try {
    fsl.close(fd);
  } catch {
    // nothing pending on it: every acknowledged line was fsync'd before it was kept open
  }
}

function ioError(path: string, e: unknown): HandoffError {
  if (e instanceof HandoffError) return e;
  return new HandoffError('io_error', `cannot append to ${path}: ${(e as Error)?.message ?? String(e)}`, {
    details: { path, step: e instanceof StepFailure ? e.step : null },
    cause: e,
  });
}

/**
 * Durable appends to JSON-lines files with descriptors kept open between appends. One
 * {@link JsonlAppender.append} is one durable boundary: the lines are written with one `write`
 * (looping only over short writes) and made durable with one `fsync`; when the append created the
 * file, its directory is fsync'd too (best effort, as some file systems refuse it). Before every
 * write the held descriptor is re-checked against the path (same inode, size this appender left):
 * a replaced file is reopened, and a file another writer extended has its tail checked — a torn
 * last line (a crash mid-write) is cut off so it never merges with the new record. A failed
 * append closes the descriptor and cuts the file back to its size before the append (best effort),
 * so a retry never finds an unacknowledged, unsynced line and mistakes it for a durable one.
 * Callers that can race with other processes hold {@link withAppendLock}.
 *
 * @example
 * ```ts
 * const appender = new JsonlAppender();
 * await withAppendLock(path, async () => appender.append(path, [canonicalJson(record)]));
 * ```
 */
export class JsonlAppender {
  readonly #fsl: FsLayer;
  readonly #held = new Map<string, Held>();
  readonly #maxHeld: number;
  /** The path {@link JsonlAppender.view} just checked (its held descriptor is current). */
  #viewed: string | undefined;
  /** The path {@link JsonlAppender.view} just found absent (append creates it at once). */
  #viewedAbsent: string | undefined;

  /** `fsl`: the file-system layer (default node's); `maxHeld`: descriptors kept open (0 closes after every append). */
  constructor(fsl: FsLayer = defaultFsl, maxHeld = HELD_JSONL_FILES) {
    this.#fsl = fsl;
    this.#maxHeld = maxHeld;
    finalizer.register(this, { fsl, held: this.#held });
  }

  /**
   * Appends `lines` (each without a newline; at least one) plus `\n` each, durably, and returns
   * the file's new {@link fileStamp}.
   *
   * @throws HandoffError `internal` for a line holding a newline; `io_error` (details `path`,
   *   `step`) when the file cannot be written or made durable.
   */
  append(path: string, lines: readonly string[]): string {
    if (lines.length === 0) throw new HandoffError('internal', 'an append needs at least one line');
    for (const l of lines) {
      if (l.includes('\n')) throw new HandoffError('internal', 'a journal line may not contain a newline');
    }
    const fsl = this.#fsl;
    const data = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
    let h: Held | undefined;
    let created = false;
    let before = -1;
    const viewed = this.#viewed === path ? this.#held.get(path) : undefined;
    const absent = this.#viewedAbsent === path;
    this.#viewed = undefined;
    this.#viewedAbsent = undefined;
    try {
      if (viewed !== undefined) h = viewed;
      else ({ h, created } = this.#ready(path, true, absent));
      before = h.size;
      writeFully(fsl, h.fd, data, 'write');
      try {
        fsl.fsync(h.fd);
      } catch (e) {
        throw new StepFailure('fsync', e, data.length);
      }
      h.size += data.length;
      if (created) {
        try {
          fsyncDir(fsl, dirname(path), 'dir_fsync');
        } catch (e) {
          // a file system that cannot fsync a directory (EINVAL…) is let through; a real failure
          // (EIO, ENOSPC…) is not acknowledged: the new file's entry may not be durable
          if (!dirFsyncUnsupported(e)) throw e;
        }
      }
      this.#keep(path, h);
      return stampOf(h);
    } catch (e) {
      if (h !== undefined) {
        this.#held.delete(path);
        if (created) {
          // the file this append created goes again, so the retry creates it and fsyncs its
          // directory again (best effort: a file left empty is only a file without lines)
          try {
            fsl.unlink(path);
            before = -1;
          } catch {
            // cut back to empty below
          }
        }
        if (before >= 0) {
          try {
            fs.ftruncateSync(h.fd, before); // best effort: an unacknowledged line must not survive a retry
          } catch {
            // a torn or unsynced tail may stay; the next append checks the tail again
          }
        }
        closeQuietly(fsl, h.fd);
      }
      throw ioError(path, e);
    }
  }

  /**
   * The file's {@link fileStamp} as this appender sees it under the caller's lock, for a caller
   * that decides from the stamp (its cache of the file is current or not) what to append: one
   * `lstat`, and the held descriptor re-checked as before an append (a replaced file is reopened,
   * a torn tail another writer left is cut). When the very next call is {@link append} of the same
   * path, it writes without checking again. `absent` when there is no file (append creates it).
   *
   * @example
   * ```ts
   * await withAppendLock(path, async () => {
   *   if (appender.view(path) !== cached.stamp) cached = reload(path);
   *   cached = { stamp: appender.append(path, [next(cached)]), … };
   * });
   * ```
   * @throws HandoffError `io_error` (details `path`, `step`) when the file cannot be checked.
   */
  view(path: string): string {
    this.#viewed = undefined;
    this.#viewedAbsent = undefined;
    let h: Held | null;
    try {
      h = this.#ready(path, false).h;
    } catch (e) {
      throw ioError(path, e);
    }
    if (h === null) {
      this.#viewedAbsent = path;
      return 'absent';
    }
    this.#keep(path, h);
    this.#viewed = path;
    return stampOf(h);
  }

  /** Closes every held descriptor (later appends reopen and re-check). */
  close(): void {
    this.#viewed = undefined;
    for (const h of this.#held.values()) closeQuietly(this.#fsl, h.fd);
    this.#held.clear();
  }

  /**
   * The descriptor to append to, re-checked against the path; a torn tail is cut first. A missing
   * file is created when `create`, else the answer is `null`.
   */
  #ready(path: string, create: true, absent?: boolean): { h: Held; created: boolean };
  #ready(path: string, create: boolean): { h: Held | null; created: boolean };
  #ready(path: string, create: boolean, absent = false): { h: Held | null; created: boolean } {
    const fsl = this.#fsl;
    const known = this.#held.get(path);
    let st: { ino: number; dev: number; size: number; isFile(): boolean } | null = null;
    if (!absent) {
      try {
        st = fsl.lstat(path);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw new StepFailure('lstat', e);
      }
    }
    if (known !== undefined) {
      if (st?.isFile() && st.ino === known.ino && st.dev === known.dev) {
        if (st.size !== known.size) known.size = this.#cutTornTail(known.fd, st.size);
        return { h: known, created: false };
      }
      this.#held.delete(path);
      closeQuietly(fsl, known.fd);
    }
    let fd = -1;
    let created = false;
    if (!absent) {
      try {
        fd = fsl.open(path, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW);
      } catch (e) {
        if (errnoOf(e) !== 'ENOENT') throw new StepFailure('open', e);
      }
    }
    if (fd < 0) {
      // missing — or found absent under the lock a moment ago (O_EXCL still refuses a file that
      // appeared since; only a writer ignoring the lock could have made one)
      if (!create) return { h: null, created: false };
      try {
        fd = fsl.open(path, O.O_RDWR | O.O_APPEND | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o644);
        created = true;
      } catch (e2) {
        throw new StepFailure('open', e2);
      }
    }
    try {
      const s = fsl.fstat(fd);
      if (!s.isFile())
        throw new StepFailure('open', Object.assign(new Error('not a regular file'), { code: 'EISDIR' }));
      const size = s.size === 0 ? 0 : this.#cutTornTail(fd, s.size);
      return { h: { fd, ino: s.ino, dev: s.dev, size }, created };
    } catch (e) {
      closeQuietly(fsl, fd);
      throw e;
    }
  }

  /** Cuts a torn last line (no final newline) off the file; returns its (new) size. */
  #cutTornTail(fd: number, size: number): number {
    if (size === 0) return 0;
    const fsl = this.#fsl;
    const last = Buffer.alloc(1);
    try {
      fsl.read(fd, last, 0, 1, size - 1);
    } catch (e) {
      throw new StepFailure('read', e);
    }
    if (last[0] === 0x0a) return size;
    let whole: Buffer;
    try {
      whole = readRange(fsl, fd, 0, size);
    } catch (e) {
      throw new StepFailure('read', e);
    }
    const keep = whole.lastIndexOf(0x0a) + 1;
    try {
      fs.ftruncateSync(fd, keep);
    } catch (e) {
      throw new StepFailure('truncate', e);
    }
    return keep;
  }

  #keep(path: string, h: Held): void {
    const held = this.#held;
    held.delete(path);
    if (this.#maxHeld <= 0) {
      closeQuietly(this.#fsl, h.fd);
      return;
    }
    held.set(path, h);
    for (const [p, x] of held) {
      if (held.size <= this.#maxHeld) break;
      held.delete(p);
      closeQuietly(this.#fsl, x.fd);
    }
  }
}

/**
 * Appends `line` (without newline) plus `\n` durably (its directory made durably when missing) and resolves to the file's new
 * {@link fileStamp}: one write, one fsync (and the directory's when the file is created). A torn
 * tail left by a crash is truncated first so it never merges with the new record. Callers that
 * can race with other processes hold {@link withAppendLock}. Opens and closes the file each call;
 * a hot path keeps a {@link JsonlAppender}.
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
    makeDirsDurable(defaultFsl, dirname(path), 'journal_mkdir', { bestEffort: true, undoOnFailure: true });
  } catch (e) {
    throw ioError(path, e);
  }
  return new JsonlAppender(defaultFsl, 0).append(path, [line]);
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
  return readCompleteLinesSync(path);
}

/**
 * {@link readCompleteLines}, synchronously, through `fsl` (default node's).
 *
 * @example
 * ```ts
 * const lines = readCompleteLinesSync('/var/chain/effects.jsonl');
 * ```
 * @throws HandoffError `io_error` for read errors other than a missing file.
 */
export function readCompleteLinesSync(path: string, fsl: FsLayer = defaultFsl): string[] {
  let text: string;
  try {
    let fd: number;
    try {
      fd = fsl.open(path, O.O_RDONLY);
    } catch (e) {
      if (errnoOf(e) === 'ENOENT') return [];
      throw e;
    }
    try {
      text = readRange(fsl, fd, 0, fsl.fstat(fd).size).toString('utf8');
    } finally {
      closeQuietly(fsl, fd);
    }
  } catch (e) {
    throw new HandoffError('io_error', `cannot read ${path}: ${(e as Error).message}`, {
      details: { path },
      cause: e,
    });
  }
  const end = text.lastIndexOf('\n');
  return end < 0 ? [] : text.slice(0, end).split('\n');
}
