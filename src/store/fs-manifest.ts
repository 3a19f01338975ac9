/**
 * Reading a run's manifest in the fs store: never through a symlink, validated (a run-contract or
 * chain manifest whose `run_id` names its directory), and cached by inode and size — manifests
 * are published once and never rewritten, so an unchanged inode and size is the same manifest.
 */
import { isUtf8 } from 'node:buffer';
import { errnoOf, type FsLayer, type FsStat, readFileNoFollow } from '../durable/index.js';
import type { StoredManifest } from './chain-schema.js';
import type { RunPaths } from './fs-layout.js';
import type { StoreCode } from './store.js';
import { validateStoredManifestText } from './validate-payload.js';

/**
 * One cached manifest: the inode and size it was read from.
 *
 * @example
 * ```ts
 * const e: ManifestCacheEntry = { ino: st.ino, size: st.size, manifest };
 * ```
 */
export interface ManifestCacheEntry {
  readonly ino: number;
  readonly size: number;
  readonly manifest: StoredManifest;
}

/**
 * Validated manifests of one store instance, by run id.
 *
 * @example
 * ```ts
 * const cache: ManifestCache = new Map();
 * ```
 */
export type ManifestCache = Map<string, ManifestCacheEntry>;

/**
 * Reads and validates a run's manifest (`incomplete_run` when missing, unreadable or invalid;
 * `containment` for a symlink; `integrity_failure` when its run id names another run).
 *
 * @example
 * ```ts
 * const m = readManifest(fsl, cache, runId, paths);
 * if (!m.ok) return refused(runId, m.code, m.detail);
 * ```
 */
export function readManifest(
  fsl: FsLayer,
  cache: ManifestCache,
  runId: string,
  p: RunPaths,
): { ok: true; manifest: StoredManifest } | { ok: false; code: StoreCode; detail: string } {
  let st: FsStat;
  try {
    st = fsl.lstat(p.manifest);
  } catch (e) {
    return errnoOf(e) === 'ENOENT'
      ? { ok: false, code: 'incomplete_run', detail: 'manifest.json is missing' }
      : { ok: false, code: 'incomplete_run', detail: `manifest.json unreadable: ${errnoOf(e)}` };
  }
  if (st.isSymbolicLink()) return { ok: false, code: 'containment', detail: 'manifest.json is a symlink' };
  const cached = cache.get(runId);
  if (cached !== undefined && cached.ino === st.ino && cached.size === st.size) {
    return { ok: true, manifest: cached.manifest };
  }
  let bytes: Buffer | null;
  try {
    bytes = readFileNoFollow(fsl, p.manifest);
  } catch (e) {
    return {
      ok: false,
      code: 'incomplete_run',
      detail: `manifest.json unreadable: ${errnoOf(e) || String(e)}`,
    };
  }
  if (bytes === null) return { ok: false, code: 'incomplete_run', detail: 'manifest.json is missing' };
  if (!isUtf8(bytes)) return { ok: false, code: 'incomplete_run', detail: 'manifest.json is not UTF-8' };
  let value: unknown;
  const text = bytes.toString('utf8');
  try {
    value = JSON.parse(text);
  } catch {
    return { ok: false, code: 'incomplete_run', detail: 'manifest.json is not JSON' };
  }
  const m = validateStoredManifestText(text, value);
  if (!m.ok) {
    return {
      ok: false,
      code: 'incomplete_run',
      detail: `manifest.json is invalid: ${m.issues
        .slice(0, 3)
        .map((i) => `${i.path || '(root)'}: ${i.message}`)
        .join('; ')}`,
    };
  }
  if (m.value.run_id !== runId) {
    return {
      ok: false,
      code: 'integrity_failure',
      detail: `manifest run_id ${m.value.run_id} does not match directory ${runId}`,
    };
  }
  cache.set(runId, { ino: st.ino, size: st.size, manifest: m.value });
  return { ok: true, manifest: m.value };
}
