/**
 * The pure decision rules of custody checking: how one stored entry compares with what is on disk
 * now, and what a set of statuses means overall. No I/O — {@link observePath} supplies the
 * observation.
 */
import type { BaselineCheckEntry, BaselineCheckResult, BaselineEntryStatus } from './check-schema.js';
import type { BaselineEntry } from './schema.js';

/**
 * What is at a path now. `present`: a regular file (through any symlinks) with the sha256 and size
 * of its exact bytes; `absent`: nothing there, or a dangling symlink; `error`: something exists but
 * cannot be baselined (unreadable, not a regular file, stat failed).
 */
export type FileObservation =
  | { readonly kind: 'present'; readonly realpath: string; readonly sha256: string; readonly size: number }
  | { readonly kind: 'absent'; readonly realpath: string }
  | { readonly kind: 'error'; readonly detail: string };

/** Status of one entry with an optional human-readable detail. */
export interface EntryClassification {
  readonly status: BaselineEntryStatus;
  readonly detail?: string;
}

/**
 * Classifies one stored entry against the current observation, in the order of the shipped
 * reference (lean4-skills v4.6.2 onward): `error` → `deleted` → `retargeted` (realpath changed,
 * even with identical bytes, and even when the path was and is absent) → `created` → absent/absent
 * `unchanged` → `modified` (sha256 or size differ) → `unchanged`.
 *
 * Retarget comes before create and before the absent/absent short-circuit on purpose: a dangling
 * symlink re-pointed from one missing target to another (or an absent path that became a link
 * elsewhere) would otherwise report `unchanged`/`created`, and a later create would write to a
 * location the baseline never covered. Deletion stays first, so removing a link is `deleted`.
 *
 * @example
 * ```ts
 * classifyEntry(
 *   { path: '/r/a', realpath: '/r/x', exists: true, sha256: h, size: 3 },
 *   { kind: 'present', realpath: '/r/y', sha256: h, size: 3 },
 * ); // { status: 'retargeted', detail: 'realpath /r/x -> /r/y' }
 * ```
 */
export function classifyEntry(stored: BaselineEntry, now: FileObservation): EntryClassification {
  if (now.kind === 'error') return { status: 'error', detail: now.detail };
  const existsNow = now.kind === 'present';
  if (stored.exists && !existsNow) return { status: 'deleted' };
  if (now.realpath !== stored.realpath) {
    return { status: 'retargeted', detail: `realpath ${stored.realpath} -> ${now.realpath}` };
  }
  if (!stored.exists && existsNow) return { status: 'created' };
  if (!stored.exists || now.kind !== 'present') return { status: 'unchanged' };
  if (now.sha256 !== stored.sha256 || now.size !== stored.size) return { status: 'modified' };
  return { status: 'unchanged' };
}

/**
 * Builds the check entry of a stored path from its classification (the detail only when present).
 *
 * @example
 * ```ts
 * checkEntryOf('/r/a', { status: 'deleted' }); // { path: '/r/a', status: 'deleted' }
 * ```
 */
export function checkEntryOf(path: string, c: EntryClassification): BaselineCheckEntry {
  return c.detail === undefined ? { path, status: c.status } : { path, status: c.status, detail: c.detail };
}

/**
 * The overall result of a set of statuses: any `error` → `error` (even together with drift), any
 * other non-`unchanged` → `drift`, else `match`.
 *
 * @example
 * ```ts
 * summarizeBaselineStatuses(['unchanged', 'modified']); // 'drift'
 * summarizeBaselineStatuses(['modified', 'error']); // 'error'
 * ```
 */
export function summarizeBaselineStatuses(statuses: Iterable<BaselineEntryStatus>): BaselineCheckResult {
  let drift = false;
  for (const s of statuses) {
    if (s === 'error') return 'error';
    if (s !== 'unchanged') drift = true;
  }
  return drift ? 'drift' : 'match';
}

/** Exit codes of `handoff baseline check` by result. */
export const BASELINE_CHECK_EXIT_CODES: Readonly<Record<BaselineCheckResult, number>> = {
  match: 0,
  drift: 3,
  error: 4,
};

/**
 * The CLI exit code of a check result: 0 match, 3 drift, 4 error.
 *
 * @example
 * ```ts
 * baselineCheckExitCode('drift'); // 3
 * ```
 */
export function baselineCheckExitCode(result: BaselineCheckResult): number {
  return BASELINE_CHECK_EXIT_CODES[result];
}
