/**
 * `check`: compares the file system now with a file-baseline/v1 record and returns a
 * file-baseline-check/v1 result (never throws for drift or unreadable targets — those are results).
 */
import { BASELINE_CHECK_SCHEMA, type BaselineCheck } from './check-schema.js';
import { checkEntryOf, classifyEntry, summarizeBaselineStatuses } from './classify.js';
import { DEFAULT_CONCURRENCY, mapLimit } from './map-limit.js';
import { observePath } from './observe.js';
import { requireCwd, resolveBaselineSelectors } from './paths.js';
import { inputRefusal } from './refusal.js';
import { requireBaseline } from './require-baseline.js';
import type { BaselineEntry, FileBaseline } from './schema.js';

/** Options of {@link checkBaseline}. */
export interface BaselineCheckOptions {
  /** Restrict the check to these entries (exact stored path, else absolute against `cwd`). Empty = all. */
  readonly only?: readonly string[];
  /** Absolute directory against which relative selectors resolve (default `process.cwd()`). */
  readonly cwd?: string;
}

/**
 * Checks every entry of `baseline` (or the `only` subset) against the file system. Each entry gets
 * a status (`error`, `deleted`, `retargeted`, `created`, `modified`, `unchanged`, decided in that
 * order by {@link classifyEntry}); entries skipped by `only` are listed in `unchecked`. The result
 * is `error` when any entry is `error` (even with drift), else `drift` when any entry changed, else
 * `match` — and only `match` authorizes a mutation.
 *
 * @example
 * ```ts
 * const c = await checkBaseline(baseline, { only: ['A.lean'], cwd: '/repo' });
 * if (c.result !== 'match') abort(c);
 * ```
 * @throws HandoffError `invalid_record` (malformed baseline) or `unknown_path` (a selector names
 * no entry), both exit 2.
 */
export async function checkBaseline(
  baseline: FileBaseline,
  options: BaselineCheckOptions = {},
): Promise<BaselineCheck> {
  const valid = requireBaseline(baseline);
  const cwd = requireCwd(options.cwd);
  let selected: readonly BaselineEntry[] = valid.files;
  let unchecked: string[] = [];
  if (options.only !== undefined && options.only.length > 0) {
    const r = resolveBaselineSelectors(valid, options.only, cwd);
    if (r.unknown.length > 0) {
      throw inputRefusal('unknown_path', `--only path(s) not in the baseline: ${JSON.stringify(r.unknown)}`, {
        unknown: r.unknown,
      });
    }
    const keep = new Set(r.selected);
    selected = valid.files.filter((f) => keep.has(f.path));
    unchecked = valid.files.filter((f) => !keep.has(f.path)).map((f) => f.path);
  }
  const entries = await mapLimit(selected, DEFAULT_CONCURRENCY, async (e) =>
    checkEntryOf(e.path, classifyEntry(e, await observePath(e.path))),
  );
  return {
    schema: BASELINE_CHECK_SCHEMA,
    result: summarizeBaselineStatuses(entries.map((e) => e.status)),
    entries,
    unchecked,
  };
}
