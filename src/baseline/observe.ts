/**
 * The I/O half of custody: what is at a path now — existence (a dangling symlink counts as absent),
 * the resolved realpath, and the sha256 and size of the exact bytes, hashed by streaming (a file is
 * never held whole in memory). Never mtime, never git.
 *
 * Metadata calls (lstat, realpath, open, fstat) and files up to {@link SMALL_FILE_BYTES} are done
 * synchronously: on small files a thread-pool round trip per call costs several times the call
 * itself (see docs/baseline.md, benchmark). Larger files stream asynchronously with two buffers,
 * and callers yield to the event loop between files (see {@link mapLimit}).
 */
import { createHash } from 'node:crypto';
import {
  closeSync,
  constants,
  fstatSync,
  lstatSync,
  openSync,
  read,
  readlinkSync,
  readSync,
  realpathSync,
} from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { sha256Hex } from '../canonical/digest.js';
import type { FileObservation } from './classify.js';

/** Size of each asynchronous read while hashing a large file; two such buffers are in use per file. */
export const HASH_CHUNK_BYTES = 1 << 20;

/** Files up to this size are read and hashed in one synchronous read. */
export const SMALL_FILE_BYTES = 256 * 1024;

const MAX_LINK_HOPS = 40;
const OPEN_FLAGS = constants.O_RDONLY | constants.O_NONBLOCK | constants.O_NOFOLLOW;

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException)?.code ?? String(e);
}

function isMissing(code: string): boolean {
  return code === 'ENOENT' || code === 'ENOTDIR';
}

/**
 * Resolves `path` (absolute) as far as the file system allows, like POSIX `realpath` but without
 * failing on missing components: existing prefixes and symlinks are resolved, the missing rest is
 * appended lexically. A dangling symlink resolves to its (missing) target; a symlink loop stops
 * after 40 hops at the looping path.
 *
 * @example
 * ```ts
 * lenientRealpath('/repo/link-to-missing'); // '/repo/missing-target'
 * ```
 */
export function lenientRealpath(path: string): string {
  return resolveLenient(path, 0);
}

function resolveLenient(path: string, hops: number): string {
  try {
    return realpathSync.native(path);
  } catch {
    // fall through to component-wise resolution
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const head = resolveLenient(parent, hops);
  const joined = join(head, basename(path));
  if (hops >= MAX_LINK_HOPS) return joined;
  try {
    if (lstatSync(joined).isSymbolicLink())
      return resolveLenient(resolve(head, readlinkSync(joined)), hops + 1);
  } catch {
    // missing or uninspectable: keep the lexical remainder
  }
  return joined;
}

/** sha256 and size of a file's exact bytes. */
export interface ContentDigest {
  readonly sha256: string;
  readonly size: number;
}

function readAt(fd: number, buf: Buffer, length: number, position: number): Promise<number> {
  return new Promise((ok, fail) => {
    read(fd, buf, 0, length, position, (err, n) => (err ? fail(err) : ok(n)));
  });
}

/**
 * Streams an open regular file (by descriptor) through sha256 with two alternating buffers, so the next read is in flight
 * while the current chunk is hashed. Stops at end of file: an empty read, or a short read once the
 * stat size has been reached.
 *
 * @example
 * ```ts
 * const { sha256, size } = await hashDescriptor(fd, fstatSync(fd).size);
 * ```
 */
export async function hashDescriptor(fd: number, statSize: number): Promise<ContentDigest> {
  const hash = createHash('sha256');
  const len = HASH_CHUNK_BYTES;
  let current: Buffer = Buffer.allocUnsafe(len);
  let spare: Buffer | undefined;
  let pos = 0;
  let pending = readAt(fd, current, len, pos);
  for (;;) {
    const n = await pending;
    if (n === 0) break;
    pos += n;
    const chunk = current;
    const more = n === len || pos < statSize;
    if (more) {
      spare ??= Buffer.allocUnsafe(len);
      current = spare;
      spare = chunk;
      pending = readAt(fd, current, len, pos);
    }
    hash.update(n === len ? chunk : chunk.subarray(0, n));
    if (!more) break;
  }
  return { sha256: hash.digest('hex'), size: pos };
}

/**
 * Observes one absolute lexical path: `present` (a regular file, possibly through symlinks, with
 * its realpath, sha256 and size), `absent` (nothing there, or a dangling or looping symlink; the
 * realpath is resolved leniently), or `error` (exists but is not a regular file, is unreadable,
 * or cannot be inspected). FIFOs, sockets and devices are never read.
 *
 * @example
 * ```ts
 * const o = await observePath('/repo/A.lean'); // { kind: 'present', realpath, sha256, size }
 * ```
 */
export async function observePath(path: string): Promise<FileObservation> {
  let link: boolean;
  try {
    const st = lstatSync(path);
    link = st.isSymbolicLink();
    if (!link && !st.isFile()) return { kind: 'error', detail: `${path}: not a regular file` };
  } catch (e) {
    const code = errno(e);
    if (isMissing(code)) return { kind: 'absent', realpath: lenientRealpath(path) };
    return { kind: 'error', detail: `${path}: cannot inspect (${code})` };
  }
  let real: string;
  try {
    real = realpathSync.native(path);
  } catch (e) {
    const code = errno(e);
    if (isMissing(code) || (link && code === 'ELOOP')) {
      return { kind: 'absent', realpath: lenientRealpath(path) };
    }
    return { kind: 'error', detail: `${path}: cannot resolve (${code})` };
  }
  let fd: number;
  try {
    fd = openSync(real, OPEN_FLAGS);
  } catch (e) {
    const code = errno(e);
    if (isMissing(code)) return { kind: 'absent', realpath: lenientRealpath(path) };
    if (code === 'ENXIO' || code === 'ELOOP') return { kind: 'error', detail: `${path}: not a regular file` };
    return { kind: 'error', detail: `${path}: unreadable (${code})` };
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) return { kind: 'error', detail: `${path}: not a regular file` };
    const digest = st.size <= SMALL_FILE_BYTES ? hashSmall(fd, st.size) : null;
    const { sha256, size } = digest ?? (await hashDescriptor(fd, st.size));
    return { kind: 'present', realpath: real, sha256, size };
  } catch (e) {
    return { kind: 'error', detail: `${path}: unreadable (${errno(e)})` };
  } finally {
    try {
      closeSync(fd);
    } catch {
      // nothing to do: the descriptor is gone either way
    }
  }
}

/**
 * Hashes a small file in one read of `size + 1` bytes; returns null when the file turned out to be
 * larger (it grew), so the caller streams it instead.
 */
function hashSmall(fd: number, size: number): ContentDigest | null {
  const buf = Buffer.allocUnsafe(size + 1);
  let n = 0;
  for (;;) {
    const got = readSync(fd, buf, n, buf.length - n, n);
    if (got === 0) break;
    n += got;
    if (n === buf.length) return null;
    if (n >= size) break;
  }
  return { sha256: sha256Hex(buf.subarray(0, n)), size: n };
}
