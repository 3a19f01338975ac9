/**
 * The owned files' bytes across a dispatch (layer 3, effects): captured right before the worker
 * runs, checked for a file-type or location swap after it returns, and restored exactly when the
 * runtime refuses what the worker did (custody or fence violation, protocol or operational error),
 * so the next attempt starts from the pre-dispatch bytes and unverified bytes never linger.
 */
import { constants } from 'node:fs';
import { lstat, open, readlink, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import { nodeFsLayer, publishFile } from '../durable/index.js';
import { HandoffError } from '../errors/index.js';
import { randomHex } from '../ids/index.js';

/** The bytes (null: absent) and permission bits of each owned file at one moment. */
export type OwnedCapture = ReadonlyMap<string, { readonly bytes: Buffer | null; readonly mode: number }>;

/**
 * The largest owned file custody reads (64 MiB). Owned files are source files a worker edits: a
 * larger one is never read whole — it is a custody violation (named, the file put back to its
 * pre-dispatch bytes), so a worker cannot make the runtime hold gigabytes in memory or fail on
 * Node's 2 GiB read limit.
 */
export const OWNED_FILE_LIMIT_BYTES = 64 * 1024 * 1024;

/**
 * A byte count for a message (`3.0 GiB`, `700.0 MiB`, `12 bytes`).
 *
 * @example
 * ```ts
 * byteSize(3 * 2 ** 30); // '3.0 GiB'
 * ```
 */
export function byteSize(n: number): string {
  if (n >= 2 ** 30) return `${(n / 2 ** 30).toFixed(1)} GiB`;
  if (n >= 2 ** 20) return `${(n / 2 ** 20).toFixed(1)} MiB`;
  return `${n} bytes`;
}

/**
 * The violation of an owned file of `size` bytes over `limit`; null when it fits (pure).
 *
 * @example
 * ```ts
 * oversizeViolation('/repo/A.lean', 3 * 2 ** 30); // 'owned file /repo/A.lean is 3.0 GiB, over the 64.0 MiB owned-file limit: not read'
 * ```
 */
export function oversizeViolation(
  path: string,
  size: number,
  limit: number = OWNED_FILE_LIMIT_BYTES,
): string | null {
  return size > limit
    ? `owned file ${path} is ${byteSize(size)}, over the ${byteSize(limit)} owned-file limit: not read`
    : null;
}

/**
 * The first owned path (absolute) that is a regular file over `limit` bytes, as a violation; null
 * when none is. Only sizes are read (lstat): call it before anything hashes or reads the files.
 *
 * @example
 * ```ts
 * await ownedSizeViolation(['/repo/A.lean']); // null, or 'owned file /repo/A.lean is 3.0 GiB, …'
 * ```
 */
export async function ownedSizeViolation(
  owned: readonly string[],
  limit: number = OWNED_FILE_LIMIT_BYTES,
): Promise<string | null> {
  for (const p of owned) {
    const st = await lstat(p).catch(() => null);
    const big = st?.isFile() ? oversizeViolation(p, st.size, limit) : null;
    if (big !== null) return big;
  }
  return null;
}

const READ_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/**
 * Reads a regular file through one descriptor (no link followed at the path), at most `limit`
 * bytes: null when it is not a regular file (or vanished), `{ over: size }` when it is (or grew)
 * over the limit — never more than `limit + 1` bytes are held.
 */
async function readBounded(
  path: string,
  limit: number,
): Promise<{ bytes: Buffer; mode: number } | { over: number } | null> {
  const fh = await open(path, READ_FLAGS).catch(() => null);
  if (fh === null) return null;
  try {
    const st = await fh.stat();
    if (!st.isFile()) return null;
    if (st.size > limit) return { over: st.size };
    let buf = Buffer.allocUnsafe(Math.min(limit + 1, st.size + 1));
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        // full: over the limit, or the file grew while read (a larger buffer, still bounded)
        if (n > limit) return { over: n };
        const more = Buffer.allocUnsafe(Math.min(limit + 1, buf.length * 2));
        buf.copy(more, 0, 0, n);
        buf = more;
      }
      const { bytesRead } = await fh.read(buf, n, buf.length - n, n);
      if (bytesRead === 0) return { bytes: buf.subarray(0, n), mode: st.mode & 0o777 };
      n += bytesRead;
    }
  } finally {
    await fh.close().catch(() => {});
  }
}

/**
 * Reads every owned path (absolute) without following a symbolic link at the path itself, each
 * through one descriptor and never more than `limit` bytes of it (default
 * {@link OWNED_FILE_LIMIT_BYTES}).
 *
 * @example
 * ```ts
 * const before = await captureOwned(['/repo/A.lean']);
 * ```
 * @throws HandoffError `custody_violation` (`details.path`, `details.size`) for an owned file over
 * the limit: nothing of it is read whole.
 */
