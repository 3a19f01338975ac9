/**
 * "Did you mean …?" (pure): the closest known name to a mistyped one, by edit distance (optimal
 * string alignment: insertions, deletions, substitutions and swaps of two neighbours each cost 1).
 * Used by the CLI's usage errors (`unknown option --targt (did you mean --target?)`).
 */

/**
 * The edit distance between two strings: insertions, deletions, substitutions and transpositions
 * of adjacent characters each cost 1 (optimal string alignment).
 *
 * @example
 * ```ts
 * editDistance('targt', 'target'); // 1
 * editDistance('taregt', 'target'); // 1 (a swap)
 * editDistance('', 'abc'); // 3
 * ```
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++) {
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const up = d[i - 1] as number[];
      let best = Math.min((up[j] as number) + 1, (row[j - 1] as number) + 1, (up[j - 1] as number) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      }
      row[j] = best;
    }
  }
  return (d[a.length] as number[])[b.length] as number;
}

/**
 * The known name closest to `given`, or null when none is close enough: at most 2 edits, and
 * fewer than half of `given`'s length (so `-x` suggests nothing). Ties go to the name listed first.
 * Case is ignored.
 *
 * @example
 * ```ts
 * suggestName('targt', ['scope', 'target', 'mode']); // 'target'
 * suggestName('verbose', ['target', 'scope']); // null
 * ```
 */
export function suggestName(given: string, known: readonly string[]): string | null {
  const g = given.toLowerCase();
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const k of known) {
    const dist = editDistance(g, k.toLowerCase());
    if (dist < bestDistance) {
      best = k;
      bestDistance = dist;
    }
  }
  if (best === null || bestDistance > 2 || bestDistance * 2 >= g.length) return null;
  return best;
}

/**
 * The parenthesised hint after an unknown name: ` (did you mean X?)` when one is close, else
 * ` (known: a, b, …)` listing them all.
 *
 * @example
 * ```ts
 * didYouMean('apend', ['create', 'append']); // ' (did you mean append?)'
 * didYouMean('zzz', ['create', 'append']); // ' (known: create, append)'
 * ```
 */
export function didYouMean(given: string, known: readonly string[]): string {
  const near = suggestName(given, known);
  return near === null ? ` (known: ${known.join(', ')})` : ` (did you mean ${near}?)`;
}
