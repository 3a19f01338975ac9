/**
 * A Lean 4 tokenizer for the statement fence (pure, single pass, linear time, no backtracking
 * regular expressions). It removes `--` line comments and nested `/- … -/` block comments, keeps
 * `/-- … -/` doc comments as one token (they only precede commands), reads string literals
 * (escapes, raw `r#"…"#`, interpolated `s!"…{e}…"` with nested strings), char literals,
 * identifiers (dotted, `«escaped»`, Lean's letter-like Unicode ranges, trailing `'`/`!`/`?` and
 * subscripts), numbers, syntax quotation openers (`` `( `` and `` `(tactic| ``), name literals,
 * `#words` and symbols (a small maximal-munch table, otherwise one code point per token).
 * Tokens live in typed arrays so a multi-megabyte file stays cheap.
 */

/**
 * Token kinds of {@link LeanTokens}.
 *
 * @example
 * ```ts
 * const isDoc = tokens.kinds[i] === TokenKind.doc; // a /-- … -/ doc comment
 * ```
 */
export const TokenKind = {
  ident: 0,
  symbol: 1,
  string: 2,
  char: 3,
  number: 4,
  doc: 5,
  quoteOpen: 6,
  nameLit: 7,
  hashCommand: 8,
} as const;

/**
 * Flag bit: no whitespace or comment between this token and the previous one.
 *
 * @example
 * ```ts
 * const glued = (tokens.flags[i] & GLUED) !== 0; // `(f x).1`: the `.1` is glued
 * ```
 */
export const GLUED = 1;
/**
 * Flag bit: the first token on its line.
 *
 * @example
 * ```ts
 * const atLineStart = (tokens.flags[i] & LINE_START) !== 0;
 * ```
 */
export const LINE_START = 2;

/**
 * The tokens of one source text, stored column-wise; `text(i)` slices the source on demand.
 *
 * @example
 * ```ts
 * const r = lexLean('theorem t : True := trivial');
 * if (r.ok) r.tokens.text(0); // 'theorem'
 * ```
 */
export interface LeanTokens {
  readonly count: number;
  readonly kinds: Uint8Array;
  readonly flags: Uint8Array;
  readonly starts: Int32Array;
  readonly ends: Int32Array;
  readonly lines: Int32Array;
  text(index: number): string;
}

/**
 * Outcome of {@link lexLean}: the tokens, or the first lexical error (with its line).
 *
 * @example
 * ```ts
 * const r: LexResult = lexLean('/- open');
 * if (!r.ok) r.error; // 'unterminated block comment opened at line 1'
 * ```
 */
export type LexResult =
  | { readonly ok: true; readonly tokens: LeanTokens }
  | { readonly ok: false; readonly error: string };

/** Multi-character symbols, longest first (everything else is one code point per token). */
const SYMBOLS = [
  '...',
  '<->',
  '<;>',
  '<|>',
  '|>.',
  '>>=',
  '>=>',
  '^^^',
  '<<<',
  '>>>',
  '|||',
  '&&&',
  '<$>',
  '<*>',
  '<&>',
  ':=',
  '::',
  '=>',
  '->',
  '<-',
  '<|',
  '|>',
  '||',
  '&&',
  '==',
  '!=',
  '<=',
  '>=',
  '++',
  '..',
  '@[',
  '⁻¹',
  '<*',
  '*>',
  '>>',
] as const;
const SYMBOL_FIRST = new Set(SYMBOLS.map((s) => s.charCodeAt(0)));

/**
 * The identifiers after which a string literal is an interpolated string (`s!"…{e}…"`): Lean's
 * `s!`, `m!`, `f!` and `throwError` syntaxes. Syntaxes declared in imported files are unknown here.
 */
const INTERPOLATING = new Set(['s!', 'm!', 'f!', 'throwError']);

const COMMENT_LINE = 1;
const COMMENT_BLOCK = 2;
const COMMENT_DOC = 3;
const COMMENT_MODULE_DOC = 4;

/** Nesting limit of interpolated strings inside interpolated strings. */
const MAX_INTERPOLATION_DEPTH = 32;

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
}

/** Lean's `isLetterLike`: Greek (without λ, Π, Σ), Coptic, polytonic Greek, letter-like symbols, script letters. */
function isLetterLike(c: number): boolean {
  return (
    (c >= 0x3b1 && c <= 0x3c9 && c !== 0x3bb) ||
    (c >= 0x391 && c <= 0x3a9 && c !== 0x3a0 && c !== 0x3a3) ||
    (c >= 0x3ca && c <= 0x3fb) ||
    (c >= 0x1f00 && c <= 0x1ffe) ||
    (c >= 0x2100 && c <= 0x214f) ||
    (c >= 0x1d49c && c <= 0x1d59f)
  );
}

