/**
 * The "marker" domain's pure scanner: finds a domain profile's target markers in a file and
 * reports `file:line` targets, plus `-- error: …` lines as diagnostics errors. Lean source is
 * scanned token by token for the profile's escape hatches (src/profile/escape-hatches.ts: not in
 * comments or strings, each attributed to its declaration); other files line by line. Line
 * endings are normalized first (a bare CR is a line break), and bytes that are not text — or more
 * than the checks read — are unverifiable: reported as an error by name, never skipped.
 */
import type { TargetInfo } from '../cycle/types.js';
import { checkedText, normalizeLineEndings } from '../profile/checked-text.js';
import { markersByDeclaration } from '../profile/code-declarations.js';
import { type EscapeHatch, scanEscapeHatches } from '../profile/escape-hatches.js';

/** The result of scanning one file. */
export interface MarkerScan {
  readonly targets: readonly TargetInfo[];
  readonly errors: readonly string[];
  /** Each target's declaration (`theorem t`, `example #1`, `function add`, `(preamble)`), by target id. */
  readonly declarations?: ReadonlyMap<string, string>;
  /** Lean scans: every escape hatch found (several may share a target's line). */
  readonly hatches?: readonly EscapeHatch[];
  /** Lean scans: every declaration key of the file. */
  readonly declared?: readonly string[];
  /** Lean scans: the names of the file's `axiom` declarations. */
  readonly axioms?: readonly string[];
  /** Why the file could not be checked (`unverifiable: …`), when it could not. */
  readonly unverifiable?: string;
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Scans `text` (the content of `file`, relative to the project root) for `marker` (one word or a
 * list: a domain profile's target markers) as a whole word, line by line after normalizing line
 * endings (CRLF and bare CR are line breaks). Each line holding a marker is one target
 * `file:line` (1-based); with `errorComment` (default `--`, Lean's comment), a line containing
 * `<errorComment> error: TEXT` reports the error `file:line:TEXT`; `null` reports none.
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
  const targets: TargetInfo[] = [];
  const errors = errorLines(file, normalizeLineEndings(text), errorComment);
  normalizeLineEndings(text)
    .split('\n')
    .forEach((line, i) => {
      if (re.test(line)) targets.push({ id: `${file}:${i + 1}`, file, line: i + 1, goal: line.trim() });
    });
  return { targets, errors };
}

function errorLines(file: string, text: string, errorComment: string | null): string[] {
  if (errorComment === null) return [];
  const errRe = new RegExp(`${escapeRegex(errorComment)}\\s*error:\\s*(.+)$`);
  const errors: string[] = [];
  text.split('\n').forEach((line, i) => {
    const err = errRe.exec(line);
    if (err) errors.push(`${file}:${i + 1}:${(err[1] ?? '').trim()}`);
  });
  return errors;
}

/** How {@link scanSource} reads a file. */
export interface SourceScanOptions {
  /** The target markers (line scan) — for Lean, the escape hatches are the markers too. */
  readonly markers: readonly string[];
  readonly errorComment: string | null;
  /** The escape hatches (a token scan of Lean source), or null for the line scan. */
  readonly hatches: readonly string[] | null;
  /** The axioms of the run's first view of this file (a new one is a hatch); undefined: none count. */
  readonly knownAxioms?: ReadonlySet<string>;
  /** The most bytes read (default: the checks' limit). */
  readonly maxBytes?: number;
}

/**
 * Scans one file's bytes: unverifiable bytes (NUL, invalid UTF-8, over `maxBytes`) are one error
 * `file:0:unverifiable: …` and no target; with `hatches`, one target per line holding an escape
 * hatch (token-aware, with its declaration), an untokenizable text falling back to the line scan
 * of the hatches plus an `unverifiable` error; without, {@link scanMarkers} with each marked line
 * attributed to the code declaration that holds it (src/profile/code-declarations.ts).
 *
 * @example
 * ```ts
 * const s = scanSource('A.lean', Buffer.from('theorem t : True := by\n  -- sorry\n  admit\n'),
 *   { markers: ['sorry'], errorComment: '--', hatches: ['sorry', 'admit'] });
 * s.targets.map((t) => t.id);  // ['A.lean:3']
 * s.declarations?.get('A.lean:3'); // 'theorem t'
 * ```
 */
export function scanSource(file: string, bytes: Uint8Array, o: SourceScanOptions): MarkerScan {
  const read = checkedText(bytes, o.maxBytes);
  if (!read.ok) return { targets: [], errors: [`${file}:0:${read.reason}`], unverifiable: read.reason };
  if (o.hatches === null) {
    // code: each marked line is judged by the declaration that holds it (src/profile/code-declarations.ts)
    const lines = scanMarkers(file, read.text, o.markers, o.errorComment);
    return { ...lines, ...markersByDeclaration(file, read.text, lines.targets, o.markers) };
  }
  const words = [...new Set([...o.markers, ...o.hatches])];
  const scan = scanEscapeHatches(read.text, {
    words,
    ...(o.knownAxioms === undefined ? {} : { knownAxioms: o.knownAxioms }),
  });
  if (!scan.ok) {
    const lines = scanMarkers(file, read.text, words, o.errorComment);
    return { ...lines, errors: [...lines.errors, `${file}:0:${scan.reason}`], unverifiable: scan.reason };
  }
  const lines = read.text.split('\n');
  const targets: TargetInfo[] = [];
  const declarations = new Map<string, string>();
  for (const h of scan.hatches) {
    const id = `${file}:${h.line}`;
    if (declarations.has(id)) continue;
    declarations.set(id, h.declaration);
    targets.push({ id, file, line: h.line, goal: (lines[h.line - 1] ?? '').trim() });
  }
  return {
    targets,
    errors: errorLines(file, read.text, o.errorComment),
    declarations,
    hatches: scan.hatches,
    declared: scan.declarations.map((d) => d.key),
    axioms: scan.axioms,
  };
}
