/**
 * `--claim-select` (src/synthesis/claims/select.ts): indices, ranges, ids and /patterns/, in
 * document order, each once; every bad selection is a structured error.
 */
import { describe, expect, it } from 'vitest';
import { type Claim, extractClaimsFromText, selectClaims } from '../../src/synthesis/claims/index.js';

function queue(): Claim[] {
  const r = extractClaimsFromText(
    'q.md',
    '- Every prime is odd, or two.\n- Zero is small.\n- A ring, a field.\n- Primes are infinite.\n',
  );
  if (!r.ok) throw new Error(r.error);
  return r.claims;
}

const indices = (r: ReturnType<typeof selectClaims>) => (r.ok ? r.claims.map((c) => c.index) : r.error);

describe('selectClaims', () => {
  const claims = queue();

  it('undefined or blank selects every claim', () => {
    expect(indices(selectClaims(claims, undefined))).toEqual([1, 2, 3, 4]);
    expect(indices(selectClaims(claims, '  '))).toEqual([1, 2, 3, 4]);
  });

  it('indices and ranges keep document order and drop duplicates', () => {
    expect(indices(selectClaims(claims, '4, 1,3-4'))).toEqual([1, 3, 4]);
    expect(indices(selectClaims(claims, '2 - 3'))).toEqual([2, 3]);
  });

  it('ids select their claim; a pattern with a comma inside it stays one pattern', () => {
    const id = claims[2]?.id ?? '';
    expect(indices(selectClaims(claims, `${id},1`))).toEqual([1, 3]);
    expect(indices(selectClaims(claims, '/ring, a/'))).toEqual([3]);
    expect(indices(selectClaims(claims, '/PRIME/i'))).toEqual([1, 4]);
    expect(indices(selectClaims(claims, '/[,/] o/,2'))).toEqual([1, 2]);
  });

  it('unknown indices and ids, backwards ranges and junk are structured errors', () => {
    expect(indices(selectClaims(claims, '5'))).toBe('--claim-select: no claim 5 (the source has 4)');
    expect(indices(selectClaims(claims, '0'))).toBe('--claim-select: no claim 0 (the source has 4)');
    expect(indices(selectClaims(claims, '2-9'))).toBe('--claim-select: no claim 9 (the source has 4)');
    expect(indices(selectClaims(claims, '3-2'))).toBe('--claim-select: range 3-2 runs backwards');
    expect(indices(selectClaims(claims, 'c9-00000000'))).toBe('--claim-select: no claim with id c9-00000000');
    expect(indices(selectClaims(claims, '1,'))).toBe('--claim-select: empty entry in the list');
    expect(indices(selectClaims(claims, 'first'))).toMatch(/^--claim-select: "first" is not an index/);
  });

  it('invalid, unterminated, stateful-flag and nested-quantifier patterns are refused; a pattern that matches nothing selects nothing', () => {
    expect(indices(selectClaims(claims, '/(/'))).toMatch(/^--claim-select: invalid pattern \/\(\/: /);
    expect(indices(selectClaims(claims, '/abc'))).toBe('--claim-select: unterminated pattern "/abc"');
    expect(indices(selectClaims(claims, '/a/g'))).toMatch(/only i, m, s and u are allowed/);
    expect(indices(selectClaims(claims, '/(a+)+$/'))).toMatch(/catastrophic backtracking/);
    expect(indices(selectClaims(claims, `/${'a'.repeat(201)}/`))).toMatch(/longer than 200/);
    expect(indices(selectClaims(claims, '/zebra/'))).toBe('--claim-select: "/zebra/" selects no claim');
  });

  it('a pattern only reads the first 10,000 characters of a huge claim (bounded cost)', () => {
    const r = extractClaimsFromText('h.md', `- ${'x'.repeat(50_000)}needle\n- needle early\n`);
    if (!r.ok) throw new Error(r.error);
    expect(indices(selectClaims(r.claims, '/needle/'))).toEqual([2]);
  });
});
