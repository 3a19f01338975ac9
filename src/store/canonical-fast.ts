/**
 * Fast paths to the store's canonical JSON (pure), used on the store's hot paths: serializing an
 * append's payload and checking that a journal line is canonical.
 *
 * The store writes the reference's form, `canonicalJsonUtf8` (raw UTF-8, Python's
 * `json.dumps(…, ensure_ascii=False, separators=(",", ":"), sort_keys=True)`), and reads a line
 * as canonical when it is canonical under that rule **or** under the older all-ASCII rule of
 * `canonicalJson` (every character ≥ U+007F escaped), which runs written before this runtime
 * switched forms use. Both fast paths let V8's `JSON.stringify` do the work when the value's keys
 * are already in canonical order — for a well-formed string `JSON.stringify` writes exactly what
 * Python writes — and fall back to the exact functions otherwise. The fast paths recurse, so they
 * are only taken up to a fixed depth ({@link FAST_CANONICAL_DEPTH}); deeper values go to the exact
 * functions, which do not recurse.
 */
import {
  canonicalJson,
  canonicalJsonUtf8,
  isCanonicalJsonUtf8Text,
  isWellFormedText,
  pythonNumber,
} from '../canonical/index.js';

function codePointLess(a: string, b: string): boolean {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return !y.done;
    if (y.done) return false;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx < cy;
  }
}

/** UTF-16 order equals code point order unless a surrogate meets a char in U+E000..U+FFFF. */
const BELOW_SURROGATES = /^[\u0000-\ud7ff]*$/;

function keyLess(prev: string, k: string): boolean {
  return BELOW_SURROGATES.test(prev) && BELOW_SURROGATES.test(k) ? prev < k : codePointLess(prev, k);
}

/**
 * Values nested deeper than this skip the fast paths (which recurse, as V8's `JSON.stringify`
 * does) and are written or checked by the exact functions, which do not recurse.
 *
 * @example
 * ```ts
 * fastCanonicalJsonUtf8(deeperValue); // same text as canonicalJsonUtf8(deeperValue), without recursion
 * ```
 */
export const FAST_CANONICAL_DEPTH = 200;

/**
 * True when `JSON.stringify` writes finite number `n` as the reference does: integers below 1e21
 * (digits) and above (`1e+21`, Python's float repr too), and non-integers from 1e-4 up (fixed
 * notation in both; a non-integer is below 2^53). Below 1e-4 Python switches to `1e-05`.
 */
const stringifiesAsPython = (n: number): boolean => Number.isInteger(n) || Math.abs(n) >= 1e-4;

/** {@link sortedKeysOf}: not sorted (or too deep: left to the exact path). */
const UNSORTED = 0;
/** {@link sortedKeysOf}: keys sorted, every number stringifies as Python writes it. */
const SORTED = 1;
/** {@link sortedKeysOf}: keys sorted, but a number that `JSON.stringify` writes unlike Python. */
const SORTED_OTHER_NUMBERS = 2;

/**
 * Whether every object in parsed JSON `v` lists its keys in strictly increasing code point order
 * ({@link UNSORTED} when not, or when `v` nests deeper than {@link FAST_CANONICAL_DEPTH}), and
 * whether its numbers stringify as Python writes them.
 */
function sortedKeysOf(v: unknown, depth: number): number {
  if (typeof v === 'number') return stringifiesAsPython(v) ? SORTED : SORTED_OTHER_NUMBERS;
  if (typeof v !== 'object' || v === null) return SORTED;
  if (depth > FAST_CANONICAL_DEPTH) return UNSORTED;
  let r = SORTED;
  if (Array.isArray(v)) {
    for (const x of v) {
      const k = sortedKeysOf(x, depth + 1);
      if (k === UNSORTED) return UNSORTED;
      if (k === SORTED_OTHER_NUMBERS) r = k;
    }
    return r;
  }
  let prev: string | null = null;
  for (const key of Object.keys(v)) {
    if (prev !== null && !keyLess(prev, key)) return UNSORTED;
    const k = sortedKeysOf((v as Record<string, unknown>)[key], depth + 1);
    if (k === UNSORTED) return UNSORTED;
    if (k === SORTED_OTHER_NUMBERS) r = k;
    prev = key;
  }
  return r;
}

