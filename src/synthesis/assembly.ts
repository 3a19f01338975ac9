/**
 * File assembly (layer 1, pure): how a validated draft block becomes part of the target file —
 * seed 002 § File Assembly Contract, byte-exact.
 *
 * 1. The block is checked again ({@link parseDraftBlock}); its `-- needs-import:` header and the
 *    given `imports` are merged, deduplicated, and compared with the target's own `import` lines.
 * 2. Declarations the target already has ({@link existingDeclaration}) are `skipped` (formalized in
 *    a prior run); the block is cut before each declaration (its doc comment, attributes and
 *    modifiers go with it) and only the new ones are kept. Nothing new → the target is unchanged
 *    (no import is added either).
 * 3. New imports are inserted as `import M` lines into the preamble: after its last `import`
 *    (`prelude`, `module`) line, or — when it has none — after the leading plain comments (a
 *    copyright header), or at the very top; in the last two cases one blank line separates them
 *    from what follows. Every other byte of the target is kept.
 * 4. The kept declarations are appended between the boundary markers
 *    `-- draft: <claim id>: <summary> (<timestamp>)` and `-- end draft: <claim id>`, after one blank
 *    line; leading and trailing blank lines of the block are dropped.
 *
 * Line endings follow the target (its first line break decides: CRLF stays CRLF; LF otherwise, and
 * for an empty or one-line target). A target without a final newline gets one before the
 * appended block. Claim ids, summaries and timestamps are put on one line: whitespace runs
 * (including line and paragraph separators) become one space, control and bidirectional
 * characters are dropped, so a hostile claim text cannot add a line (an `import`) to the file.
 */
import { extractLeanHeaders } from '../fence/index.js';
import { lexLean, TokenKind } from '../fence/lean-lexer.js';
import { declarationNames, declaredAtLineStart } from './declarations.js';
import { isModuleName, parseDraftBlock } from './draft-block.js';

/**
 * Longest claim summary in a begin marker (code points, before the ellipsis).
 *
 * @example
 * ```ts
 * claimSummary('x'.repeat(100)).length; // MAX_SUMMARY + 1 (the '…')
 * ```
 */
export const MAX_SUMMARY = 72;

/**
 * What {@link assembleDraft} appends: the temp file's text (its needs-import header is read, not
 * copied), extra imports, the claim (for the markers) and the timestamp (injected, never read from
 * a clock here).
 *
 * @example
 * ```ts
 * const d: DraftToAssemble = { text: 'theorem t : True := by sorry\n', imports: [], claim: { id: 'c1', text: 'T holds' }, timestamp: '2026-01-01T00:00:00Z' };
 * ```
 */
export interface DraftToAssemble {
  readonly text: string;
  readonly imports: readonly string[];
  readonly claim: { readonly id: string; readonly text: string };
  readonly timestamp: string;
}

/**
 * Outcome of {@link assembleDraft}: the new target text with the declarations `added` and
 * `skipped` (already present) and the `imports` inserted; or why the draft cannot be assembled.
 *
 * @example
 * ```ts
 * const r: AssemblyResult = { ok: true, text: '…', added: ['t'], skipped: [], imports: ['Mathlib.Tactic'] };
 * ```
 */
export type AssemblyResult =
  | {
      readonly ok: true;
      readonly text: string;
      readonly added: readonly string[];
      readonly skipped: readonly string[];
      readonly imports: readonly string[];
    }
  | { readonly ok: false; readonly error: string };

// whitespace runs (with NEL, LS, PS) → one space; C0/C1 controls, DEL and bidi controls dropped
const SPACES = /[\s\u0085\u2028\u2029]+/g;
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * One line of marker text: whitespace collapsed, controls and bidirectional characters removed.
 *
 * @example
 * ```ts
 * oneLine('a\nimport Evil\u202e'); // 'a import Evil'
 * ```
 */
export function oneLine(s: string): string {
  return s.replace(SPACES, ' ').replace(UNPRINTABLE, '').trim();
}

/**
 * The claim summary of a begin marker: {@link oneLine} of the claim text, cut to
 * {@link MAX_SUMMARY} code points with `…`; `(no text)` when nothing is left.
 *
 * @example
 * ```ts
 * claimSummary('Addition\n  is commutative.'); // 'Addition is commutative.'
 * ```
 */
export function claimSummary(text: string): string {
  const s = oneLine(text);
  if (s === '') return '(no text)';
  const cps = [...s];
  return cps.length <= MAX_SUMMARY ? s : `${cps.slice(0, MAX_SUMMARY).join('').trimEnd()}…`;
}

/**
 * The begin marker of a drafted block (no line break).
 *
 * @example
 * ```ts
 * draftBeginMarker({ id: 'c1', text: 'n + 0 = n' }, '2026-01-01T00:00:00Z');
 * // '-- draft: c1: n + 0 = n (2026-01-01T00:00:00Z)'
 * ```
 */
