/**
 * Declaration names in Lean text (layer 1, pure): what a block declares, and whether a target file
 * already declares a name — the collision check of seed 002 § File Assembly Contract that skips a
 * claim formalized in a prior run.
 *
 * The names come from the statement fence's Lean extractor (namespaces qualify them, comments and
 * strings are not read). When the target cannot be tokenized (an unterminated comment in a file
 * being edited), the check falls back to the seed's line-start rule: a line that starts with
 * optional attributes (`@[…]`), modifiers (`private`, `protected`, `noncomputable`, `partial`,
 * `nonrec`, `unsafe`) and one of `theorem`, `lemma`, `def`, `abbrev`, `instance`, `structure`,
 * `inductive`, `class`, `opaque`, `axiom` followed by the name.
 *
 * The same line-start rule (one regex, {@link declarationHeadName}) gives the declaration blocks of
 * a target file the synthesis loop works with: where a named declaration sits
 * ({@link declarationLines}, the claim-scoped diagnostics and the golf guard), which declaration
 * holds a line ({@link declarationNameAt}, a stuck target) and the text without some declarations
 * ({@link withoutDeclarations}, a `rewrite` redraft takes the previous draft out with its
 * `-- draft: …` boundary markers).
 */
import { extractLeanHeaders } from '../fence/index.js';

/**
 * The names a Lean text declares, in order (anonymous declarations and `variable`-like commands
 * left out), or the extractor's error. Never throws.
 *
 * @example
 * ```ts
 * declarationNames('namespace Foo\ntheorem t : True := trivial\nend Foo\ndef d := 1');
 * // { ok: true, names: ['Foo.t', 'd'] }
 * ```
 */
export function declarationNames(
  text: string,
): { readonly ok: true; readonly names: readonly string[] } | { readonly ok: false; readonly error: string } {
  const r = extractLeanHeaders(text);
  if (!r.ok) return r;
  return { ok: true, names: r.headers.filter((h) => !h.name.includes('@')).map((h) => h.name) };
}

const KINDS = 'theorem|lemma|def|abbrev|instance|structure|inductive|class|opaque|axiom';
const MODIFIERS = '(?:(?:private|protected|noncomputable|partial|nonrec|unsafe)[ \\t]+)*';
const ATTRIBUTES = '(?:@\\[[^\\]\\n]*\\][ \\t]*)*';
/** The line-start rule: attributes, modifiers, a declaration keyword, the name (group 1). */
const HEAD = new RegExp(`^[ \\t]*${ATTRIBUTES}${MODIFIERS}(?:${KINDS})[ \\t]+([^\\s:({[⦃]+)`);
/** Lines that end a declaration block (the next top-level item). */
const BOUNDARY =
  /^(?:-- draft: |-- end draft: |\/--|namespace\b|section\b|end\b|open\b|import\b|example\b|#)/;

/**
 * The name a line declares by the line-start rule (attributes, modifiers, keyword, name), or null.
 *
 * @example
 * ```ts
 * declarationHeadName('@[simp] private theorem t : True := trivial'); // 't'
 * declarationHeadName('-- theorem t : True'); // null
 * ```
 */
export function declarationHeadName(line: string): string | null {
  return HEAD.exec(line)?.[1] ?? null;
}

/**
 * The line-start rule alone: whether some line of `targetText` starts (after attributes and
 * modifiers) with a declaration keyword and `name`.
 *
 * @example
 * ```ts
 * declaredAtLineStart('@[simp] private theorem t : True := trivial', 't'); // true
 * declaredAtLineStart('-- theorem t : True', 't'); // false
 * ```
 */
export function declaredAtLineStart(targetText: string, name: string): boolean {
  if (name === '') return false;
  return targetText.split('\n').some((l) => declarationHeadName(l) === name);
}

/**
 * The names declared at line starts of `text`, in order (the line-start rule; a text the Lean
 * extractor cannot read still has them).
 *
 * @example
 * ```ts
 * headNames('theorem a : True := trivial\n  lemma b : True := trivial\n'); // ['a', 'b']
 * ```
 */
export function headNames(text: string): string[] {
  const out: string[] = [];
  for (const l of text.split('\n')) {
    const n = declarationHeadName(l);
    if (n !== null) out.push(n);
  }
  return out;
}

function isTopLevel(line: string): boolean {
  return declarationHeadName(line) !== null || BOUNDARY.test(line);
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
  const start = lines.findIndex((l) => declarationHeadName(l) === name);
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
    const n = declarationHeadName(l);
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

/**
 * Whether `targetText` already declares `name` (fully qualified). Uses the Lean extractor; falls
 * back to {@link declaredAtLineStart} when the text cannot be tokenized. Never throws.
 *
 * @example
 * ```ts
 * existingDeclaration('theorem add_zero (n : Nat) : n + 0 = n := rfl\n', 'add_zero'); // true
 * existingDeclaration('namespace Foo\ntheorem t : True := trivial\nend Foo', 'Foo.t'); // true
 * existingDeclaration('/- theorem t : True -/', 't'); // false
 * ```
 */
export function existingDeclaration(targetText: string, name: string): boolean {
  const r = declarationNames(targetText);
  if (r.ok) return r.names.includes(name);
  return declaredAtLineStart(targetText, name);
}
