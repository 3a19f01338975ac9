/**
 * Small I/O building blocks of the fs backend over an {@link FsLayer}: read a file up to the
 * size seen at open, write a buffer completely (reporting partial progress), fsync a directory,
 * and publish a whole file with temp + fsync + rename + directory fsync.
 */
import * as path from 'node:path';
import { HandoffError } from '../errors/index.js';
import { errnoOf, type FsLayer, O } from './fs-layer.js';

/**
 * A failed step: a {@link HandoffError} with code `io_error`, the step's name, how many bytes of
 * the target reached the file, and the cause (`details.step`, `details.bytes_written`).
 *
 * @example
 * ```ts
 * throw new StepFailure('fsync', err, written);
 * ```
 */
export class StepFailure extends HandoffError {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
    readonly bytesWritten = 0,
  ) {
    super('io_error', `${step} failed: ${errnoOf(cause) || String((cause as Error)?.message ?? cause)}`, {
      details: { step, bytes_written: bytesWritten },
      cause,
    });
    this.name = 'StepFailure';
  }
}

/**
 * Writes all of `data` to `fd`, looping over short writes.
 *
 * @example
 * ```ts
 * writeFully(fsl, fd, Buffer.from('line\n'), 'write');
 * ```
 * @throws StepFailure(step) with `bytesWritten` when a write throws or writes nothing.
 */
export function writeFully(fsl: FsLayer, fd: number, data: Uint8Array, step: string): void {
  let off = 0;
  while (off < data.length) {
    let n: number;
    try {
      n = fsl.write(fd, data, off, data.length - off);
    } catch (e) {
      throw new StepFailure(step, e, off);
    }
    if (!(n > 0)) throw new StepFailure(step, new Error('write made no progress'), off);
    off += n;
  }
}

/**
 * Reads an open file from offset `from` up to `size` bytes (the size seen at open).
 *
 * @example
 * ```ts
 * const bytes = readRange(fsl, fd, 0, fsl.fstat(fd).size);
 * ```
 */
export function readRange(fsl: FsLayer, fd: number, from: number, size: number): Buffer {
  const buf = Buffer.allocUnsafe(Math.max(0, size - from));
  let off = 0;
  while (off < buf.length) {
    const n = fsl.read(fd, buf, off, buf.length - off, from + off);
    if (n === 0) break; // file shrank under us: return what exists
    off += n;
  }
  return off === buf.length ? buf : buf.subarray(0, off);
}

/**
 * Reads a whole regular file without following a final symlink; null when absent.
 *
 * @example
 * ```ts
 * const text = readFileNoFollow(fsl, '/p/.handoff/runs/R/manifest.json');
 * ```
 * @throws the underlying error (ELOOP for a symlink) other than ENOENT.
 */
export function readFileNoFollow(fsl: FsLayer, file: string): Buffer | null {
  let fd: number;
  try {
    fd = fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'EISDIR' });
    return readRange(fsl, fd, 0, st.size);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only descriptor: nothing to lose
    }
  }
}

/**
 * fsyncs a directory (so a created, renamed or removed entry is durable).
 *
 * @example
 * ```ts
 * fsyncDir(fsl, runDir, 'dir_fsync');
 * ```
 * @throws StepFailure(step)
 */
export function fsyncDir(fsl: FsLayer, dir: string, step: string): void {
  let fd: number;
  try {
    fd = fsl.open(dir, O.O_RDONLY | O.O_DIRECTORY);
  } catch (e) {
    throw new StepFailure(step, e);
  }
  try {
    fsl.fsync(fd);
  } catch (e) {
    throw new StepFailure(step, e);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // directory descriptor: nothing to lose
    }
  }
}

/** Steps of {@link publishFile}, prefixed by the caller's label. */
export type PublishStep = 'tmp_open' | 'tmp_write' | 'tmp_fsync' | 'tmp_close' | 'rename' | 'dir_fsync';

/**
 * Publishes `data` as `dir/name` whole: write `name.tmp` (or `tmpName`, which must be unique among
 * concurrent publishers of the same name), fsync it, rename over `name`, fsync the
 * directory. A failure before the rename leaves `name` untouched (the temp is removed best-effort);
 * the step name tells the caller which side of the rename failed.
 *
 * @example
 * ```ts
 * publishFile(fsl, runDir, 'handoff.json', Buffer.from(json), 'cache');
 * ```
 * @throws StepFailure with step `<label>_<PublishStep>`.
 */
export function publishFile(
  fsl: FsLayer,
  dir: string,
  name: string,
  data: Uint8Array,
  label: string,
  tmpName = `${name}.tmp`,
): void {
  const tmp = path.join(dir, tmpName);
  const target = path.join(dir, name);
  let fd: number;
  try {
    fd = fsl.open(tmp, O.O_WRONLY | O.O_CREAT | O.O_TRUNC | O.O_NOFOLLOW, 0o644);
  } catch (e) {
    throw new StepFailure(`${label}_tmp_open`, e);
  }
  let closed = false;
  try {
    writeFully(fsl, fd, data, `${label}_tmp_write`);
    try {
      fsl.fsync(fd);
    } catch (e) {
      throw new StepFailure(`${label}_tmp_fsync`, e);
    }
    closed = true;
    try {
      fsl.close(fd);
    } catch (e) {
      throw new StepFailure(`${label}_tmp_close`, e);
    }
  } catch (e) {
    if (!closed) {
      try {
        fsl.close(fd);
      } catch {
        // already failing
      }
    }
    try {
      fsl.unlink(tmp);
    } catch {
      // best effort
    }
    throw e;
  }
  try {
    fsl.rename(tmp, target);
  } catch (e) {
    try {
      fsl.unlink(tmp);
    } catch {
      // best effort
    }
    throw new StepFailure(`${label}_rename`, e);
  }
  fsyncDir(fsl, dir, `${label}_dir_fsync`);
}
