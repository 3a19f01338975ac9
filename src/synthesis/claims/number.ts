/**
 * Numbering found claims into the queue (layer 1, pure): 1-based indices in document order and the
 * deterministic id `c<index>-<sha256(text) first 8 hex>`.
 */
import { deepFreeze, sha256Hex } from '../../canonical/index.js';
import type { Claim, ClaimsResult, FoundClaim } from './types.js';
import { MAX_CLAIMS } from './types.js';

/**
 * The id of the claim at 1-based `index` with `text`: `c<index>-<first 8 hex of sha256(text)>`.
 * It depends only on the claim itself and its position, so editing a later claim leaves it alone.
 *
 * @example
 * ```ts
 * claimId(1, 'x = x'); // 'c1-…' (8 hex digits)
 * ```
 */
export function claimId(index: number, text: string): string {
  return `c${index}-${sha256Hex(text).slice(0, 8)}`;
}

/**
 * The claims of `file` from what an extractor found, numbered in document order and deep-frozen.
 * More than {@link MAX_CLAIMS} claims is a structured error.
 *
 * @example
 * ```ts
 * numberClaims('a.md', [{ text: 'x = x', title: null, kind: 'claim', line: 1, page: null, name: null }]);
 * // { ok: true, claims: [{ id: 'c1-…', index: 1, text: 'x = x', …, source: { file: 'a.md', line: 1, page: null } }] }
 * ```
 */
export function numberClaims(file: string, found: readonly FoundClaim[]): ClaimsResult {
  if (found.length > MAX_CLAIMS) {
    return { ok: false, error: `${file}: ${found.length} claims, more than the limit of ${MAX_CLAIMS}` };
  }
  const claims = found.map((f, i): Claim => {
    const index = i + 1;
    return {
      id: claimId(index, f.text),
      index,
      text: f.text,
      title: f.title,
      kind: f.kind,
      source: { file, line: f.line, page: f.page },
      name: f.name,
    };
  });
  return { ok: true, claims: deepFreeze(claims) };
}
