/**
 * Declaration blocks of a Lean target file (layer 1, pure text): where a named declaration sits
 * (its line range, for the claim-scoped diagnostics of the inner cycle), which declaration holds
 * a line (a scope-backed stuck target), and the text without some declarations (a `rewrite`
 * redraft takes the previous draft out before the new one is assembled, with its
 * `-- draft: …` boundary marker).
 */

const HEAD =
  /^(?:@\[[^\]]*\]\s*)?(?:(?:private|protected|noncomputable|partial|unsafe|nonrec)\s+)*(?:theorem|lemma|def|abbrev|instance|structure|inductive|class|axiom|opaque)\s+([^\s:({[]+)/;
const BOUNDARY =
  /^(?:-- draft: |-- end draft: |\/--|namespace\b|section\b|end\b|open\b|import\b|example\b|#)/;

function nameOf(line: string): string | null {
  return HEAD.exec(line)?.[1] ?? null;
}

function isTopLevel(line: string): boolean {
  return nameOf(line) !== null || BOUNDARY.test(line);
}

/**
 * The 1-based line range `[start, end]` of declaration `name` (from its head line to the line
 * before the next top-level item, trailing blank lines excluded), or null when absent.
 *
 * @example
 * ```ts
 * declarationLines('theorem a : True := by\n  sorry\n\ntheorem b : True := trivial\n', 'a'); // { start: 1, end: 2 }
 * ```
 */
export function declarationLines(text: string, name: string): { start: number; end: number } | null {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => nameOf(l) === name);
  if (start < 0) return null;
  let end = start;
  for (let i = start + 1; i < lines.length; i++) {
    const l = lines[i] as string;
    if (isTopLevel(l)) break;
    if (l.trim() !== '') end = i;
  }
  return { start: start + 1, end: end + 1 };
}

/**
 * The name of the declaration whose block holds 1-based `line`, or null.
 *
 * @example
 * ```ts
 * declarationNameAt('theorem a : True := by\n  sorry\n', 2); // 'a'
 * ```
 */
export function declarationNameAt(text: string, line: number): string | null {
  const lines = text.split('\n');
  for (let i = Math.min(line, lines.length) - 1; i >= 0; i--) {
    const l = lines[i] as string;
    const n = nameOf(l);
    if (n !== null) {
      const r = declarationLines(text, n);
      return r !== null && r.start === i + 1 && line <= Math.max(r.end, r.start) ? n : null;
    }
    if (i < line - 1 && BOUNDARY.test(l)) return null;
  }
  return null;
}

/**
 * `text` without the blocks of `names` (and a `-- draft: …` marker or doc comment directly
 * above a removed block). Names not present change nothing.
 *
 * @example
 * ```ts
 * withoutDeclarations('-- draft: c1 (t)\ntheorem a : True := by\n  sorry\n', ['a']); // ''
 * ```
 */
export function withoutDeclarations(text: string, names: readonly string[]): string {
  let lines = text.split('\n');
  for (const name of names) {
    const r = declarationLines(lines.join('\n'), name);
    if (r === null) continue;
    let from = r.start - 1;
    // a doc comment block directly above
    if (from > 0 && /-\/\s*$/.test(lines[from - 1] ?? '')) {
      let k = from - 1;
      while (k >= 0 && !/^\/--/.test(lines[k] ?? '')) k--;
      if (k >= 0) from = k;
    }
    if (from > 0 && /^-- draft: /.test(lines[from - 1] ?? '')) from -= 1;
    let to = r.end; // exclusive
    // the block's end marker, when the declaration is the last of its drafted block
    let k = to;
    while (k < lines.length && (lines[k] ?? '').trim() === '') k++;
    if (/^-- end draft: /.test(lines[k] ?? '') && /^-- draft: /.test(lines[from - 1 < 0 ? 0 : from] ?? ''))
      to = k + 1;
    while (to < lines.length && (lines[to] ?? '').trim() === '' && to < lines.length - 1) to++;
    // the blank separator the assembler put before the block goes with it
    if (
      from > 0 &&
      (lines[from - 1] ?? '').trim() === '' &&
      (to >= lines.length - 1 || (lines[to] ?? '').trim() === '')
    )
      from -= 1;
    lines = [...lines.slice(0, from), ...lines.slice(to)];
  }
  return lines.join('\n');
}