/** Lean's `isSubScriptAlnum`. */
function isSubscriptAlnum(c: number): boolean {
  return (c >= 0x2080 && c <= 0x2089) || (c >= 0x2090 && c <= 0x209c) || (c >= 0x1d62 && c <= 0x1d6a);
}

function isIdFirst(c: number): boolean {
  return isAsciiAlpha(c) || c === 95 || isLetterLike(c);
}

function isIdRest(c: number): boolean {
  return isIdFirst(c) || isDigit(c) || c === 39 || c === 33 || c === 63 || isSubscriptAlnum(c);
}

/**
 * Whether `s` is one identifier component Lean reads without `«»` (a letter-like first character,
 * then letters, digits, `_`, `'`, `!`, `?`, subscripts). Keywords are not checked here.
 *
 * @example
 * ```ts
 * isPlainIdentifierComponent("add_zero'"); // true
 * isPlainIdentifierComponent('a.b'); // false: `«a.b»` is one component
 * ```
 */
export function isPlainIdentifierComponent(s: string): boolean {
  if (s.length === 0) return false;
  let first = true;
  for (const ch of s) {
    const c = ch.codePointAt(0) as number;
    if (first ? !isIdFirst(c) : !isIdRest(c)) return false;
    first = false;
  }
  return true;
}

/** Code point at `p` (0 past the end). */
function cpAt(src: string, p: number): number {
  return p < src.length ? (src.codePointAt(p) as number) : 0;
}

function cpLen(c: number): number {
  return c > 0xffff ? 2 : 1;
}

class TokenBuffer {
  count = 0;
  kinds = new Uint8Array(1024);
  flags = new Uint8Array(1024);
  starts = new Int32Array(1024);
  ends = new Int32Array(1024);
  lines = new Int32Array(1024);

  push(kind: number, flags: number, start: number, end: number, line: number): void {
    if (this.count === this.kinds.length) this.grow();
    const i = this.count++;
    this.kinds[i] = kind;
    this.flags[i] = flags;
    this.starts[i] = start;
    this.ends[i] = end;
    this.lines[i] = line;
  }

  private grow(): void {
    const size = this.kinds.length * 2;
    const kinds = new Uint8Array(size);
    kinds.set(this.kinds);
    this.kinds = kinds;
    const flags = new Uint8Array(size);
    flags.set(this.flags);
    this.flags = flags;
    const starts = new Int32Array(size);
    starts.set(this.starts);
    this.starts = starts;
    const ends = new Int32Array(size);
    ends.set(this.ends);
    this.ends = ends;
    const lines = new Int32Array(size);
    lines.set(this.lines);
    this.lines = lines;
  }
}

class LexError {
  constructor(readonly message: string) {}
}

/**
 * Tokenizes Lean 4 source. Never throws; an unterminated comment, string or character literal is
 * `{ ok: false, error }` naming the line where it opened.
 *
 * @example
 * ```ts
 * const r = lexLean('-- theorem\ntheorem t : "a := b" = "" := rfl');
 * if (r.ok) r.tokens.count; // 8: theorem t : "a := b" = "" := rfl
 * ```
 */
export function lexLean(src: string): LexResult {
  try {
    return { ok: true, tokens: lex(src) };
  } catch (e) {
    if (e instanceof LexError) return { ok: false, error: e.message };
    return { ok: false, error: `tokenizer failure: ${String(e)}` };
  }
}

/**
 * What a {@link LeanSegment} of source text is: a code token, a string or char literal, a comment
 * of one of Lean's four kinds, or whitespace between them.
 *
 * @example
 * ```ts
 * const k: LeanSegmentKind = 'doc-comment'; // `/-- … -/`
 * ```
 */
export type LeanSegmentKind =
  | 'code'
  | 'string'
  | 'char'
  | 'line-comment'
  | 'block-comment'
  | 'doc-comment'
  | 'module-doc'
  | 'whitespace';

/**
 * One span of a source text as the fence reads it (`start` inclusive, `end` exclusive).
 *
 * @example
 * ```ts
 * const s: LeanSegment = { kind: 'line-comment', start: 0, end: 9 };
 * ```
 */
export interface LeanSegment {
  readonly kind: LeanSegmentKind;
  readonly start: number;
  readonly end: number;
}

const COMMENT_SEGMENT: Record<number, LeanSegmentKind> = {
  [COMMENT_LINE]: 'line-comment',
  [COMMENT_BLOCK]: 'block-comment',
  [COMMENT_MODULE_DOC]: 'module-doc',
};

