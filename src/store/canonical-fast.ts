/**
 * Fast paths to canonical JSON (pure), used on the store's hot paths: serializing an append's
 * payload and checking that a journal line is canonical. Both agree exactly with
 * `canonicalJson` (keys sorted by code point, compact, every character ≥ U+007F escaped): they
 * let V8's `JSON.stringify` do the work when the value's keys are already in canonical order and
 * fall back to `canonicalJson` otherwise. The fast paths recurse, so they are only taken up to a
 * fixed depth ({@link FAST_CANONICAL_DEPTH}); deeper values go to `canonicalJson`, which does not recurse.
 */
import { canonicalJson } from '../canonical/index.js';

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
 * does) and are written or checked by `canonicalJson`, which does not recurse.
 *
 * @example
 * ```ts
 * fastCanonicalJson(deeperValue); // same text as canonicalJson(deeperValue), without recursion
 * ```
 */
export const FAST_CANONICAL_DEPTH = 200;

/**
 * True when every object in parsed JSON `v` lists its keys in strictly increasing code point
 * order; false too when `v` nests deeper than {@link FAST_CANONICAL_DEPTH} (left to the exact path).
 */
function keysSorted(v: unknown, depth: number): boolean {
  if (typeof v !== 'object' || v === null) return true;
  if (depth > FAST_CANONICAL_DEPTH) return false;
  if (Array.isArray(v)) {
    for (const x of v) if (!keysSorted(x, depth + 1)) return false;
    return true;
  }
  let prev: string | null = null;
  for (const k of Object.keys(v)) {
    if (prev !== null && !keyLess(prev, k)) return false;
    if (!keysSorted((v as Record<string, unknown>)[k], depth + 1)) return false;
    prev = k;
  }
  return true;
}

/**
 * True when `v` is plain JSON data whose object keys are already in canonical order: only plain
 * objects and dense arrays, strings, finite numbers, booleans and null, no cycles. For such a
 * value `JSON.stringify` produces the canonical text up to the escaping of non-ASCII characters.
 */
function plainSorted(v: unknown, depth: number): boolean {
  switch (typeof v) {
    case 'string':
    case 'boolean':
      return true;
    case 'number':
      return Number.isFinite(v);
    case 'object': {
      if (v === null) return true;
      if (depth > FAST_CANONICAL_DEPTH) return false; // deep or cyclic: let canonicalJson decide
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

const NON_ASCII = /[\u007f-\uffff]/g;
const HAS_NON_ASCII = /[\u007f-\uffff]/;
const escapeChar = (c: string): string => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

function escapeNonAscii(json: string): string {
  return HAS_NON_ASCII.test(json) ? json.replace(NON_ASCII, escapeChar) : json;
}

const byCodePoint = (a: string, b: string): number => (codePointLess(a, b) ? -1 : 1); // keys are distinct
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/** Keys in code point order: the native (UTF-16) sort agrees unless a key has a char ≥ U+D800. */
function sortedKeys(v: object): string[] {
  const keys = Object.keys(v);
  for (const k of keys) if (SURROGATE_OR_ABOVE.test(k)) return keys.sort(byCodePoint);
  return keys.sort();
}

/**
 * Canonical JSON of plain JSON data, or null for anything `canonicalJson` refuses (and for very
 * deep or cyclic values, which are left to it). No path bookkeeping: errors are `canonicalJson`'s.
 */
function writeFast(v: unknown, depth: number): string | null {
  switch (typeof v) {
    case 'string':
      return escapeNonAscii(JSON.stringify(v));
    case 'boolean':
      return v ? 'true' : 'false';
    case 'number':
      return Number.isFinite(v) ? JSON.stringify(v) : null; // JSON.stringify(-0) is '0'
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
        const x = writeFast((v as Record<string, unknown>)[k], depth + 1);
        if (x === null) return null;
        out += `${i === 0 ? '' : ','}${escapeNonAscii(JSON.stringify(k))}:${x}`;
      }
      return `${out}}`;
    }
    default:
      return null;
  }
}

/**
 * `canonicalJson(value)`, faster: V8's `JSON.stringify` when the keys are already sorted (records
 * parsed from canonical text), else a lean serializer; anything unusual (non-plain objects,
 * undefined, non-finite numbers, cycles…) is left to `canonicalJson`. Same result, same errors.
 *
 * @example
 * ```ts
 * fastCanonicalJson({ kind: 'candidate', lean: null, text: 'é' }); // '{"kind":"candidate","lean":null,"text":"\\u00e9"}'
 * fastCanonicalJson({ b: 1, a: 2 }); // '{"a":2,"b":1}' (falls back to canonicalJson)
 * ```
 * @throws HandoffError `canonical_unsupported`, exactly like `canonicalJson`.
 */
export function fastCanonicalJson(value: unknown): string {
  if (plainSorted(value, 0)) return escapeNonAscii(JSON.stringify(value));
  return writeFast(value, 0) ?? canonicalJson(value);
}

/**
 * True when `text` is exactly the canonical JSON of `value` (as parsed from `text`): keys sorted
 * by code point at every level, compact, every non-ASCII character escaped. Equivalent to
 * `canonicalJson(value) === text` for parsed JSON, several times faster on the load path. Any
 * depth: values nested deeper than the fast path allows go to `canonicalJson`, which does not
 * recurse, so this never throws on parsed JSON.
 *
 * @example
 * ```ts
 * isCanonicalText('{"a":1,"b":2}', { a: 1, b: 2 }); // true
 * isCanonicalText('{"b":2,"a":1}', { b: 2, a: 1 }); // false
 * ```
 */
export function isCanonicalText(text: string, value: unknown): boolean {
  // fast path: V8's stringify follows Object.keys order, so equality plus sorted keys is canonical
  if (keysSorted(value, 0) && escapeNonAscii(JSON.stringify(value)) === text) return true;
  // exact path (integer-like keys are reordered by JS objects, so the fast path can miss)
  return canonicalJson(value) === text; // parsed JSON is always representable
}
