/**
 * `record`: the file-baseline/v1 record of a list of paths, taken immediately before dispatch.
 */
import type { FileObservation } from './classify.js';
import { DEFAULT_CONCURRENCY, mapLimit } from './map-limit.js';
import { observePath } from './observe.js';
import { absoluteLexical, requireCwd } from './paths.js';
import { inputRefusal, operationalRefusal } from './refusal.js';
import { type BaselineEntry, FILE_BASELINE_SCHEMA, type FileBaseline } from './schema.js';

/** Options of {@link recordBaseline}. */
export interface RecordBaselineOptions {
  /** Absolute directory against which relative paths resolve (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * The baseline entry of an observed path (`error` observations have none).
 *
 * @example
 * ```ts
 * baselineEntryOf('/r/a', { kind: 'absent', realpath: '/r/a' });
 * // { path: '/r/a', realpath: '/r/a', exists: false, sha256: null, size: null }
 * ```
 */
export function baselineEntryOf(path: string, o: Exclude<FileObservation, { kind: 'error' }>): BaselineEntry {
  return o.kind === 'present'
    ? { path, realpath: o.realpath, exists: true, sha256: o.sha256, size: o.size }
    : { path, realpath: o.realpath, exists: false, sha256: null, size: null };
}

/**
 * Records a file-baseline/v1 record of `paths`: for each, the absolute lexical path (relative
 * paths resolve against `cwd`), the resolved realpath, existence, and the sha256 and size of the
 * exact bytes. Absent files and dangling symlinks are recorded as not existing; dirty files are
 * valid baselines. Entries keep the argument order.
 *
 * @example
 * ```ts
 * const baseline = await recordBaseline(['src/A.lean', '/repo/B.lean'], { cwd: '/repo' });
 * ```
 * @throws HandoffError `usage` (empty list, empty/NUL path, relative cwd), `duplicate_path` (the
 * same path twice, or two paths resolving to one realpath) — all exit 2; `io_error` (exit 4) when a
 * target exists but is unreadable or not a regular file.
 */
export async function recordBaseline(
  paths: readonly string[],
  options: RecordBaselineOptions = {},
): Promise<FileBaseline> {
  const cwd = requireCwd(options.cwd);
  if (!Array.isArray(paths) || paths.length === 0) {
    throw inputRefusal('usage', 'record needs at least one path: an empty baseline can gate nothing');
  }
  const abs = paths.map((p) => absoluteLexical(p, cwd));
  const byPath = new Map<string, string>();
  abs.forEach((p, i) => {
    const earlier = byPath.get(p);
    if (earlier !== undefined) {
      throw inputRefusal(
        'duplicate_path',
        `duplicate path: ${JSON.stringify(earlier)} and ${JSON.stringify(paths[i])} are both ${p}`,
        {
          path: p,
          arguments: [earlier, paths[i]],
        },
      );
    }
    byPath.set(p, paths[i] as string);
  });
  const observed = await mapLimit(abs, DEFAULT_CONCURRENCY, observePath);
  const byReal = new Map<string, string>();
  observed.forEach((o, i) => {
    if (o.kind === 'error') return;
    const p = abs[i] as string;
    const earlier = byReal.get(o.realpath);
    if (earlier !== undefined) {
      throw inputRefusal(
        'duplicate_path',
        `duplicate canonical path: ${earlier} and ${p} both resolve to ${o.realpath}; a single-writer chain needs one entry per target`,
        { realpath: o.realpath, paths: [earlier, p] },
      );
    }
    byReal.set(o.realpath, p);
  });
  const files = observed.map((o, i) => {
    const p = abs[i] as string;
    if (o.kind === 'error') throw operationalRefusal(o.detail, { path: p, detail: o.detail });
    return baselineEntryOf(p, o);
  });
  return { schema: FILE_BASELINE_SCHEMA, files };
}