/**
 * Splits a Lean source text into consecutive segments covering it exactly (their texts joined
 * give the input back): the tokens the fence reads (strings, an interpolated string's `{…}`
 * parts included, and char literals as one segment each; doc comments too), the comments it
 * drops, and the whitespace between. Never throws; a lexical error is `{ ok: false, error }`.
 *
 * @example
 * ```ts
 * const r = leanSegments('x -- c\n"s"');
 * // r.ok && r.segments.map((s) => s.kind) → ['code', 'whitespace', 'line-comment', 'whitespace', 'string']
 * ```
 */
export function leanSegments(
  src: string,
):
  | { readonly ok: true; readonly segments: readonly LeanSegment[] }
  | { readonly ok: false; readonly error: string } {
  const comments: number[] = [];
  let t: LeanTokens;
  try {
    t = lex(src, comments);
  } catch (e) {
    if (e instanceof LexError) return { ok: false, error: e.message };
    return { ok: false, error: `tokenizer failure: ${String(e)}` };
  }
  const spans: LeanSegment[] = [];
  for (let i = 0; i < t.count; i++) {
    const k = t.kinds[i];
    const kind: LeanSegmentKind =
      k === TokenKind.string
        ? 'string'
        : k === TokenKind.char
          ? 'char'
          : k === TokenKind.doc
            ? 'doc-comment'
            : 'code';
    spans.push({ kind, start: t.starts[i] as number, end: t.ends[i] as number });
  }
  for (let i = 0; i < comments.length; i += 3) {
    spans.push({
      kind: COMMENT_SEGMENT[comments[i] as number] as LeanSegmentKind,
      start: comments[i + 1] as number,
      end: comments[i + 2] as number,
    });
  }
  spans.sort((x, y) => x.start - y.start);
  const out: LeanSegment[] = [];
  let at = 0;
  for (const s of spans) {
    if (s.start > at) out.push({ kind: 'whitespace', start: at, end: s.start });
    out.push(s);
    at = s.end;
  }
  if (at < src.length) out.push({ kind: 'whitespace', start: at, end: src.length });
  return { ok: true, segments: out };
}

