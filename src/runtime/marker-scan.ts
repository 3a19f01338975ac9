/**
 * The "marker" domain's pure scanner: finds a marker word (default `sorry`) per line of a text
 * and reports `file:line` targets, plus `-- error: …` lines as diagnostics errors.
 */
import type { TargetInfo } from '../cycle/types.js';

/** The result of scanning one file. */
export interface MarkerScan {
  readonly targets: readonly TargetInfo[];
  readonly errors: readonly string[];
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Scans `text` (the content of `file`, relative to the project root) for `marker` as a whole word.
 * Each line holding the marker is one target `file:line` (1-based); a line containing
 * `-- error: TEXT` reports the error `file:line:TEXT`.
 *
 * @example
 * ```ts
 * scanMarkers('A.lean', 'theorem t : 1 = 1 := sorry\n', 'sorry').targets[0]?.id; // 'A.lean:1'
 * ```
 */
export function scanMarkers(file: string, text: string, marker = 'sorry'): MarkerScan {
  const re = new RegExp(`(^|[^A-Za-z0-9_])${escapeRegex(marker)}($|[^A-Za-z0-9_])`);
  const targets: TargetInfo[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (re.test(line)) targets.push({ id: `${file}:${i + 1}`, file, line: i + 1, goal: line.trim() });
    const err = /--\s*error:\s*(.+)$/.exec(line);
    if (err) errors.push(`${file}:${i + 1}:${(err[1] ?? '').trim()}`);
  });
  return { targets, errors };
}
