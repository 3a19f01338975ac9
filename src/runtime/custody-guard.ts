/**
 * Custody rules around one dispatch: the parent's baseline is checked for external drift right
 * before dispatch, and after the worker returns the handoff's claims are checked against the owned
 * files' bytes (files_changed ⊆ owned, the returned baseline matches the bytes, every entry it
 * advanced was reported in files_changed). What changed outside the owned files is the workspace
 * watch's concern (workspace-watch.ts); a file-type swap is owned-files.ts's.
 */
import { checkBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import type { Handoff } from '../contract/index.js';
import { capturedSha, type OwnedCapture } from './owned-files.js';

/**
 * Checks the parent's current baseline for the owned paths it covers; null when they match,
 * else a description of the drift.
 *
 * @example
 * ```ts
 * await preDispatchDrift(parentBaseline, ['/repo/A.lean']); // null
 * ```
 */
export async function preDispatchDrift(
  baseline: FileBaseline,
  owned: readonly string[],
): Promise<string | null> {
  const covered = owned.filter((p) => baseline.files.some((f) => f.path === p));
  if (covered.length === 0) return null;
  const c = await checkBaseline(baseline, { only: covered });
  if (c.result === 'match') return null;
  const bad = c.entries.filter((e) => e.status !== 'unchanged').map((e) => `${e.path} (${e.status})`);
  return `external drift on owned file(s) before dispatch: ${bad.join(', ')}`;
}

/**
 * The post-return custody checks over the owned files' bytes as read once after the worker
 * returned (pure): files_changed ⊆ owned, the returned baseline covers every owned file, names
 * each at its own path (a realpath elsewhere is a swap), advances only what files_changed reports,
 * and matches those bytes exactly. Null when custody holds, else the violation.
 *
 * @example
 * ```ts
 * const v = postReturnViolation(handoff, dispatchBaseline, owned, await captureOwned(owned));
 * ```
 */
export function postReturnViolation(
  h: Handoff,
  dispatched: FileBaseline,
  owned: readonly string[],
  disk: OwnedCapture,
): string | null {
  const outside = h.files_changed.filter((f) => !owned.includes(f));
  if (outside.length > 0) return `files_changed names non-owned file(s): ${outside.join(', ')}`;
  const b = h.file_baseline;
  if (b === null) return 'the handoff carries no file_baseline';
  const missing = owned.filter((p) => !b.files.some((f) => f.path === p));
  if (missing.length > 0) return `the returned baseline does not cover ${missing.join(', ')}`;
  for (const e of b.files) {
    if (!owned.includes(e.path)) continue;
    if (e.realpath !== e.path) return `the returned baseline resolves ${e.path} to ${e.realpath}`;
    const prev = dispatched.files.find((f) => f.path === e.path);
    const advanced = prev === undefined || prev.sha256 !== e.sha256 || prev.exists !== e.exists;
    if (advanced && !h.files_changed.includes(e.path)) {
      return `the returned baseline advances ${e.path}, which files_changed does not report`;
    }
  }
  const bad: string[] = [];
  for (const p of owned) {
    const e = b.files.find((f) => f.path === p);
    const sha = capturedSha(disk.get(p)?.bytes ?? null);
    if (e === undefined) continue;
    if (!e.exists && sha !== null) bad.push(`${p} (exists)`);
    else if (e.exists && sha === null) bad.push(`${p} (missing)`);
    else if (e.exists && sha !== e.sha256) bad.push(`${p} (modified)`);
  }
  if (bad.length > 0) {
    return `owned file(s) differ from the returned baseline (drift nobody advanced): ${bad.join(', ')}`;
  }
  return null;
}
