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
 * Scans `text` (the content of `file`, relative to the project root) for `marker` (one word or a
 * list: a domain profile's target markers) as a whole word. Each line holding a marker is one
 * target `file:line` (1-based); with `errorComment` (default `--`, Lean's comment), a line
 * containing `<errorComment> error: TEXT` reports the error `file:line:TEXT`; `null` reports none.
 *
 * @example
 * ```ts
 * scanMarkers('A.lean', 'theorem t : 1 = 1 := sorry\n', 'sorry').targets[0]?.id; // 'A.lean:1'
 * scanMarkers('a.js', 'return 0; // TODO(agent)\n', ['TODO(agent)'], null).targets.length; // 1
 * ```
 */
export function scanMarkers(
  file: string,
  text: string,
  marker: string | readonly string[] = 'sorry',
  errorComment: string | null = '--',
): MarkerScan {
  const words = typeof marker === 'string' ? [marker] : marker;
  const re = new RegExp(`(^|[^A-Za-z0-9_])(?:${words.map(escapeRegex).join('|')})($|[^A-Za-z0-9_])`);
  const errRe = errorComment === null ? null : new RegExp(`${escapeRegex(errorComment)}\\s*error:\\s*(.+)$`);
  const targets: TargetInfo[] = [];
  const errors: string[] = [];
  text.split(/\r?\n/).forEach((line, i) => {
    if (re.test(line)) targets.push({ id: `${file}:${i + 1}`, file, line: i + 1, goal: line.trim() });
    const err = errRe?.exec(line);
    if (err) errors.push(`${file}:${i + 1}:${(err[1] ?? '').trim()}`);
  });
  return { targets, errors };
}
