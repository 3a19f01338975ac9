/**
 * The claim record of the synthesis outer loop's claim queue (seed 002 § Claim Queue) and the
 * result shapes of the extractors (layer 0/1: types and limits only, no I/O).
 */

/**
 * The kind of a claim: the keyword or environment it came from (`claim` when none).
 *
 * @example
 * ```ts
 * const kind: ClaimKind = 'lemma';
 * ```
 */
export type ClaimKind = 'theorem' | 'lemma' | 'proposition' | 'corollary' | 'definition' | 'claim';

/**
 * Every {@link ClaimKind}, in a stable order.
 *
 * @example
 * ```ts
 * CLAIM_KINDS.includes('corollary'); // true
 * ```
 */
export const CLAIM_KINDS: readonly ClaimKind[] = Object.freeze([
  'theorem',
  'lemma',
  'proposition',
  'corollary',
  'definition',
  'claim',
]);

/**
 * Where a claim was found: the source file as given, its 1-based line (text formats) or page (PDF).
 *
 * @example
 * ```ts
 * const where: ClaimSource = { file: 'paper.pdf', line: null, page: 3 };
 * ```
 */
export interface ClaimSource {
  readonly file: string;
  readonly line: number | null;
  readonly page: number | null;
}

/**
 * One claim of the queue, in document order.
 *
 * - `index` is 1-based (the numbering `--claim-select 1,3-4` uses);
 * - `id` is `c<index>-<first 8 hex of sha256(text)>`: deterministic across runs, and unchanged when
 *   an unrelated later claim changes;
 * - `name` is a suggested Lean declaration name when the source gives one, else null.
 *
 * @example
 * ```ts
 * const claim: Claim = {
 *   id: 'c1-2c26b46b', index: 1, text: 'Every prime above 2 is odd.', title: 'Odd primes',
 *   kind: 'theorem', source: { file: 'paper.md', line: 3, page: null }, name: 'odd_primes',
 * };
 * ```
 */
export interface Claim {
  readonly id: string;
  readonly index: number;
  readonly text: string;
  readonly title: string | null;
  readonly kind: ClaimKind;
  readonly source: ClaimSource;
  readonly name: string | null;
}

/**
 * A claim as an extractor finds it, before it is numbered and given an id.
 *
 * @example
 * ```ts
 * const found: FoundClaim = { text: 'x = x', title: null, kind: 'claim', line: 1, page: null, name: null };
 * ```
 */
export interface FoundClaim {
  readonly text: string;
  readonly title: string | null;
  readonly kind: ClaimKind;
  readonly line: number | null;
  readonly page: number | null;
  readonly name: string | null;
}

/**
 * The outcome of an extraction or a selection: the claims, or one readable reason. Never thrown.
 *
 * @example
 * ```ts
 * const r: ClaimsResult = { ok: false, error: 'paper.docx: unsupported source format ".docx"' };
 * ```
 */
export type ClaimsResult =
  | { readonly ok: true; readonly claims: Claim[] }
  | { readonly ok: false; readonly error: string };

/**
 * The outcome of a pure extractor, before numbering.
 *
 * @example
 * ```ts
 * const r: FoundClaimsResult = { ok: true, found: [] };
 * ```
 */
export type FoundClaimsResult =
  | { readonly ok: true; readonly found: FoundClaim[] }
  | { readonly ok: false; readonly error: string };

/**
 * The largest source file {@link extractClaims} reads (20 MiB); larger files are refused.
 *
 * @example
 * ```ts
 * MAX_SOURCE_BYTES; // 20971520
 * ```
 */
export const MAX_SOURCE_BYTES = 20 * 1024 * 1024;

/**
 * The most claims one source may yield; a source with more is refused (split it, or select).
 *
 * @example
 * ```ts
 * MAX_CLAIMS; // 10000
 * ```
 */
export const MAX_CLAIMS = 10_000;
