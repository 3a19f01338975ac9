/**
 * The content-bound drift report of a reuse (layer 1, pure): per intended owned file its current
 * existence, resolved path and content hash plus the prior merged baseline's check status (or
 * `uncovered` when no prior record covers it — never an implicit match). The approval token is
 * the digest of exactly that report, so an approval names particular bytes.
 */
import type { FileBaseline } from '../baseline/schema.js';
import { digestOf } from '../canonical/index.js';

/** One owned file in the drift report. */
export interface DriftEntry {
  readonly path: string;
  /** The merged prior baseline's status for this path, or `uncovered`. */
  readonly prior_status: string;
  readonly detail: string | null;
  /** Origin cite of the prior entry (null when uncovered). */
  readonly origin: string | null;
  readonly exists: boolean;
  readonly realpath: string;
  readonly sha256: string | null;
  readonly size: number | null;
}

/** The drift report. */
export interface DriftReport {
  readonly result: 'match' | 'drift' | 'uncovered' | 'error';
  readonly entries: readonly DriftEntry[];
  readonly uncovered: readonly string[];
  readonly current_baseline: FileBaseline;
  readonly approval_token: string;
}

/** Inputs of {@link buildDriftReport}. */
export interface DriftInputs {
  readonly prior_run: string;
  readonly prefix_digest: string;
  /** Normalized intended owned files (sorted). */
  readonly owned: readonly string[];
  /** Per covered path: the check status (and detail) against the merged prior entry, and its origin. */
  readonly checked: ReadonlyMap<string, { status: string; detail: string | null; origin: string }>;
  /** The current baseline recorded over exactly `owned`. */
  readonly current: FileBaseline;
}

/**
 * Builds the report and its approval token. Result order: error → drift → uncovered → match.
 *
 * @example
 * ```ts
 * const r = buildDriftReport({ prior_run, prefix_digest, owned, checked, current });
 * r.result; // 'uncovered' when an owned file has no prior entry
 * ```
 */
export function buildDriftReport(i: DriftInputs): DriftReport {
  const byPath = new Map(i.current.files.map((f) => [f.path, f]));
  const entries: DriftEntry[] = i.owned.map((p) => {
    const cur = byPath.get(p);
    const c = i.checked.get(p);
    return {
      path: p,
      prior_status: c?.status ?? 'uncovered',
      detail: c?.detail ?? null,
      origin: c?.origin ?? null,
      exists: cur?.exists ?? false,
      realpath: cur?.realpath ?? p,
      sha256: cur?.sha256 ?? null,
      size: cur?.size ?? null,
    };
  });
  const uncovered = entries.filter((e) => e.prior_status === 'uncovered').map((e) => e.path);
  const statuses = new Set(entries.map((e) => e.prior_status));
  const result = statuses.has('error')
    ? 'error'
    : [...statuses].some((s) => s !== 'unchanged' && s !== 'uncovered')
      ? 'drift'
      : uncovered.length > 0
        ? 'uncovered'
        : 'match';
  const approval_token = digestOf({
    prior_run: i.prior_run,
    prefix_digest: i.prefix_digest,
    owned_files: i.owned,
    result,
    entries,
    uncovered,
    current_baseline: i.current,
  });
  return { result, entries, uncovered, current_baseline: i.current, approval_token };
}

/**
 * True when two baselines record the same identity per path (realpath, existence, hash, size)
 * over the same path set.
 *
 * @example
 * ```ts
 * sameBaselineIdentity(dispatch.file_baseline, custody.fresh_baseline); // else baseline_mismatch
 * ```
 */
export function sameBaselineIdentity(a: FileBaseline, b: FileBaseline): boolean {
  if (a.files.length !== b.files.length) return false;
  const m = new Map(b.files.map((f) => [f.path, f]));
  return a.files.every((f) => {
    const g = m.get(f.path);
    return (
      g !== undefined &&
      g.realpath === f.realpath &&
      g.exists === f.exists &&
      g.sha256 === f.sha256 &&
      g.size === f.size
    );
  });
}
