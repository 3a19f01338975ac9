/**
 * `--claim-select` (layer 1, pure): which claims of the queue the outer loop works on.
 */
import type { Claim, ClaimsResult } from './types.js';

/** The longest `/regex/` accepted, in characters. */
const MAX_PATTERN = 200;
/** How much of a claim's text a `/regex/` is tried on (keeps a slow pattern's cost bounded). */
const MAX_MATCHED_TEXT = 10_000;
/** A group that holds a quantifier and is itself repeated: `(a+)+`, `(x*y)*`, `(?:a|b+){2,}`. */
const NESTED_QUANTIFIER = /\((?:[^()\\]|\\.)*[*+}](?:[^()\\]|\\.)*\)\s*[*+{]/;

type Term =
  | { readonly kind: 'range'; readonly from: number; readonly to: number; readonly raw: string }
  | { readonly kind: 'id'; readonly id: string }
  | { readonly kind: 'regex'; readonly re: RegExp };

/** Splits the list on commas outside `/…/` patterns. */
function split(select: string): string[] | string {
  const terms: string[] = [];
  let i = 0;
  while (i <= select.length) {
    while (select[i] === ' ' || select[i] === '\t') i += 1;
    if (select[i] === '/') {
      let j = i + 1;
      let inClass = false;
      for (; j < select.length; j += 1) {
        const ch = select[j];
        if (ch === '\\') j += 1;
        else if (ch === '[') inClass = true;
        else if (ch === ']') inClass = false;
        else if (ch === '/' && !inClass) break;
      }
      if (j >= select.length) return `unterminated pattern ${JSON.stringify(select.slice(i, i + 40))}`;
      const comma = select.indexOf(',', j);
      const end = comma < 0 ? select.length : comma;
      terms.push(select.slice(i, end).trim());
      i = end + 1;
      continue;
    }
    const comma = select.indexOf(',', i);
    const end = comma < 0 ? select.length : comma;
    terms.push(select.slice(i, end).trim());
    i = end + 1;
  }
  return terms;
}

function parseTerm(raw: string): Term | string {
  if (raw === '') return 'empty entry in the list';
  const range = /^(\d{1,9})(?:\s*-\s*(\d{1,9}))?$/.exec(raw);
  if (range !== null) {
    const from = Number(range[1]);
    const to = range[2] === undefined ? from : Number(range[2]);
    if (to < from) return `range ${raw} runs backwards`;
    return { kind: 'range', from, to, raw };
  }
  if (/^c\d{1,9}-[0-9a-f]{8}$/.test(raw)) return { kind: 'id', id: raw };
  const pattern = /^\/(.*)\/([a-z]*)$/s.exec(raw);
  if (pattern !== null) {
    const [, source = '', flags = ''] = pattern;
    if (source.length > MAX_PATTERN) return `pattern longer than ${MAX_PATTERN} characters`;
    if (!/^[imsu]*$/.test(flags))
      return `pattern flags ${JSON.stringify(flags)}: only i, m, s and u are allowed`;
    if (NESTED_QUANTIFIER.test(source)) {
      return `pattern /${source}/ repeats a repeated group (catastrophic backtracking risk); simplify it`;
    }
    try {
      return { kind: 'regex', re: new RegExp(source, flags) };
    } catch (e) {
      return `invalid pattern /${source}/: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
  return `${JSON.stringify(raw)} is not an index (3), a range (1-4), a claim id (c2-1a2b3c4d) or a /pattern/`;
}

/**
 * The claims `select` picks, in document order, each once. `select` is a comma-separated list of
 * 1-based indices and ranges (`1,3-4`), claim ids (`c2-1a2b3c4d`) and `/regex/flags` tried on each
 * claim's text (its first 10,000 characters; flags `imsu`); undefined or blank selects every claim.
 * An unknown index or id, an invalid or nested-quantifier pattern, or a selection of nothing is a
 * structured error.
 *
 * @example
 * ```ts
 * selectClaims(claims, '1,3-4');          // claims 1, 3 and 4
 * selectClaims(claims, '/prime/i,c2-…');  // those mentioning "prime", and claim c2
 * selectClaims(claims, '9');              // { ok: false, error: '--claim-select: no claim 9 (the source has 4)' }
 * ```
 */
export function selectClaims(claims: readonly Claim[], select: string | undefined): ClaimsResult {
  if (select === undefined || select.trim() === '') return { ok: true, claims: [...claims] };
  const fail = (why: string): ClaimsResult => ({ ok: false, error: `--claim-select: ${why}` });
  const parts = split(select);
  if (typeof parts === 'string') return fail(parts);
  const chosen = new Set<number>();
  for (const raw of parts) {
    const term = parseTerm(raw);
    if (typeof term === 'string') return fail(term);
    if (term.kind === 'range') {
      for (const n of [term.from, term.to]) {
        if (n < 1 || n > claims.length) return fail(`no claim ${n} (the source has ${claims.length})`);
      }
      for (let n = term.from; n <= term.to; n += 1) chosen.add(n);
    } else if (term.kind === 'id') {
      const claim = claims.find((c) => c.id === term.id);
      if (claim === undefined) return fail(`no claim with id ${term.id}`);
      chosen.add(claim.index);
    } else {
      for (const c of claims) if (term.re.test(c.text.slice(0, MAX_MATCHED_TEXT))) chosen.add(c.index);
    }
  }
  const picked = claims.filter((c) => chosen.has(c.index));
  if (picked.length === 0) return fail(`${JSON.stringify(select)} selects no claim`);
  return { ok: true, claims: picked };
}
