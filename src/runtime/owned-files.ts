/**
 * The owned files' bytes across a dispatch (layer 3, effects): captured right before the worker
 * runs, checked for a file-type or location swap after it returns, and restored exactly when the
 * runtime refuses what the worker did (custody or fence violation, protocol or operational error),
 * so the next attempt starts from the pre-dispatch bytes and unverified bytes never linger.
 */
import { createHash } from 'node:crypto';
import { chmod, lstat, readFile, readlink, realpath, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { randomHex } from '../ids/index.js';

/** The bytes (null: absent) and permission bits of each owned file at one moment. */
export type OwnedCapture = ReadonlyMap<string, { readonly bytes: Buffer | null; readonly mode: number }>;

/**
 * Reads every owned path (absolute) without following a symbolic link at the path itself.
 *
 * @example
 * ```ts
 * const before = await captureOwned(['/repo/A.lean']);
 * ```
 */
export async function captureOwned(owned: readonly string[]): Promise<OwnedCapture> {
  const out = new Map<string, { bytes: Buffer | null; mode: number }>();
  for (const p of owned) {
    const st = await lstat(p).catch(() => null);
    if (st === null || !st.isFile()) {
      out.set(p, { bytes: null, mode: 0o644 });
      continue;
    }
    out.set(p, { bytes: await readFile(p), mode: st.mode & 0o777 });
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
  return bytes === null ? null : createHash('sha256').update(bytes).digest('hex');
}

async function folderSwapped(p: string): Promise<boolean> {
  const dir = dirname(p);
  const real = await realpath(dir).catch(() => null);
  return real !== dir;
}

/**
 * Null when every owned path is a regular file (or absent) at its own location; else the
 * violation: a path turned into a symbolic link, a directory or a special file, or a folder on its
 * way swapped for a link. Nothing is read through a link.
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
    if (st === null || st.isFile()) continue;
    if (st.isSymbolicLink()) {
      const to = await readlink(p).catch(() => '?');
      return `owned file ${p} was replaced by a symbolic link to ${to}`;
    }
    return `owned file ${p} is no longer a regular file (${st.isDirectory() ? 'a directory' : 'a special file'})`;
  }
  return null;
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
      if (st?.isFile() && (st.mode & 0o777) === want.mode) {
        const now = await readFile(p);
        if (now.equals(want.bytes)) continue;
      }
      if (st?.isDirectory()) await rm(p, { recursive: true, force: true });
      const tmp = join(dirname(p), `.${basename(p)}.handoff-restore-${randomHex(8)}`);
      await writeFile(tmp, want.bytes, { flag: 'wx', mode: want.mode });
      await chmod(tmp, want.mode);
      await rename(tmp, p);
      restored.push(p);
    } catch {
      failed.push(p);
    }
  }
  return { restored, failed };
}
