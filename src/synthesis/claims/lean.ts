/**
 * Claims of a Lean 4 source (layer 1, pure; docs/synthesis-claims.md § Lean): one claim per
 * declaration (`theorem`, `lemma`, `def`, `abbrev`, `instance`, `structure`, `class`, `inductive`,
 * `axiom`, `opaque`, `example`) that carries a `/-- doc -/` comment; the claim text is the doc
 * comment, the suggested name the declaration's name as written. Comments nest, strings and
 * character literals are skipped, so a `/--` inside them is not a doc comment; an unterminated
 * comment or string is a structured error.
 */
import { blockText, splitLines, stripControls, textProblem } from './clean-text.js';
import type { ClaimKind, FoundClaim, FoundClaimsResult } from './types.js';

const KINDS: Readonly<Record<string, ClaimKind>> = {
  theorem: 'theorem',
  lemma: 'lemma',
  def: 'definition',
  abbrev: 'definition',
  instance: 'definition',
  structure: 'definition',
  class: 'definition',
  inductive: 'definition',
  opaque: 'definition',
  axiom: 'claim',
  example: 'claim',
};

const MODIFIERS = new Set([
  'private',
  'protected',
  'public',
  'noncomputable',
  'partial',
  'unsafe',
  'nonrec',
  'scoped',
  'local',
]);
const WORD = /[A-Za-z_]+/y;
const IDENT_PART = String.raw`(?:«[^»\n]{1,200}»|[\p{L}_][\p{L}\p{N}_'!?\u2080-\u209c\u1d62-\u1d6a\u2c7c]*)`;
const IDENT = new RegExp(String.raw`${IDENT_PART}(?:\.${IDENT_PART})*`, 'uy');
const CHAR_LITERAL = /'(?:\\[^'\n]{1,8}|[^'\\\n])'/y;
const IDENT_CHAR = /[\p{L}\p{N}_'!?]/u;

/** The end of the (nestable) block comment opening at `from` (`/-`), or null when it never closes. */
function blockCommentEnd(src: string, from: number): number | null {
  let depth = 0;
  let i = from;
  let open = -1;
  let close = -1;
  while (i < src.length) {
    // both searches are cached while still ahead of `i`, so deep nesting stays linear
    if (open !== -2 && open < i) open = src.indexOf('/-', i);
    if (open === -1) open = -2; // no more openers: never search again
    if (close < i) close = src.indexOf('-/', i);
    if (close < 0) return null;
    if (open >= 0 && open < close) {
      depth += 1;
      i = open + 2;
    } else {
      depth -= 1;
      i = close + 2;
      if (depth === 0) return i;
    }
  }
  return null;
}

function lineAt(src: string, offset: number, cache: { offset: number; line: number }): number {
  let line = cache.line;
  for (let i = src.indexOf('\n', cache.offset); i >= 0 && i < offset; i = src.indexOf('\n', i + 1)) line += 1;
  cache.offset = offset;
  cache.line = line;
  return line;
}

/** Skips blanks, non-doc comments, attributes and modifiers from `from`; the declaration found there. */
function declarationAt(src: string, from: number): { kind: ClaimKind; name: string | null } | null {
  let i = from;
  for (let guard = 0; guard < 64; guard += 1) {
    while (i < src.length && /\s/.test(src[i] ?? '')) i += 1;
    if (src.startsWith('--', i)) {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? src.length : nl;
      continue;
    }
    if (src.startsWith('/--', i)) return null; // another doc comment: this one documents nothing
    if (src.startsWith('/-', i)) {
      const end = blockCommentEnd(src, i);
      if (end === null) return null;
      i = end;
      continue;
    }
    if (src.startsWith('@[', i)) {
      let depth = 0;
      let j = i + 1;
      const limit = Math.min(src.length, i + 4000);
      for (; j < limit; j += 1) {
        if (src[j] === '[') depth += 1;
        else if (src[j] === ']') {
          depth -= 1;
          if (depth === 0) break;
        }
      }
      if (j >= limit) return null;
      i = j + 1;
      continue;
    }
    WORD.lastIndex = i;
    const word = WORD.exec(src)?.[0];
    if (word === undefined) return null;
    const after = src[i + word.length] ?? ' ';
    if (IDENT_CHAR.test(after) || after === '.') return null;
    if (MODIFIERS.has(word)) {
      i += word.length;
      continue;
    }
    const kind = KINDS[word];
    if (kind === undefined) return null;
    i += word.length;
    while (i < src.length && /[ \t]/.test(src[i] ?? '')) i += 1;
    if (word === 'example') return { kind, name: null };
    if (word === 'instance' && src[i] === '(') {
      // `instance (priority := low) name : …`
      const close = src.indexOf(')', i);
      if (close < 0 || close - i > 200) return { kind, name: null };
      i = close + 1;
      while (i < src.length && /[ \t]/.test(src[i] ?? '')) i += 1;
    }
    IDENT.lastIndex = i;
    const name = IDENT.exec(src)?.[0];
    return { kind, name: name === undefined ? null : stripControls(name) };
  }
  return null;
}

function docText(raw: string): string {
  const [first = '', ...rest] = raw.split('\n');
  const head = stripControls(first).trim();
  const body = blockText(rest);
  if (head === '' || body === '') return head + body;
  const blankFirst = (rest.find((l) => l.trim() !== '') ?? '') !== rest[0];
  return `${head}${blankFirst ? '\n\n' : '\n'}${body}`;
}

/**
 * The claims of a Lean 4 file, in document order (see the module summary for the rule). Never
 * throws; an unterminated comment or string is `{ ok: false }` naming its line.
 *
 * @example
 * ```ts
 * findLeanClaims('/-- Addition commutes. -/\ntheorem add_comm\' (a b : Nat) : a + b = b + a := by omega\n');
 * // { ok: true, found: [{ text: 'Addition commutes.', kind: 'theorem', name: "add_comm'", line: 1, title: null, page: null }] }
 * ```
 */
export function findLeanClaims(text: string): FoundClaimsResult {
  const problem = textProblem(text);
  if (problem !== null) return { ok: false, error: problem };
  const src = splitLines(text).join('\n');
  const found: FoundClaim[] = [];
  const cache = { offset: 0, line: 1 };
  let i = 0;
  while (i < src.length) {
    const ch = src[i];
    if (ch === '-' && src[i + 1] === '-') {
      const nl = src.indexOf('\n', i);
      i = nl < 0 ? src.length : nl + 1;
      continue;
    }
    if (ch === '/' && src[i + 1] === '-') {
      const end = blockCommentEnd(src, i);
      if (end === null) {
        return { ok: false, error: `line ${lineAt(src, i, cache)}: comment is never closed by -/` };
      }
      const doc = src[i + 2] === '-' && src[i + 3] !== '/';
      if (doc) {
        const decl = declarationAt(src, end);
        const body = docText(src.slice(i + 3, end - 2));
        if (decl !== null && body !== '') {
          found.push({
            text: body,
            title: null,
            kind: decl.kind,
            line: lineAt(src, i, cache),
            page: null,
            name: decl.name,
          });
        }
      }
      i = end;
      continue;
    }
    if (ch === '"') {
      let j = i + 1;
      for (; j < src.length && src[j] !== '"'; j += 1) if (src[j] === '\\') j += 1;
      if (j >= src.length) {
        return { ok: false, error: `line ${lineAt(src, i, cache)}: string literal is never closed` };
      }
      i = j + 1;
      continue;
    }
    if (ch === "'" && !IDENT_CHAR.test(src[i - 1] ?? ' ')) {
      CHAR_LITERAL.lastIndex = i;
      const lit = CHAR_LITERAL.exec(src);
      if (lit !== null) {
        i += lit[0].length;
        continue;
      }
    }
    i += 1;
  }
  return { ok: true, found };
}
