/**
 * The I/O half of custody: what is at a path now — existence (a dangling symlink counts as absent),
 * the resolved realpath, and the sha256 and size of the exact bytes, hashed by streaming (a file is
 * never held whole in memory). Never mtime, never git.
 */
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { type FileHandle, lstat, open, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import type { Observation } from './classify.js';

/** Size of each read while hashing; two buffers of this size are in use per large file. */
export const HASH_CHUNK_BYTES = 1 << 20;

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
 * await lenientRealpath('/repo/link-to-missing'); // '/repo/missing-target'
 * ```
 */
export async function lenientRealpath(path: string): Promise<string> {
  return resolveLenient(path, 0);
}

async function resolveLenient(path: string, hops: number): Promise<string> {
  try {
    return await realpath(path);
  } catch {
    // fall through to component-wise resolution
  }
  const parent = dirname(path);
  if (parent === path) return path;
  const head = await resolveLenient(parent, hops);
  const joined = join(head, basename(path));
  if (hops >= MAX_LINK_HOPS) return joined;
  try {
    if ((await lstat(joined)).isSymbolicLink()) {
      return await resolveLenient(resolve(head, await readlink(joined)), hops + 1);
    }
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

/**
 * Streams an open regular file through sha256 with two alternating buffers, so the next read is in
 * flight while the current chunk is hashed. Stops at end of file (a short read once the stat size
 * has been reached, or an empty read).
 *
 * @example
 * ```ts
 * const fh = await open('/repo/big.bin'); const { sha256, size } = await hashHandle(fh, (await fh.stat()).size);
 * ```
 */
export async function hashHandle(fh: FileHandle, statSize: number): Promise<ContentDigest> {
  const hash = createHash('sha256');
  const len = Math.min(HASH_CHUNK_BYTES, statSize + 1);
  let current: Buffer = Buffer.allocUnsafe(len);
  let spare: Buffer | undefined;
  let position = 0;
  let pending = fh.read(current, 0, len, 0);
  for (;;) {
    const { bytesRead } = await pending;
    if (bytesRead === 0) break;
    position += bytesRead;
    const chunk = current;
    const more = bytesRead === len || position < statSize;
    if (more) {
      spare ??= Buffer.allocUnsafe(len);
      current = spare;
      spare = chunk;
      pending = fh.read(current, 0, len, position);
    }
    hash.update(bytesRead === len ? chunk : chunk.subarray(0, bytesRead));
    if (!more) break;
  }
  return { sha256: hash.digest('hex'), size: position };
}

/**
 * Observes one absolute lexical path: `present` (a regular file, possibly through symlinks, with
 * its realpath, sha256 and size), `absent` (nothing there, or a dangling or looping symlink; the
 * realpath is resolved leniently), or `error` (exists but is not a regular file, is unreadable,
 * or cannot be inspected). FIFOs, sockets and devices are never opened for reading.
 *
 * @example
 * ```ts
 * const o = await observePath('/repo/A.lean'); // { kind: 'present', realpath, sha256, size }
 * ```
 */
export async function observePath(path: string): Promise<Observation> {
  let link: boolean;
  try {
    const st = await lstat(path);
    link = st.isSymbolicLink();
    if (!link && !st.isFile()) return { kind: 'error', detail: `${path}: not a regular file` };
  } catch (e) {
    const code = errno(e);
    if (isMissing(code)) return { kind: 'absent', realpath: await lenientRealpath(path) };
    return { kind: 'error', detail: `${path}: cannot inspect (${code})` };
  }
  let real: string;
  try {
    real = await realpath(path);
  } catch (e) {
    const code = errno(e);
    if (isMissing(code) || (link && code === 'ELOOP')) {
      return { kind: 'absent', realpath: await lenientRealpath(path) };
    }
    return { kind: 'error', detail: `${path}: cannot resolve (${code})` };
  }
  let fh: FileHandle;
  try {
    fh = await open(real, OPEN_FLAGS);
  } catch (e) {
    const code = errno(e);
    if (isMissing(code)) return { kind: 'absent', realpath: await lenientRealpath(path) };
    if (code === 'ENXIO' || code === 'ELOOP') return { kind: 'error', detail: `${path}: not a regular file` };
    return { kind: 'error', detail: `${path}: unreadable (${code})` };
  }
  try {
    const st = await fh.stat();
    if (!st.isFile()) return { kind: 'error', detail: `${path}: not a regular file` };
    const digest = await hashHandle(fh, st.size);
    return { kind: 'present', realpath: real, sha256: digest.sha256, size: digest.size };
  } catch (e) {
    return { kind: 'error', detail: `${path}: unreadable (${errno(e)})` };
  } finally {
    await fh.close().catch(() => undefined);
  }
}
