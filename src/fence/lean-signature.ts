/**
 * The canonical text of a Lean signature (pure): a deterministic function of its token sequence,
 * so moving line breaks, spaces and comments around never changes it. Tokens are joined by one
 * space, except after an opening bracket or a prefix operator (`¬ ↑ ⇑ ↥ @ #`, unary `-` and `!`),
 * before a closing bracket, `,`, `;` and `⁻¹`, around glued projections (`(f x).1`, `.{u}`) and
 * before a glued `[`, `?` or `!` after an operand (`xs[i]?` indexes, `xs [i]` applies), where a
 * space would change the meaning.
 */
import { GLUED, type LeanTokens, TokenKind } from './lean-lexer.js';

/**
 * Opening brackets (syntax quotation openers count too).
 *
 * @example
 * ```ts
 * OPENERS.has('⦃'); // true
 * ```
 */
export const OPENERS: ReadonlySet<string> = new Set(['(', '[', '{', '⦃', '⟨', '⟪', '@[', '‹']);
/**
 * Closing brackets.
 *
 * @example
 * ```ts
 * CLOSERS.has('⟩'); // true
 * ```
 */
export const CLOSERS: ReadonlySet<string> = new Set([')', ']', '}', '⦄', '⟩', '⟫', '›']);

const PREFIX = new Set(['¬', '↑', '⇑', '↥', '@', '#']);
const NO_SPACE_BEFORE = new Set([',', ';', '⁻¹']);
const GLUED_POSTFIX = new Set(['[', '?', '!']);

/** Whether a token ends an operand (a name, a literal, a closing bracket). */
function endsOperand(text: string, kind: number): boolean {
  if (kind === TokenKind.symbol) return CLOSERS.has(text);
  return kind !== TokenKind.quoteOpen && kind !== TokenKind.doc;
}

/**
 * Renders tokens `[from, to)` as canonical signature text.
 *
 * @example
 * ```ts
 * const r = lexLean('(n:Nat)  :\n  n+0 = n');
 * if (r.ok) renderSignature(r.tokens, 0, r.tokens.count); // '(n : Nat) : n + 0 = n'
 * ```
 */
export function renderSignature(tokens: LeanTokens, from: number, to: number): string {
  const parts: string[] = [];
  let prev = '';
  let prevKind = -1;
  let prevUnary = false;
  for (let i = from; i < to; i++) {
    const text = tokens.text(i);
    const kind = tokens.kinds[i] as number;
    const glued = ((tokens.flags[i] as number) & GLUED) !== 0;
    if (i > from && spaceBetween(prev, prevKind, prevUnary, text, kind, glued)) parts.push(' ');
    parts.push(text);
    prevUnary =
      (text === '-' || text === '!') &&
      kind === TokenKind.symbol &&
      (i === from || operatorLike(prev, prevKind));
    prev = text;
    prevKind = kind;
  }
  return parts.join('');
}

/** Whether the previous token leaves a following `-` or `!` in prefix position. */
function operatorLike(prev: string, prevKind: number): boolean {
  if (prevKind === TokenKind.quoteOpen) return true;
  if (prevKind !== TokenKind.symbol) return false;
  return !CLOSERS.has(prev) && prev !== '⁻¹';
}

function spaceBetween(
  prev: string,
  prevKind: number,
  prevUnary: boolean,
  text: string,
  kind: number,
  glued: boolean,
): boolean {
  if (OPENERS.has(prev) || prevKind === TokenKind.quoteOpen) return false;
  if (CLOSERS.has(text) || NO_SPACE_BEFORE.has(text)) return false;
  if (glued && text.startsWith('.')) return false;
  if (glued && prev === '.') return false;
  // `xs[i]`, `xs[i]?`, `xs[i]!` (indexing) differ from `xs [i]` (applied to a list)
  if (glued && kind === TokenKind.symbol && GLUED_POSTFIX.has(text) && endsOperand(prev, prevKind))
    return false;
  if (PREFIX.has(prev) || prevUnary) return false;
  return true;
}
