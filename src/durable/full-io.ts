/**
 * Whole-buffer I/O over an {@link FsLayer}: write a buffer completely (reporting partial
 * progress), read a file up to the size seen at open, read a regular file without following a
 * final symlink.
 */
import { errnoOf } from './errno.js';
import { type FsLayer, O } from './fs-layer.js';
import { StepFailure } from './step-failure.js';

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
 * Reads an open file from offset `from` up to `size` bytes (the size seen at open); a file that
 * shrank meanwhile gives the bytes that exist.
 *
 * @example
 * ```ts
 * const bytes = readRange(fsl, fd, 0, fsl.fstat(fd).size);
 * ```
 * @throws the layer's read error.
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
 * Reads a whole regular file without following a final symlink; null when absent. The open never
 * waits: O_NONBLOCK, so a FIFO planted at `file` is refused as not a regular file instead of
 * blocking the process until some writer opens it. `maxBytes` bounds what is read.
 *
 * @example
 * ```ts
 * const text = readFileNoFollow(fsl, '/p/.handoff/runs/R/manifest.json');
 * ```
 * @throws the underlying error (ELOOP for a symlink, EISDIR for anything but a regular file — a
 *   FIFO, a device, a directory —, EFBIG for a file larger than `maxBytes`) other than ENOENT.
 */
export function readFileNoFollow(
  fsl: FsLayer,
  file: string,
  options: { readonly maxBytes?: number } = {},
): Buffer | null {
  let fd: number;
  try {
    fd = fsl.open(file, O.O_RDONLY | O.O_NOFOLLOW | O.O_NONBLOCK);
  } catch (e) {
    if (errnoOf(e) === 'ENOENT') return null;
    throw e;
  }
  try {
    const st = fsl.fstat(fd);
    if (!st.isFile()) throw Object.assign(new Error(`${file} is not a regular file`), { code: 'EISDIR' });
    if (options.maxBytes !== undefined && st.size > options.maxBytes)
      throw Object.assign(new Error(`${file} has ${st.size} bytes, more than ${options.maxBytes}`), {
        code: 'EFBIG',
      });
    return readRange(fsl, fd, 0, st.size);
  } finally {
    try {
      fsl.close(fd);
    } catch {
      // read-only descriptor: nothing to lose
    }
  }
}
