/**
 * Review timing and scope (layer 1, pure): when a non-stuck review is due, and the scope a review
 * gets (a single sorry or the current file — never the project).
 */
import type { CycleContext, TargetInfo } from './types.js';

/**
 * Whether a (non-stuck) review is due this cycle: `checkpoint` → after a checkpoint commit;
 * N → every N cycles; `never` → only stuck reviews.
 *
 * @example
 * ```ts
 * reviewDue('checkpoint', 3, true); // true
 * reviewDue(2, 3, true);            // false (cycle 3 is not a multiple of 2)
 * ```
 */
export function reviewDue(
  every: CycleContext['options']['reviewEvery'],
  cycle: number,
  committed: boolean,
): boolean {
  if (every === 'never') return false;
  if (every === 'checkpoint') return committed;
  return cycle % every === 0;
}

/**
 * The review scope matching the current work: a single sorry → `sorry` with its line; otherwise
 * the current file. Never `project` (a project review is never triggered automatically).
 *
 * @example
 * ```ts
 * reviewScopeFor('sorry', target); // { scope: 'sorry', file: 'A.lean', line: 4 }
 * ```
 */
export function reviewScopeFor(
  runScope: CycleContext['options']['scope'],
  t: TargetInfo | null,
): { scope: 'sorry' | 'file'; file: string | null; line: number | null } {
  if (runScope === 'sorry' && t !== null) return { scope: 'sorry', file: t.file, line: t.line };
  return { scope: 'file', file: t?.file ?? null, line: null };
}
