/**
 * Canonical JSON with a memo of deep-frozen subtrees (pure: no I/O, no clock). A baton revision
 * shares almost all of its content with the one before it (immer's structural sharing: the
 * records, values and receipts that did not change are the same frozen objects), so the journal
 * line and the fingerprint of revision n + 1 only need the text of what is new. The text of every
 * deep-frozen array or plain object written here is kept in a `WeakMap` keyed by the object (it
 * lives exactly as long as the object) and reused the next time the object is met.
 *
 * The output is byte-for-byte `canonicalJson(value)` (src/canonical): the same ASCII-only string
 * quoting, `-0` as `0`, keys ordered by `compareCodePoints` (test/chain/canonical-memo.test.ts holds
 * the two writers to the same bytes on generated values). Only data that cannot
 * change is memoized — a frozen array or plain object whose own properties are all data
 * properties and whose members are scalars or memoized themselves; anything else is written
 * afresh every time. Whatever this writer does not handle itself (a cycle, a non-plain object, a
 * value canonical JSON refuses, a very deep value) is handed to `canonicalJson(value)` whole, so
 * its errors (`canonical_unsupported`, with the path) are exactly the canonical writer's.
 */
import { canonicalJson, compareCodePoints, quoteAscii } from '../canonical/index.js';

const MEMO = new WeakMap<object, string>();

/**
 * Deep-frozen values near the root written once (not yet memoized): such a value is memoized when
 * it is written the second time, so what is written only once (a revision's own baton object, its
 * new arrays) costs no memo entry.
 */
const SEEN = new WeakSet<object>();

/**
 * From this depth on a value is memoized the first time it is written. A journal line is
 * `{…, baton: {records: [record…], stage_receipts: [receipt…]}}`: the records and receipts (depth 3)
 * and everything in them are what later revisions share, while the line, the baton and its arrays
 * (depth 0–2) are new in every revision — those are memoized only when met a second time.
 */
const EAGER_DEPTH = 3;

/** Texts shorter than this are cheaper to write again than to keep. */
const MEMO_MIN_LENGTH = 128;

/**
 * Depth beyond which the whole value is left to the (non-recursive) canonical writer — a very deep
 * value, or a cycle (which this walk would follow until here).
 */
const MAX_DEPTH = 256;

/** Thrown inside the walk to hand the whole value to `canonicalJson`. */
const DEFER = Symbol('defer to canonicalJson');

/** UTF-16 order: the same as code point order for strings without surrogates. */
const byCodeUnit = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

const SURROGATE = /[\ud800-\udfff]/;
const hasSurrogate = (k: string): boolean => SURROGATE.test(k);

/** Quoted keys (keys repeat across records); cleared when it grows large. */
const KEYS = new Map<string, string>();

function quoteKey(k: string): string {
  let q = KEYS.get(k);
  if (q === undefined) {
    if (KEYS.size >= 4096) KEYS.clear();
    q = quoteAscii(k);
    KEYS.set(k, q);
  }
  return q;
}

/** The walk's answer besides the text: whether the value may be memoized by its container. */
let fixedOut = true;

/** Writes `v` and sets {@link fixedOut}. */
function write(v: unknown, depth: number): string {
  switch (typeof v) {
    case 'string':
      fixedOut = true;
      return quoteAscii(v);
    case 'boolean':
      fixedOut = true;
      return v ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(v)) throw DEFER;
      fixedOut = true;
      return Object.is(v, -0) ? '0' : JSON.stringify(v);
    case 'object':
      break;
    default:
      throw DEFER; // undefined, bigint, function, symbol: canonicalJson reports it with its path
  }
  if (v === null) {
    fixedOut = true;
    return 'null';
  }
  const known = MEMO.get(v);
  if (known !== undefined) {
    fixedOut = true;
    return known;
  }
  if (depth > MAX_DEPTH) throw DEFER; // also how a cycle ends: canonicalJson names it
  const isArray = Array.isArray(v);
  if (!isArray) {
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) throw DEFER;
  }
  let fixed = Object.isFrozen(v);
  let text: string;
  if (isArray) {
    const arr = v as readonly unknown[];
    text = '[';
    for (let i = 0; i < arr.length; i++) {
      if (fixed && !isDataProperty(arr, i)) fixed = false;
      const t = write(arr[i], depth + 1);
      if (!fixedOut) fixed = false;
      text += i === 0 ? t : `,${t}`;
    }
    text += ']';
  } else {
    const obj = v as Record<string, unknown>;
    const keys = Object.keys(obj);
    if (keys.length > 1) keys.sort(keys.some(hasSurrogate) ? compareCodePoints : byCodeUnit);
    text = '{';
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i] as string;
      if (fixed && !isDataProperty(obj, k)) fixed = false;
      const t = write(obj[k], depth + 1);
      if (!fixedOut) fixed = false;
      text += `${i === 0 ? '' : ','}${quoteKey(k)}:${t}`;
    }
    text += '}';
  }
  if (fixed && text.length >= MEMO_MIN_LENGTH) {
    if (depth >= EAGER_DEPTH || SEEN.has(v)) MEMO.set(v, text);
    else SEEN.add(v);
  }
  fixedOut = fixed;
  return text;
}

function isDataProperty(o: object, k: string | number): boolean {
  const d = Object.getOwnPropertyDescriptor(o, k);
  return d !== undefined && 'value' in d;
}

/**
 * `canonicalJson(value)`, reusing the text of deep-frozen arrays and plain objects it has written
 * before (see the file comment). Same bytes, same errors.
 *
 * @example
 * ```ts
 * const line = memoCanonicalJson({ v: 1, baton }); // === canonicalJson({ v: 1, baton })
 * memoCanonicalJson(nextBaton); // only the parts nextBaton does not share with baton are walked
 * ```
 * @throws HandoffError `canonical_unsupported` exactly when `canonicalJson(value)` does.
 */
export function memoCanonicalJson(value: unknown): string {
  try {
    return write(value, 0);
  } catch {
    // DEFER, or anything the walk met (a throwing getter, a revoked proxy): the canonical writer
    // answers for the whole value — its text, or its own error with its path
    return canonicalJson(value);
  }
}