/**
 * True when `v` is plain JSON data whose object keys are already in canonical order and whose
 * numbers `JSON.stringify` writes as Python does: only plain objects and dense arrays, strings,
 * finite numbers, booleans and null, no cycles. For such a value `JSON.stringify` produces the
 * reference's canonical text, unless a string holds a lone surrogate (checked on the output).
 */
function plainSorted(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v) && stringifiesAsPython(v);
    case 'object': {
      if (v === null) return true;
      if (depth > FAST_CANONICAL_DEPTH) return false; // deep or cyclic: let the exact writer decide
      if (Array.isArray(v)) {
        for (let i = 0; i < v.length; i++) {
          if (!(i in v) || !plainSorted(v[i], depth + 1)) return false;
        }
        return true;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return false;
      let prev: string | null = null;
      for (const k of Object.keys(v)) {
        if (prev !== null && !keyLess(prev, k)) return false;
        if (!plainSorted((v as Record<string, unknown>)[k], depth + 1)) return false;
        prev = k;
      }
      return true;
    }
    default:
      return false;
  }
}

/**
 * `JSON.stringify` writes a lone surrogate as `\udXXX`; any `\ud` in its output (also a false
 * alarm such as an escaped backslash before `ud`) sends the value to the exact path.
 */
const maySurrogateEscape = (json: string): boolean => json.includes('\\ud');

const byCodePoint = (a: string, b: string): number => (codePointLess(a, b) ? -1 : 1); // keys are distinct
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/** Keys in code point order: the native (UTF-16) sort agrees unless a key has a char ≥ U+D800. */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  for (const k of keys) if (SURROGATE_OR_ABOVE.test(k)) return keys.sort(byCodePoint);
  return keys.sort();
}

/** A JSON string literal of `s` as the reference writes it, or null for a lone surrogate. */
function quoteUtf8(s: string): string | null {
  const json = JSON.stringify(s);
  return maySurrogateEscape(json) && !isWellFormedText(s) ? null : json;
}

/**
 * Reference canonical JSON of plain JSON data, or null for anything `canonicalJsonUtf8` refuses
 * (and for very deep or cyclic values, which are left to it). No path bookkeeping: errors are
 * `canonicalJsonUtf8`'s.
 */
