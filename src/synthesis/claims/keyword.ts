/**
 * The claim keyword header of a prose paragraph (layer 1, pure): `Theorem`, `Lemma`, `Proposition`,
 * `Corollary`, `Claim` or `Definition`, optionally bold or italic, numbered (`2`, `2.1`, `A`) and
 * titled (`(Foo)`), closed by `.` or `:` or by the emphasis: `**Theorem 2 (Foo).** Every …`.
 */
import type { ClaimKind } from './types.js';

/**
 * A parsed claim header.
 *
 * @example
 * ```ts
 * const h: ClaimHeader = { kind: 'lemma', number: '2', title: null, length: 9 }; // 'Lemma 2. '
 * ```
 */
export interface ClaimHeader {
  readonly kind: ClaimKind;
  readonly number: string | null;
  readonly title: string | null;
  /** How many characters of the line the header takes (the statement starts after them). */
  readonly length: number;
}

const HEADER =
  /^(\*\*|__|\*|_)?(theorem|lemma|proposition|corollary|claim|definition)(?:[ \t]+([0-9A-Z][0-9A-Za-z.-]{0,19}?))?(?:[ \t]*\(([^()\n]{1,200})\))?[ \t]*([.:])?[ \t]*(\*\*|__|\*|_)?([.:])?(?=\s|$)/i;

const PROOF = /^(?:\*\*|__|\*|_)?proof(?:[ \t]*\([^()\n]{0,200}\))?[ \t]*(?:\*\*|__|\*|_)?[ \t]*[.:]/i;

/**
 * The claim header at the start of `line` (leading blanks ignored), or null when the line does not
 * open with one. The keyword must be capitalised (`Theorem` or `THEOREM`, not `theorem`), and the
 * header must be closed by `.`/`:` or by emphasis, so prose such as `Claim that …` is not a header.
 *
 * @example
 * ```ts
 * claimHeader('**Theorem 2 (Foo).** Every x is x.');
 * // { kind: 'theorem', number: '2', title: 'Foo', length: 20 }
 * claimHeader('Lemma. Zero is small.'); // { kind: 'lemma', number: null, title: null, length: 6 }
 * claimHeader('Theorems are nice.'); // null
 * ```
 */
export function claimHeader(line: string): ClaimHeader | null {
  const lead = line.length - line.trimStart().length;
  const m = HEADER.exec(line.slice(lead, lead + 400));
  if (m === null) return null;
  const [whole, open, keyword = '', number, title, punct, close, punct2] = m;
  const first = keyword.charAt(0);
  if (first !== first.toUpperCase()) return null;
  if (open !== undefined && close !== open) return null;
  if (open === undefined && close !== undefined) return null;
  if (open === undefined && punct === undefined && punct2 === undefined) return null;
  const trimmedTitle = title?.trim() ?? '';
  return {
    kind: keyword.toLowerCase() as ClaimKind,
    number: number ?? null,
    title: trimmedTitle === '' ? null : trimmedTitle,
    length: lead + whole.length,
  };
}

/**
 * Whether `line` opens a proof (`Proof.`, `*Proof.*`, `Proof (of Theorem 2):`); a proof ends the
 * paragraph of the claim before it in extracted PDF text.
 *
 * @example
 * ```ts
 * isProofLine('Proof. Trivial.'); // true
 * isProofLine('Proofs are long.'); // false
 * ```
 */
export function isProofLine(line: string): boolean {
  return PROOF.test(line.trimStart().slice(0, 400));
}
