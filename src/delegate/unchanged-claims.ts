/**
 * The `unchanged_claim` rule (layer 1, pure): `files_changed` names a file whose bytes are the
 * ones it held before the worker ran. `delegate` has no verifier to notice an empty claim (the
 * cycle's diagnostics would), so a claim that nothing backs is refused by custody, by name.
 */
import type { OwnedCapture } from '../runtime/owned-files.js';
import type { DelegateViolation } from './violations.js';

/** Same bytes (both absent counts as the same). */
function sameBytes(a: Buffer | null | undefined, b: Buffer | null | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (a === null || b === null) return a === b;
  return a.equals(b);
}

/**
 * The files of `filesChanged` (deduplicated, in order) whose bytes after the worker equal their
 * bytes before it; a file not in either capture is not judged here (custody's `baseline` check
 * refuses a non-owned entry).
 *
 * @example
 * ```ts
 * unchangedClaims(['/r/a.ts'], before, after); // ['/r/a.ts'] when a.ts holds its pre-dispatch bytes
 * ```
 */
export function unchangedClaims(
  filesChanged: readonly string[],
  before: OwnedCapture,
  after: OwnedCapture,
): string[] {
  return [...new Set(filesChanged)].filter((f) => {
    if (!before.has(f) || !after.has(f)) return false;
    return sameBytes(before.get(f)?.bytes, after.get(f)?.bytes);
  });
}

/**
 * The `unchanged_claim` finding, or null when every `files_changed` entry's bytes changed.
 *
 * @example
 * ```ts
 * unchangedClaimViolation(['/r/a.ts'], before, after)?.detail;
 * // 'files_changed names file(s) whose bytes did not change: /r/a.ts; fix: list only the files you edited'
 * ```
 */
export function unchangedClaimViolation(
  filesChanged: readonly string[],
  before: OwnedCapture,
  after: OwnedCapture,
): DelegateViolation | null {
  const same = unchangedClaims(filesChanged, before, after);
  if (same.length === 0) return null;
  return {
    check: 'unchanged_claim',
    detail: `files_changed names file(s) whose bytes did not change: ${same.join(', ')}; fix: list only the files you edited`,
  };
}
