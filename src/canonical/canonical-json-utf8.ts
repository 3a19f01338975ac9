/**
 * The reference's canonical JSON, raw UTF-8: what lean4-skills' `run_store.py` writes for every
 * manifest, journal line and handoff cache — Python's
 * `json.dumps(obj, ensure_ascii=False, separators=(",", ":"), sort_keys=True)`. Pinned against
 * python3 (test/canonical/canonical-json-utf8.test.ts, test/interop/fixtures/python-dumps.json):
 *
 * - keys sorted by code point at every level (Python sorts `str` by code point; JavaScript's
 *   default sort is by UTF-16 unit, which differs for astral characters), separators `,` and `:`;
 * - strings: `"` and `\` escaped, `\b \t \n \f \r` in short form, every other character below
 *   U+0020 as `\u00xx` (lower-case hex); everything else raw — U+007F, non-ASCII, U+2028/U+2029,
 *   astral characters — and `/` not escaped. This is exactly what `JSON.stringify` writes for a
 *   well-formed string;
 * - a lone surrogate cannot be encoded as UTF-8 (the reference refuses such a payload before
 *   writing anything): `canonical_unsupported`;
 * - numbers: an integral number below 1e21 in magnitude as its decimal digits (a Python `int`),
 *   anything else as Python's `repr(float)` — shortest round-trip digits, exponent form below
 *   1e-4 and from 1e16 with a signed exponent of at least two digits (`1e-05`, `1e+21`). JSON
 *   values in JavaScript do not keep Python's int/float distinction, so an integral float that
 *   Python writes as `1.0` is written here as `1`; `-0` is written as `0`.
 *
 * {@link isCanonicalJsonUtf8Text} is the exact check of a text against this rule, taking the
 * text's own number tokens as Python reads them (`1.0` is a float, `10000000000000000000000` an
 * int), so a line the reference wrote is recognised even where the JavaScript value lost that.
 */
import { type CanonicalStyle, compareCodePoints, writeCanonical } from './canonical-json.js';

const LONE_SURROGATE = /\p{Cs}/u;
const nativeWellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed;

/**
 * True when `s` has no lone surrogate, i.e. can be encoded as UTF-8.
 *
 * @example
 * ```ts
 * isWellFormedText('⊢ a ≤ b'); // true
 * isWellFormedText('\ud800'); // false
 * ```
 */
export function isWellFormedText(s: string): boolean {
  return nativeWellFormed !== undefined ? nativeWellFormed.call(s) : !LONE_SURROGATE.test(s);
}

/**
 * Python's `repr` of a float (what `json.dumps` writes for one): the shortest digits that read
 * back as the same double, in fixed notation from 1e-4 up to (not including) 1e16 with at least
 * one digit after the point, else `d.ddde±XX`.
 *
 * @example
 * ```ts
 * pythonFloatRepr(1); // '1.0'
 * pythonFloatRepr(0.00001); // '1e-05'
 * pythonFloatRepr(1e16); // '1e+16'
 * ```
 */
export function pythonFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const sign = x < 0 ? '-' : '';
  // toExponential() without an argument gives the shortest round-trip digits, as repr does
  const [mantissa, e] = Math.abs(x).toExponential().split('e') as [string, string];
  const digits = mantissa.replace('.', '');
  const exp = Number(e);
  if (exp >= -4 && exp < 16) {
    if (exp < 0) return `${sign}0.${'0'.repeat(-exp - 1)}${digits}`;
    if (digits.length <= exp + 1) return `${sign}${digits}${'0'.repeat(exp + 1 - digits.length)}.0`;
    return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
  }
  const m = digits.length === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
}

/**
 * A finite number as the reference writes it: an integral number below 1e21 in magnitude as
 * digits (`-0` as `0`), anything else as {@link pythonFloatRepr}.
 *
 * @example
 * ```ts
 * pythonNumber(3); // '3'
 * pythonNumber(1.5e-7); // '1.5e-07'
 * ```
 */
export function pythonNumber(n: number): string {
  if (Number.isInteger(n) && Math.abs(n) < 1e21) return Object.is(n, -0) ? '0' : JSON.stringify(n);
  return pythonFloatRepr(n);
}

const UTF8_STYLE: CanonicalStyle = {
  quote: (s) => (isWellFormedText(s) ? JSON.stringify(s) : null),
  unquotable: 'a lone surrogate (not encodable as UTF-8)',
  number: pythonNumber,
};

/**
 * Serializes `value` as the reference's canonical JSON with raw UTF-8 (see the module comment):
 * byte-identical, once encoded as UTF-8, to Python's
 * `json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)`.
 *
 * @example
 * ```ts
 * canonicalJsonUtf8({ text: 'closes ⊢ a ≤ b', kind: 'candidate' }); // '{"kind":"candidate","text":"closes ⊢ a ≤ b"}'
 * ```
 * @throws HandoffError `canonical_unsupported` for what {@link canonicalJson} refuses and for a
 * string with a lone surrogate.
 */