export function draftBeginMarker(
  claim: { readonly id: string; readonly text: string },
  timestamp: string,
): string {
  return `-- draft: ${oneLine(claim.id)}: ${claimSummary(claim.text)} (${oneLine(timestamp)})`;
}

/**
 * The end marker of a drafted block (no line break).
 *
 * @example
 * ```ts
 * draftEndMarker({ id: 'c1' }); // '-- end draft: c1'
 * ```
 */
export function draftEndMarker(claim: { readonly id: string }): string {
  return `-- end draft: ${oneLine(claim.id)}`;
}

/**
 * The line ending of a text: CRLF when its first line break is `\r\n`, LF otherwise.
 *
 * @example
 * ```ts
 * lineEnding('a\r\nb'); // '\r\n'
 * ```
 */
export function lineEnding(text: string): '\n' | '\r\n' {
  const nl = text.indexOf('\n');
  return nl > 0 && text.charCodeAt(nl - 1) === 13 ? '\r\n' : '\n';
}

interface Preamble {
  /** Modules already imported. */
  readonly modules: ReadonlySet<string>;
  /** Offset where new import lines go (a line start, or the text's end). */
  readonly insertAt: number;
  /** The line before the insertion point has no line break (the text ends there). */
  readonly needsBreak: boolean;
  /** No import/prelude/module line exists: separate the new imports with a blank line. */
  readonly fresh: boolean;
}

const IMPORT_LINE = /^(?:(?:public|private|meta)[ \t]+)*import[ \t]+(.*)$/;
const HEADER_WORD = /^(?:prelude|module)[ \t]*(?:--.*)?$/;

function readPreamble(text: string): Preamble {
  const modules = new Set<string>();
  let offset = 0;
  let depth = 0; // open /- … -/ comments
  let afterHeader: { end: number; broken: boolean } | null = null;
  let afterComment: { end: number; broken: boolean } | null = null;
  let leading = true; // still in the leading comment run (no blank line seen after a comment)
  while (offset < text.length) {
    const nl = text.indexOf('\n', offset);
    const end = nl === -1 ? text.length : nl + 1;
    const line = text.slice(offset, nl === -1 ? text.length : nl).replace(/\r$/, '');
    const here = { end, broken: nl === -1 };
    const trimmed = line.trim();
    if (depth > 0) {
      depth = commentDepth(line, depth);
      if (leading) afterComment = here;
    } else if (trimmed === '') {
      if (afterComment !== null) leading = false;
    } else if (trimmed.startsWith('--')) {
      if (leading) afterComment = here;
    } else if (trimmed.startsWith('/-!') || trimmed.startsWith('/--')) {
      break;
    } else if (trimmed.startsWith('/-')) {
      depth = commentDepth(line, 0);
      if (leading) afterComment = here;
    } else {
      const m = IMPORT_LINE.exec(trimmed);
      if (m !== null) {
        const mods = (m[1] ?? '').replace(/--.*$/, '').trim().split(/\s+/);
        for (const mod of mods) if (mod !== '' && mod !== 'runtime') modules.add(mod);
        afterHeader = here;
      } else if (HEADER_WORD.test(trimmed)) afterHeader = here;
      else break;
      leading = false;
    }
    offset = end;
  }
  const anchor = afterHeader ?? afterComment;
  return {
    modules,
    insertAt: anchor === null ? 0 : anchor.end,
    needsBreak: anchor?.broken ?? false,
    fresh: afterHeader === null,
  };
}

/** The `/- … -/` nesting depth after `line`, starting from `depth` (strings are not special here). */
function commentDepth(line: string, depth: number): number {
  let d = depth;
  for (let i = 0; i < line.length - 1; i++) {
    const two = line.slice(i, i + 2);
    if (two === '/-') {
      d++;
      i++;
    } else if (two === '-/' && d > 0) {
      d--;
      i++;
    } else if (two === '--' && d === 0) break;
  }
  return d;
}

const MODIFIER_WORDS = new Set(['private', 'protected', 'noncomputable', 'partial', 'nonrec', 'unsafe']);

/**
 * Offsets where each declaration of `body` starts (the first at 0): at its keyword's line, moved
 * up over the doc comment, attributes and modifiers that belong to it. Null when two
 * declarations share a line (the block cannot be cut there).
 */
function declarationStarts(body: string, lines: readonly number[]): number[] | null {
  const lexed = lexLean(body);
  if (!lexed.ok) return null;
  const t = lexed.tokens;
  const starts: number[] = [0];
  for (let d = 1; d < lines.length; d++) {
    const line = lines[d] as number;
    if (line === lines[d - 1]) return null;
    let k = 0;
    while (k < t.count && (t.lines[k] as number) < line) k++;
    let first = k; // the first token of this declaration's command
    let j = k - 1;
    while (j >= 0) {
      const kind = t.kinds[j];
      const s = t.text(j);
      if (kind === TokenKind.doc || (kind === TokenKind.ident && MODIFIER_WORDS.has(s))) {
        first = j;
        j--;
      } else if (kind === TokenKind.symbol && s === ']') {
        let depth = 0;
        let open = -1;
        for (let q = j; q >= 0; q--) {
          const u = t.text(q);
          if (u === ']') depth++;
          else if (u === '[' || u === '@[') {
            depth--;
            if (depth === 0) {
              open = u === '@[' ? q : -1;
              break;
            }
          }
        }
        if (open < 0) break;
        first = open;
        j = open - 1;
      } else break;
    }
    // cut at the start of the first token's line when nothing of the previous command shares it
    const at = t.starts[first] as number;
    const lineStart = body.lastIndexOf('\n', at - 1) + 1;
    const shared = j >= 0 && (t.lines[j] as number) === (t.lines[first] as number);
    starts.push(shared ? at : lineStart);
  }
  return starts;
}