export async function captureOwned(
  owned: readonly string[],
  limit: number = OWNED_FILE_LIMIT_BYTES,
): Promise<OwnedCapture> {
  const out = new Map<string, { bytes: Buffer | null; mode: number }>();
  for (const p of owned) {
    const st = await lstat(p).catch(() => null);
    const got = st === null || !st.isFile() ? null : await readBounded(p, limit);
    if (got === null) {
      out.set(p, { bytes: null, mode: 0o644 });
      continue;
    }
    if ('over' in got) {
      throw new HandoffError('custody_violation', oversizeViolation(p, got.over, limit) ?? p, {
        details: { path: p, size: got.over, limit },
      });
    }
    out.set(p, got);
  }
  return out;
}

/**
 * The sha256 (hex) of captured bytes; null for an absent file.
 *
 * @example
 * ```ts
 * capturedSha(before.get('/repo/A.lean')?.bytes ?? null);
 * ```
 */
export function capturedSha(bytes: Buffer | null): string | null {
  return bytes === null ? null : sha256Hex(bytes);
}

async function folderSwapped(p: string): Promise<boolean> {
  const dir = dirname(p);
  const real = await realpath(dir).catch(() => null);
  return real !== dir;
}

/**
 * Null when every owned path is a regular file (or absent) at its own location and within
 * {@link OWNED_FILE_LIMIT_BYTES}; else the violation: a path turned into a symbolic link, a
 * directory or a special file, a folder on its way swapped for a link, or a file grown over the
 * limit (by its size, before anything reads it). Nothing is read through a link.
 *
 * @example
 * ```ts
 * await ownedTypeViolation(['/repo/A.lean']); // 'owned file /repo/A.lean was replaced by a symbolic link to /etc/passwd'
 * ```
 */
export async function ownedTypeViolation(owned: readonly string[]): Promise<string | null> {
  for (const p of owned) {
    if (await folderSwapped(p))
      return `a folder on the path of owned file ${p} was replaced by a symbolic link`;
    const st = await lstat(p).catch(() => null);
    if (st === null) continue;
    if (st.isFile()) {
      const big = oversizeViolation(p, st.size);
      if (big !== null) return big;
      continue;
    }
    if (st.isSymbolicLink()) {
      const to = await readlink(p).catch(() => '?');
      return `owned file ${p} was replaced by a symbolic link to ${to}`;
    }
    return `owned file ${p} is no longer a regular file (${st.isDirectory() ? 'a directory' : 'a special file'})`;
  }
  return null;
}

const fsl = nodeFsLayer();

/**
 * The temp name a restore of `file` writes beside it before renaming it over `file`.
 *
 * @example
 * ```ts
 * restoreTmpPath('/repo/A.lean'); // '/repo/.A.lean.handoff-restore-3f9c0a7e'
 * ```
 */
export function restoreTmpPath(file: string): string {
  return join(dirname(file), `.${basename(file)}.handoff-restore-${randomHex(8)}`);
}

/**
 * Puts `bytes` back at `file` with exactly `mode`: src/durable's `publishFile` (an exclusive temp
 * beside it, renamed over it, so a link planted at the path is replaced, never written through).
 * Not fsync'd: a restore undoes a worker's change for the next attempt; it is not a commit.
 *
 * @example
 * ```ts
 * restoreFile('/repo/A.lean', before, 0o644);
 * ```
 * @throws StepFailure (`restore_<step>`); the temp file is removed.
 */
export function restoreFile(file: string, bytes: Uint8Array, mode: number): void {
  publishFile(fsl, file, bytes, {
    label: 'restore',
    tmpPath: restoreTmpPath(file),
    mode,
    exactMode: true,
    sync: 'none',
  });
}

/**
 * Puts every owned path back to its captured bytes (or removes it when it was absent): a new file
 * is written beside it and renamed over it, so a link planted at the path is replaced, never
 * written through. A path whose folder was swapped for a link is not touched. Resolves to the
 * paths it restored and the ones it could not.
 *
 * @example
 * ```ts
 * await restoreOwned(before); // { restored: ['/repo/A.lean'], failed: [] }
 * ```
 */
export async function restoreOwned(capture: OwnedCapture): Promise<{ restored: string[]; failed: string[] }> {
  const restored: string[] = [];
  const failed: string[] = [];
  for (const [p, want] of capture) {
    try {
      if (await folderSwapped(p)) {
        failed.push(p);
        continue;
      }
      const st = await lstat(p).catch(() => null);
      if (want.bytes === null) {
        if (st !== null) {
          await rm(p, { recursive: true, force: true });
          restored.push(p);
        }
        continue;
      }
      // a file of another size differs: it is not read (it may be gigabytes)
      if (st?.isFile() && (st.mode & 0o777) === want.mode && st.size === want.bytes.length) {
        const now = await readBounded(p, want.bytes.length);
        if (now !== null && 'bytes' in now && now.bytes.equals(want.bytes)) continue;
      }
      if (st?.isDirectory()) await rm(p, { recursive: true, force: true });
      restoreFile(p, want.bytes, want.mode);
      restored.push(p);
    } catch {
      failed.push(p);
    }
  }
  return { restored, failed };
}