export function canonicalJsonUtf8(value: unknown): string {
  return writeCanonical(value, UTF8_STYLE);
}

const NUMBER_TOKEN = /-?(?:0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const HEX = /^00[01][0-9a-f]$/;
/** Escapes the reference writes in short form (so `\u0008` etc. are never canonical). */
const SHORT_ESCAPES: Readonly<Record<string, string>> = {
  '"': '"',
  '\\': '\\',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
};

/** A container being checked: an object (with the last key seen) or an array. */
interface Open {
  readonly object: boolean;
  last: string;
}

/**
 * True when `text` is exactly what the reference writes for the value it denotes — Python's
 * `json.dumps(json.loads(text), ensure_ascii=False, separators=(",", ":"), sort_keys=True) ==
 * text`: no whitespace, keys strictly increasing by code point (so no duplicates), strings with
 * exactly the reference's escapes and no lone surrogate, integers without a sign on zero, float
 * tokens equal to Python's repr of their value. Works on the text alone (numbers keep Python's
 * int/float distinction) and without recursion (any depth).
 *
 * @example
 * ```ts
 * isCanonicalJsonUtf8Text('{"a":1.0,"b":"⊢"}'); // true
 * isCanonicalJsonUtf8Text('{"b":1,"a":2}'); // false (key order)
 * isCanonicalJsonUtf8Text('{"a":"\\u22a2"}'); // false (the reference writes ⊢ raw)
 * ```
 */
export function isCanonicalJsonUtf8Text(text: string): boolean {
  const n = text.length;
  let i = 0;

  /** The string starting at `i` (decoded), advancing `i` past it; null when not canonical. */
  const scanString = (): string | null => {
    if (text.charCodeAt(i) !== 0x22) return null;
    i++;
    let out = '';
    let start = i;
    for (;;) {
      if (i >= n) return null;
      const c = text.charCodeAt(i);
      if (c === 0x22) {
        out += text.slice(start, i);
        i++;
        return out;
      }
      if (c < 0x20) return null;
      if (c === 0x5c) {
        out += text.slice(start, i);
        const e = text[i + 1] ?? '';
        const short = SHORT_ESCAPES[e];
        if (short !== undefined) {
          out += short;
          i += 2;
        } else if (e === 'u') {
          const hex = text.slice(i + 2, i + 6);
          if (!HEX.test(hex)) return null;
          const code = Number.parseInt(hex, 16);
          if (code === 0x08 || code === 0x09 || code === 0x0a || code === 0x0c || code === 0x0d) return null;
          out += String.fromCharCode(code);
          i += 6;
        } else return null; // `\/` and anything else: never written by the reference
        start = i;
        continue;
      }
      if (c >= 0xd800 && c <= 0xdfff) {
        const d = text.charCodeAt(i + 1);
        if (c > 0xdbff || !(d >= 0xdc00 && d <= 0xdfff)) return null; // a lone surrogate
        i += 2;
        continue;
      }
      i++;
    }
  };

  const scanNumber = (): boolean => {
    NUMBER_TOKEN.lastIndex = i;
    const m = NUMBER_TOKEN.exec(text);
    if (m === null) return false;
    const token = m[0];
    i += token.length;
    if (m[1] === undefined && m[2] === undefined) return token !== '-0'; // a Python int
    return pythonFloatRepr(Number(token)) === token;
  };

  const stack: Open[] = [];
  for (;;) {
    // one value at i: a scalar completely, an object or array by opening it
    const c = text.charCodeAt(i);
    let opened = false;
    if (c === 0x7b) {
      i++;
      if (text.charCodeAt(i) === 0x7d) i++;
      else {
        const k = scanString();
        if (k === null || text.charCodeAt(i) !== 0x3a) return false;
        i++;
        stack.push({ object: true, last: k });
        opened = true;
      }
    } else if (c === 0x5b) {
      i++;
      if (text.charCodeAt(i) === 0x5d) i++;
      else {
        stack.push({ object: false, last: '' });
        opened = true;
      }
    } else if (c === 0x22) {
      if (scanString() === null) return false;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      if (!scanNumber()) return false;
    } else if (text.startsWith('true', i)) i += 4;
    else if (text.startsWith('false', i)) i += 5;
    else if (text.startsWith('null', i)) i += 4;
    else return false;
    if (opened) continue;
    // after a value: the next member, or close what is complete
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return i === n;
      const d = text.charCodeAt(i);
      if (d === 0x2c) {
        i++;
        if (top.object) {
          const k = scanString();
          if (k === null || compareCodePoints(top.last, k) >= 0 || text.charCodeAt(i) !== 0x3a) return false;
          top.last = k;
          i++;
        }
        break;
      }
      if (d !== (top.object ? 0x7d : 0x5d)) return false;
      i++;
      stack.pop();
    }
  }
}