function lex(src: string, comments?: number[]): LeanTokens {
  const n = src.length;
  const out = new TokenBuffer();
  let pos = 0;
  let line = 1;
  let spaced = true;
  let lineHasToken = false;

  const emit = (kind: number, start: number, end: number, startLine: number): void => {
    const flags = (spaced ? 0 : GLUED) | (lineHasToken ? 0 : LINE_START);
    out.push(kind, flags, start, end, startLine);
    spaced = false;
    lineHasToken = true;
  };

  /** Scans a string literal whose opening quote is at `p`; returns the index after the closing quote. */
  const scanString = (p: number, interpolated: boolean, depth: number): number => {
    const openLine = line;
    let q = p + 1;
    while (q < n) {
      const c = src.charCodeAt(q);
      if (c === 92 /* \ */) {
        if (src.charCodeAt(q + 1) === 10) line++;
        q += 2;
        continue;
      }
      if (c === 34 /* " */) return q + 1;
      if (c === 10) line++;
      if (interpolated && c === 123 /* { */) {
        q = scanInterpolation(q + 1, depth + 1);
        continue;
      }
      q++;
    }
    throw new LexError(`unterminated string literal opened at line ${openLine}`);
  };

  /**
   * Scans the code inside `{ … }` of an interpolated string (a term: identifiers, comments,
   * strings, char literals, nested braces); returns the index after the closing `}`.
   */
  const scanInterpolation = (p: number, depth: number): number => {
    if (depth > MAX_INTERPOLATION_DEPTH)
      throw new LexError(`string interpolation nested too deeply at line ${line}`);
    let braces = 1;
    let q = p;
    let lastIdent = '';
    while (q < n) {
      const c = src.charCodeAt(q);
      const d = src.charCodeAt(q + 1);
      if (c === 10 || c === 32 || c === 9 || c === 13) {
        if (c === 10) line++;
        q++;
        continue;
      }
      if (c === 45 && d === 45) {
        const nl = src.indexOf('\n', q);
        q = nl < 0 ? n : nl;
        continue;
      }
      if (c === 47 && d === 45) {
        q = scanComment(q).end;
        continue;
      }
      if (c === 34) {
        q = scanString(q, INTERPOLATING.has(lastIdent), depth);
        lastIdent = '';
        continue;
      }
      if (c === 39) {
        q = scanChar(q) ?? q + 1;
        lastIdent = '';
        continue;
      }
      const cp = cpAt(src, q);
      if (c === 0xab || isIdFirst(cp)) {
        const first = identPart(q);
        if (first > 0) {
          const raw = first === q + 1 && c === 114 ? scanRaw(q) : -1;
          const end = raw > 0 ? raw : identTail(first);
          lastIdent = raw > 0 ? '' : src.slice(q, end);
          q = end;
          continue;
        }
      }
      lastIdent = '';
      if (c === 123) braces++;
      else if (c === 125) {
        braces--;
        if (braces === 0) return q + 1;
      }
      q += cpLen(cp);
    }
    throw new LexError(`unterminated string interpolation at line ${line}`);
  };

  /**
   * A comment at `p` (`/-` seen): Lean reads `/--` as a doc comment and `/-!` as a module doc,
   * both bodies starting after the third character; any other `/-` opens a comment whose third
   * character is skipped unread (so `/--/` opens a doc comment, and `/-/-` one comment, not two).
   * Nested `/- … -/` pairs count. Returns the end (after the closing `-/`) and the kind.
   */
  const scanComment = (p: number): { end: number; kind: number } => {
    const openLine = line;
    const third = src.charCodeAt(p + 2);
    const kind = third === 45 ? COMMENT_DOC : third === 33 ? COMMENT_MODULE_DOC : COMMENT_BLOCK;
    let q = p + 2;
    if (q < n) {
      if (third === 10) line++;
      q += cpLen(cpAt(src, q));
    }
    let depth = 1;
    while (q < n) {
      const d = src.charCodeAt(q);
      if (d === 10) line++;
      if (d === 47 && src.charCodeAt(q + 1) === 45) {
        depth++;
        q += 2;
      } else if (d === 45 && src.charCodeAt(q + 1) === 47) {
        depth--;
        q += 2;
        if (depth === 0) return { end: q, kind };
      } else q++;
    }
    throw new LexError(`unterminated block comment opened at line ${openLine}`);
  };

  /** A raw string literal at `p` (`r"…"`, `r#"…"#`, …): the index after it, or -1 when `r` is not one. */
  const scanRaw = (p: number): number => {
    let hashes = 0;
    while (src.charCodeAt(p + 1 + hashes) === 35) hashes++;
    if (src.charCodeAt(p + 1 + hashes) !== 34) return -1;
    const closer = `"${'#'.repeat(hashes)}`;
    const close = src.indexOf(closer, p + 2 + hashes);
    if (close < 0) throw new LexError(`unterminated raw string literal opened at line ${line}`);
    for (let q = p; q < close; q++) if (src.charCodeAt(q) === 10) line++;
    return close + closer.length;
  };

  /** A char literal at `p` (`'a'`, `'\n'`, `'\u{3b1}'`): the index after it, or null when `'` is not one. */
  const scanChar = (p: number): number | null => {
    const c = src.charCodeAt(p + 1);
    if (c === 92) {
      for (let q = p + 3; q < Math.min(n, p + 14); q++) {
        const d = src.charCodeAt(q);
        if (d === 39) return q + 1;
        if (d === 10) return null;
      }
      return null;
    }
    if (p + 1 >= n || c === 10 || c === 39) return null;
    const after = p + 1 + cpLen(cpAt(src, p + 1));
    return src.charCodeAt(after) === 39 ? after + 1 : null;
  };

  /** One identifier component at `p` (`foo'`, `«a b»`): its end, or -1. */
  const identPart = (p: number): number => {
    if (src.charCodeAt(p) === 0xab /* « */) {
      const close = src.indexOf('»', p + 1);
      if (close < 0) return -1;
      for (let q = p + 1; q < close; q++) if (src.charCodeAt(q) === 10) line++;
      return close + 1;
    }
    const c = cpAt(src, p);
    if (!isIdFirst(c)) return -1;
    let q = p + cpLen(c);
    for (;;) {
      const d = cpAt(src, q);
      if (q >= n || !isIdRest(d)) return q;
      q += cpLen(d);
    }
  };

  /** A dotted identifier from its first component's end: `.part`s and `.1` projections. */
  const identTail = (q0: number): number => {
    let q = q0;
    while (src.charCodeAt(q) === 46 /* . */) {
      const next = src.charCodeAt(q + 1);
      if (isDigit(next)) {
        q += 2;
        while (isDigit(src.charCodeAt(q))) q++;
        continue;
      }
      const e = identPart(q + 1);
      if (e < 0) break;
      q = e;
    }
    return q;
  };

  while (pos < n) {
    const c = src.charCodeAt(pos);
    if (c === 10) {
      line++;
      pos++;
      spaced = true;
      lineHasToken = false;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11 || c === 0xfeff) {
      pos++;
      spaced = true;
      continue;
    }
    const next = src.charCodeAt(pos + 1);
    if (c === 45 /* - */ && next === 45) {
      const nl = src.indexOf('\n', pos);
      const end = nl < 0 ? n : nl;
      comments?.push(COMMENT_LINE, pos, end);
      pos = end;
      spaced = true;
      continue;
    }
    if (c === 47 /* / */ && next === 45) {
      const openLine = line;
      const { end, kind } = scanComment(pos);
      if (kind === COMMENT_DOC) emit(TokenKind.doc, pos, end, openLine);
      else comments?.push(kind, pos, end);
      pos = end;
      spaced = true;
      continue;
    }
    const startLine = line;
    if (c === 34) {
      // s!"…", m!"…", f!"…", throwError "…": Lean's interpolated-string syntaxes (a string after
      // any other identifier, `foo!"…"` included, is a plain string literal)
      const prev = out.count - 1;
      const interpolated =
        prev >= 0 &&
        out.kinds[prev] === TokenKind.ident &&
        INTERPOLATING.has(src.slice(out.starts[prev], out.ends[prev]));
      const end = scanString(pos, interpolated, 0);
      emit(TokenKind.string, pos, end, startLine);
      pos = end;
      continue;
    }
    if (c === 39) {
      const end = scanChar(pos);
      emit(end === null ? TokenKind.symbol : TokenKind.char, pos, end ?? pos + 1, startLine);
      pos = end ?? pos + 1;
      continue;
    }
    if (c === 96 /* ` */) {
      if (next === 40 /* ( */) {
        let q = pos + 2;
        while (isAsciiAlpha(src.charCodeAt(q)) || isDigit(src.charCodeAt(q)) || src.charCodeAt(q) === 95) q++;
        const end = q > pos + 2 && src.charCodeAt(q) === 124 /* | */ ? q + 1 : pos + 2;
        emit(TokenKind.quoteOpen, pos, end, startLine);
        pos = end;
        continue;
      }
      const nameStart = next === 96 ? pos + 2 : pos + 1;
      const e = identPart(nameStart);
      if (e > 0) {
        const end = identTail(e);
        emit(TokenKind.nameLit, pos, end, startLine);
        pos = end;
        continue;
      }
      emit(TokenKind.symbol, pos, pos + 1, startLine);
      pos++;
      continue;
    }
    if (c === 35 /* # */ && isIdFirst(cpAt(src, pos + 1))) {
      const end = identPart(pos + 1);
      emit(TokenKind.hashCommand, pos, end, startLine);
      pos = end;
      continue;
    }
    const cp = cpAt(src, pos);
    if (c === 0xab || isIdFirst(cp)) {
      const first = identPart(pos);
      if (first > 0) {
        // raw string literal r"…" / r#"…"#
        if (first === pos + 1 && c === 114 /* r */ && (next === 34 || next === 35)) {
          const raw = scanRaw(pos);
          if (raw > 0) {
            emit(TokenKind.string, pos, raw, startLine);
            pos = raw;
            continue;
          }
        }
        const end = identTail(first);
        emit(TokenKind.ident, pos, end, startLine);
        pos = end;
        continue;
      }
    }
    if (c === 46 /* . */ && (isIdFirst(cpAt(src, pos + 1)) || next === 0xab || isDigit(next))) {
      const end = identTail(pos);
      if (end > pos) {
        emit(TokenKind.ident, pos, end, startLine);
        pos = end;
        continue;
      }
    }
    if (isDigit(c)) {
      let q = pos + 1;
      while (isAsciiAlpha(src.charCodeAt(q)) || isDigit(src.charCodeAt(q)) || src.charCodeAt(q) === 95) q++;
      if (src.charCodeAt(q) === 46 && isDigit(src.charCodeAt(q + 1))) {
        q += 2;
        while (isAsciiAlpha(src.charCodeAt(q)) || isDigit(src.charCodeAt(q)) || src.charCodeAt(q) === 95) q++;
      }
      emit(TokenKind.number, pos, q, startLine);
      pos = q;
      continue;
    }
    let len = cpLen(cp);
    if (SYMBOL_FIRST.has(c)) {
      for (const s of SYMBOLS) {
        if (src.startsWith(s, pos)) {
          len = s.length;
          break;
        }
      }
    }
    emit(TokenKind.symbol, pos, pos + len, startLine);
    pos += len;
  }

  const { kinds, flags, starts, ends, lines, count } = out;
  return {
    count,
    kinds,
    flags,
    starts,
    ends,
    lines,
    text: (i) => src.slice(starts[i], ends[i]),
  };
}