/**
 * Assembles a draft into the target text (see the module's rules). Pure and total: bad input is
 * `{ ok: false, error }`, never a throw.
 *
 * @example
 * ```ts
 * assembleDraft('import Mathlib.Tactic\n\ntheorem old : True := trivial\n', {
 *   text: '-- needs-import: Mathlib.Tactic\n-- needs-import: Mathlib.Data.Nat.Basic\ntheorem t (n : Nat) : n + 0 = n := by sorry\n',
 *   imports: [],
 *   claim: { id: 'c1', text: 'n + 0 = n' },
 *   timestamp: '2026-01-01T00:00:00Z',
 * });
 * // { ok: true, added: ['t'], skipped: [], imports: ['Mathlib.Data.Nat.Basic'], text:
 * //   'import Mathlib.Tactic\nimport Mathlib.Data.Nat.Basic\n\ntheorem old : True := trivial\n\n' +
 * //   '-- draft: c1: n + 0 = n (2026-01-01T00:00:00Z)\ntheorem t (n : Nat) : n + 0 = n := by sorry\n-- end draft: c1\n' }
 * ```
 */
export function assembleDraft(targetText: string, draft: DraftToAssemble): AssemblyResult {
  if (typeof targetText !== 'string') return { ok: false, error: 'the target is not text' };
  const parsed = parseDraftBlock(draft.text);
  if (!parsed.ok) return { ok: false, error: `draft refused: ${parsed.error}` };
  const block = parsed.block;
  const wanted: string[] = [];
  for (const m of [...block.imports, ...draft.imports]) {
    if (!isModuleName(m)) return { ok: false, error: `not a module name: ${JSON.stringify(m)}` };
    if (!wanted.includes(m)) wanted.push(m);
  }
  // which declarations are new
  const present = declarationNames(targetText);
  const exists = (name: string) =>
    present.ok ? present.names.includes(name) : declaredAtLineStart(targetText, name);
  const added = block.declarations.filter((n) => !exists(n));
  const skipped = block.declarations.filter((n) => exists(n));
  if (added.length === 0) return { ok: true, text: targetText, added, skipped, imports: [] };
  let body = block.body;
  if (skipped.length > 0) {
    const headers = declarationLines(block.body);
    const starts = headers === null ? null : declarationStarts(block.body, headers);
    if (starts === null)
      return { ok: false, error: 'cannot separate the already present declarations from the new ones' };
    body = '';
    for (let i = 0; i < starts.length; i++) {
      const name = block.declarations[i] as string;
      if (added.includes(name)) body += block.body.slice(starts[i], starts[i + 1] ?? block.body.length);
    }
  }
  const eol = lineEnding(targetText);
  const declLines = trimBlankLines(body.split(/\r?\n/));
  // imports into the preamble
  const pre = readPreamble(targetText);
  const newImports = wanted.filter((m) => !pre.modules.has(m));
  let text = targetText;
  if (newImports.length > 0) {
    const rest = targetText.slice(pre.insertAt);
    let insert = (pre.needsBreak ? eol : '') + newImports.map((m) => `import ${m}${eol}`).join('');
    if (pre.fresh && rest !== '' && !/^[ \t]*\r?\n/.test(rest)) insert += eol;
    text = targetText.slice(0, pre.insertAt) + insert + rest;
  }
  // the declarations between the boundary markers
  if (text !== '') {
    if (!text.endsWith('\n')) text += eol;
    if (!/(?:^|\n)[ \t]*\r?\n$/.test(text)) text += eol;
  }
  text += [draftBeginMarker(draft.claim, draft.timestamp), ...declLines, draftEndMarker(draft.claim)]
    .map((l) => l + eol)
    .join('');
  return { ok: true, text, added, skipped, imports: newImports };
}

/** The lines of the block's declaration keywords (the block has only named declarations). */
function declarationLines(body: string): number[] | null {
  const r = extractLeanHeaders(body);
  return r.ok ? r.headers.map((h) => h.line) : null;
}

function trimBlankLines(lines: string[]): string[] {
  let a = 0;
  let b = lines.length;
  while (a < b && (lines[a] ?? '').trim() === '') a++;
  while (b > a && (lines[b - 1] ?? '').trim() === '') b--;
  return lines.slice(a, b);
}
