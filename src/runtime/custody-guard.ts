/**
 * Custody enforcement around one dispatch (layer 3): the parent's baseline is checked for external
 * drift right before dispatch, a sentinel snapshot of every non-owned project file is taken, and
 * after the worker returns: files_changed ⊆ owned, the returned baseline matches the disk, every
 * entry it advanced was reported in files_changed, and no non-owned file changed.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { checkBaseline } from '../baseline/index.js';
import type { FileBaseline } from '../baseline/schema.js';
import type { Handoff } from '../contract/index.js';
import { listProjectFiles } from './marker-diagnostics.js';

/** A content snapshot of the project's non-owned files: relative path → sha256. */
export type Sentinel = ReadonlyMap<string, string>;

/**
 * Hashes every project file outside `owned` (absolute paths).
 *
 * @example
 * ```ts
 * const before = await sentinelSnapshot('/repo', ['/repo/A.lean']);
 * ```
 */
export async function sentinelSnapshot(root: string, owned: readonly string[]): Promise<Sentinel> {
  const skip = new Set(owned);
  const out = new Map<string, string>();
  for (const f of await listProjectFiles(root)) {
    const abs = resolve(root, f);
    if (skip.has(abs)) continue;
    const buf = await readFile(abs).catch(() => null);
    out.set(f, buf === null ? 'unreadable' : createHash('sha256').update(buf).digest('hex'));
  }
  return out;
}

/**
 * Paths whose content differs between two sentinels (changed, created or deleted), sorted.
 *
 * @example
 * ```ts
 * sentinelDiff(before, after); // ['notes/other.txt']
 * ```
 */
export function sentinelDiff(a: Sentinel, b: Sentinel): string[] {
  const keys = new Set([...a.keys(), ...b.keys()]);
  return [...keys].filter((k) => a.get(k) !== b.get(k)).sort();
}

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
 * The post-return custody checks; null when custody holds, else the violation.
 *
 * @example
 * ```ts
 * const v = await postReturnViolation(handoff, dispatchBaseline, owned, before, after);
 * ```
 */
export async function postReturnViolation(
  h: Handoff,
  dispatched: FileBaseline,
  owned: readonly string[],
  before: Sentinel,
  after: Sentinel,
): Promise<string | null> {
  const outside = h.files_changed.filter((f) => !owned.includes(f));
  if (outside.length > 0) return `files_changed names non-owned file(s): ${outside.join(', ')}`;
  const foreign = sentinelDiff(before, after);
  if (foreign.length > 0) return `the worker wrote outside its owned files: ${foreign.join(', ')}`;
  const b = h.file_baseline;
  if (b === null) return 'the handoff carries no file_baseline';
  const missing = owned.filter((p) => !b.files.some((f) => f.path === p));
  if (missing.length > 0) return `the returned baseline does not cover ${missing.join(', ')}`;
  for (const e of b.files) {
    if (!owned.includes(e.path)) continue;
    const prev = dispatched.files.find((f) => f.path === e.path);
    const advanced = prev === undefined || prev.sha256 !== e.sha256 || prev.exists !== e.exists;
    if (advanced && !h.files_changed.includes(e.path)) {
      return `the returned baseline advances ${e.path}, which files_changed does not report`;
    }
  }
  const c = await checkBaseline(b, { only: owned });
  if (c.result !== 'match') {
    const bad = c.entries.filter((e) => e.status !== 'unchanged').map((e) => `${e.path} (${e.status})`);
    return `owned file(s) differ from the returned baseline (drift nobody advanced): ${bad.join(', ')}`;
  }
  return null;
}
