/**
 * The statement fence over whole snapshots (pure): which files' headers a worker changed.
 */
import { compareHeaders } from './compare.js';
import { compareProofWork } from './proof-work.js';
import type { HeaderSnapshot } from './snapshot.js';
import type { FenceViolation } from './violation.js';

/**
 * The violations found in one file.
 *
 * @example
 * ```ts
 * const r: FileFenceViolations = { file: '/p/A.lean', violations: [] };
 * ```
 */
export interface FileFenceViolations {
  readonly file: string;
  readonly violations: readonly FenceViolation[];
}

/**
 * Compares two snapshots of the same files; returns only the files with violations, sorted by
 * path (code-point order), so `[]` means the fence holds. Per file in `before`:
 * - null (no extractor) before or after: not fenced, skipped;
 * - failed before (`ok: false`): no baseline to compare — skipped here; check
 *   {@link extractionFailures} on the before snapshot and refuse to dispatch instead;
 * - succeeded before, failed after: one `unparseable` violation carrying the error;
 * - both succeeded: {@link compareHeaders};
 * - missing from `after`: compared with an empty header list (everything deleted) — the caller
 *   must snapshot the same files twice.
 * Files only in `after` are ignored (the fence covers what was snapshotted before dispatch).
 *
 * Where both extractions carry `commands` (the Lean extractor's), the proof-work rule applies too
 * ({@link compareProofWork}): only theorems, lemmas, examples and proof text may be added, other
 * declarations and commands only with the grant of their class in `grants` (the dispatch's
 * `capabilities`, e.g. `fence:new-definitions`; default none).
 *
 * @example
 * ```ts
 * for (const { file, violations } of fenceCheck(before, after, dispatch.capabilities))
 *   for (const v of violations) reasons.push(describeViolation(relative(root, file), v));
 * ```
 */
export function fenceCheck(
  before: HeaderSnapshot,
  after: HeaderSnapshot,
  grants: readonly string[] = [],
): FileFenceViolations[] {
  const out: FileFenceViolations[] = [];
  for (const [file, b] of before) {
    if (b === null || !b.ok) continue;
    const a = after.has(file) ? after.get(file) : { ok: true as const, headers: [] };
    if (a === null || a === undefined) continue;
    // an absent file reads as no headers and no commands, on either side
    const bc = b.commands ?? (a.ok && a.commands !== undefined && b.headers.length === 0 ? [] : undefined);
    const ac = a.ok
      ? (a.commands ?? (bc !== undefined && a.headers.length === 0 ? [] : undefined))
      : undefined;
    const violations = a.ok
      ? [
          ...compareHeaders(b.headers, a.headers),
          ...(bc !== undefined && ac !== undefined
            ? compareProofWork(
                { headers: b.headers, commands: bc },
                { headers: a.headers, commands: ac },
                grants,
              )
            : []),
        ].sort((x, y) => x.line - y.line)
      : [
          {
            declaration: '',
            kind: '',
            change: 'unparseable' as const,
            before: null,
            after: null,
            line: 0,
            detail: a.error,
          },
        ];
    if (violations.length > 0) out.push({ file, violations });
  }
  return out.sort((x, y) => (x.file < y.file ? -1 : x.file > y.file ? 1 : 0));
}

/**
 * The files of a snapshot whose headers could not be extracted, sorted by path. Before dispatch,
 * a non-empty list means those files cannot be fenced.
 *
 * @example
 * ```ts
 * extractionFailures(new Map([['/p/A.lean', { ok: false, error: 'unterminated block comment opened at line 3' }]]));
 * // [{ file: '/p/A.lean', error: 'unterminated block comment opened at line 3' }]
 * ```
 */
export function extractionFailures(snapshot: HeaderSnapshot): { file: string; error: string }[] {
  const out: { file: string; error: string }[] = [];
  for (const [file, x] of snapshot) if (x !== null && !x.ok) out.push({ file, error: x.error });
  return out.sort((x, y) => (x.file < y.file ? -1 : x.file > y.file ? 1 : 0));
}
