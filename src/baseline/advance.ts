/**
 * `advance`: after a successful write, re-record only the entries the writer intentionally changed
 * and carry every other entry forward unchanged, so external drift on untouched files is never
 * blessed. The result replaces the previous current baseline.
 */
import { DEFAULT_CONCURRENCY, mapLimit } from './map-limit.js';
import { observePath } from './observe.js';
import { requireCwd, resolveBaselineSelectors } from './paths.js';
import { baselineEntryOf } from './record.js';
import { inputRefusal, operationalRefusal } from './refusal.js';
import { requireBaseline } from './require-baseline.js';
import { FILE_BASELINE_SCHEMA, type FileBaseline } from './schema.js';

/** Options of {@link advanceBaseline}. */
export interface AdvanceBaselineOptions {
  /** Absolute directory against which relative paths resolve (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * Returns a new baseline in which only the entries named by `changed` (exact stored path, else
 * absolute against `cwd`) are re-recorded; all other entries are copied unchanged, in order.
 *
 * @example
 * ```ts
 * current = await advanceBaseline(current, ['/repo/A.lean']);
 * ```
 * @throws HandoffError `usage` (no changed path), `invalid_record` (malformed baseline),
 * `unknown_path` (a path not in the baseline: new targets need a fresh record),
 * `duplicate_path` (a re-recorded entry now resolves to another entry's realpath) — exit 2;
 * `io_error` (exit 4) when a changed target exists but is unreadable or not a regular file.
 */
export async function advanceBaseline(
  baseline: FileBaseline,
  changed: readonly string[],
  options: AdvanceBaselineOptions = {},
): Promise<FileBaseline> {
  const valid = requireBaseline(baseline);
  const cwd = requireCwd(options.cwd);
  if (!Array.isArray(changed) || changed.length === 0) {
    throw inputRefusal('usage', 'advance needs at least one changed path');
  }
  const r = resolveBaselineSelectors(valid, changed, cwd);
  if (r.unknown.length > 0) {
    throw inputRefusal(
      'unknown_path',
      `advance path(s) not in the baseline: ${JSON.stringify(r.unknown)}; new targets need a fresh record, not advancement`,
      { unknown: r.unknown },
    );
  }
  const observed = await mapLimit(r.selected, DEFAULT_CONCURRENCY, observePath);
  const fresh = new Map(
    r.selected.map((p, i) => {
      const o = observed[i];
      if (o === undefined || o.kind === 'error') {
        const detail = o?.kind === 'error' ? o.detail : `${p}: not observed`;
        throw operationalRefusal(detail, { path: p, detail });
      }
      return [p, baselineEntryOf(p, o)] as const;
    }),
  );
  const files = valid.files.map((e) => fresh.get(e.path) ?? { ...e });
  const seen = new Map<string, string>();
  for (const f of files) {
    const other = seen.get(f.realpath);
    if (other !== undefined) {
      throw inputRefusal(
        'duplicate_path',
        `after advance ${other} and ${f.path} both resolve to ${f.realpath}; the chain needs one entry per target`,
        { realpath: f.realpath, paths: [other, f.path] },
      );
    }
    seen.set(f.realpath, f.path);
  }
  // unknown root keys of the input record are kept (never dropped); entries not re-recorded are
  // carried forward with their own unknown keys
  return { ...valid, schema: FILE_BASELINE_SCHEMA, files };
}