function writeFast(v: unknown, depth: number): string | null {
  switch (typeof v) {
    case 'string':
      return quoteUtf8(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? pythonNumber(v) : null;
    case 'object': {
      if (v === null) return 'null';
      if (depth > FAST_CANONICAL_DEPTH) return null;
      if (Array.isArray(v)) {
        let out = '[';
        for (let i = 0; i < v.length; i++) {
          if (!(i in v)) return null;
          const x = writeFast(v[i], depth + 1);
          if (x === null) return null;
          out += i === 0 ? x : `,${x}`;
        }
        return `${out}]`;
      }
      const proto = Object.getPrototypeOf(v);
      if (proto !== Object.prototype && proto !== null) return null;
      const keys = sortedKeys(v);
      let out = '{';
      for (let i = 0; i < keys.length; i++) {
        const k = keys[i] as string;
        const q = quoteUtf8(k);
        if (q === null) return null;
        const x = writeFast((v as Record<string, unknown>)[k], depth + 1);
        if (x === null) return null;
        out += `${i === 0 ? '' : ','}${q}:${x}`;
      }
      return `${out}}`;
    }
    default:
      return null;
  }
}

/**
 * `canonicalJsonUtf8(value)`, faster: V8's `JSON.stringify` when the keys are already sorted
 * (records parsed from canonical text), else a lean serializer; anything unusual (non-plain
 * objects, undefined, non-finite numbers, lone surrogates, cycles…) is left to
 * `canonicalJsonUtf8`. Same result, same errors. What the store writes for every payload.
 *
 * @example
 * ```ts
 * fastCanonicalJsonUtf8({ kind: 'candidate', lean: null, text: '⊢ a ≤ b' }); // '{"kind":"candidate","lean":null,"text":"⊢ a ≤ b"}'
 * fastCanonicalJsonUtf8({ b: 1, a: 2 }); // '{"a":2,"b":1}' (the lean serializer)
 * ```
 * @throws HandoffError `canonical_unsupported`, exactly like `canonicalJsonUtf8`.
 */
export function fastCanonicalJsonUtf8(value: unknown): string {
  if (plainSorted(value, 0)) {
    const json = JSON.stringify(value);
    if (!maySurrogateEscape(json)) return json;
  }
  return writeFast(value, 0) ?? canonicalJsonUtf8(value);
}

const NON_ASCII = /[\u007f-\uffff]/g;
const HAS_NON_ASCII = /[\u007f-\uffff]/;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/**
 * True when `text` is exactly `canonicalJson(value)` (as parsed from `text`): the all-ASCII rule —
 * keys sorted by code point at every level, compact, every character ≥ U+007F escaped. Equivalent
 * to `canonicalJson(value) === text` for parsed JSON, several times faster. Any depth: values
 * nested deeper than the fast path allows go to `canonicalJson`, which does not recurse, so this
 * never throws on parsed JSON.
 *
 * @example
 * ```ts
 * isCanonicalText('{"a":1,"b":2}', { a: 1, b: 2 }); // true
 * isCanonicalText('{"a":"⊢"}', { a: '⊢' }); // false: the ASCII rule escapes it
 * ```
 */
export function isCanonicalText(text: string, value: unknown): boolean {
  // fast path: V8's stringify follows Object.keys order, so equality plus sorted keys is canonical
  if (sortedKeysOf(value, 0) !== UNSORTED) {
    const json = JSON.stringify(value);
    if ((HAS_NON_ASCII.test(json) ? json.replace(NON_ASCII, escapeChar) : json) === text) return true;
  }
  // exact path (integer-like keys are reordered by JS objects, so the fast path can miss)
  return !HAS_NON_ASCII.test(text) && canonicalJson(value) === text; // parsed JSON is always representable
}

/**
 * True when `text`, a journal line or manifest whose parsed value is `value`, is canonical under
 * **either** rule the store reads: the reference's raw UTF-8 form (what the store writes now, and
 * what lean4-skills writes) or the older all-ASCII form ({@link isCanonicalText}). Anything else —
 * spacing, key order, an escape neither writer produces, a float token Python would write
 * differently — is not. One `JSON.stringify` on the fast path; the exact checks otherwise
 * (`canonicalJson` for the ASCII form, `isCanonicalJsonUtf8Text` over the text itself for the
 * reference form). Never throws on parsed JSON.
 *
 * @example
 * ```ts
 * isCanonicalLine('{"a":"⊢"}', { a: '⊢' }); // true (reference form)
 * isCanonicalLine('{"a":"\\u22a2"}', { a: '⊢' }); // true (older ASCII form)
 * isCanonicalLine('{"a":"⊢"}\r', { a: '⊢' }); // false
 * ```
 */
export function isCanonicalLine(text: string, value: unknown): boolean {
  const sorted = sortedKeysOf(value, 0);
  if (sorted !== UNSORTED) {
    const json = JSON.stringify(value);
    if (!HAS_NON_ASCII.test(json)) {
      // all ASCII: the ASCII form (numbers as JSON.stringify writes them)
      if (json === text) return true;
    } else if (json === text) {
      // raw non-ASCII: the reference form, when no lone surrogate was escaped
      if (sorted === SORTED && !maySurrogateEscape(json)) return true;
    } else if (json.replace(NON_ASCII, escapeChar) === text) return true; // the ASCII form
  }
  if (!HAS_NON_ASCII.test(text) && canonicalJson(value) === text) return true;
  return isCanonicalJsonUtf8Text(text);
}

/**
 * Why `value` cannot be written in the store's form (the `canonical_unsupported` message — e.g. a
 * string with a lone surrogate, which UTF-8 cannot encode), or null when it can. Every backend
 * refuses such a record before anything is written, as the reference does.
 *
 * @example
 * ```ts
 * unwritableIn({ text: '⊢' }); // null
 * unwritableIn({ text: '\ud800' }); // 'canonical JSON cannot represent a lone surrogate … at $.text'
 * ```
 */
export function unwritableIn(value: unknown): string | null {
  try {
    fastCanonicalJsonUtf8(value);
    return null;
  } catch (e) {
    return String((e as Error)?.message ?? e);
  }
}
