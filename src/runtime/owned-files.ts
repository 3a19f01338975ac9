/**
 * The owned files' bytes across a dispatch (layer 3, effects): captured right before the worker
 * runs, checked for a file-type or location swap after it returns, and restored exactly when the
 * runtime refuses what the worker did (custody or fence violation, protocol or operational error),
 * so the next attempt starts from the pre-dispatch bytes and unverified bytes never linger.
 */
import { lstat, readFile, readlink, realpath, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import { nodeFsLayer, publishFile } from '../durable/index.js';
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
  return bytes === null ? null : sha256Hex(bytes);
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
      if (st?.isFile() && (st.mode & 0o777) === want.mode) {
        const now = await readFile(p);
        if (now.equals(want.bytes)) continue;
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
