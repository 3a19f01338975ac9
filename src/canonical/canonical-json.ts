/**
 * Canonical JSON: sorted keys (by Unicode code point), separators `,` and `:`, ASCII only
 * (every non-ASCII character escaped as `\uXXXX`). The same value always yields the same bytes,
 * across runs and processes. This is the form digests and fingerprints are taken over; the run
 * store writes the reference's raw UTF-8 form instead (`canonicalJsonUtf8`), with the same writer.
 *
 * Values that JSON cannot represent faithfully are rejected with a {@link HandoffError} of code
 * `canonical_unsupported`, never silently dropped: `undefined` (as a value, array element or
 * property), non-finite numbers, bigint, functions, symbols, and non-plain objects (Date, Map,
 * class instances…). `-0` is written as `0`.
 *
 * The writer keeps its own stack instead of recursing, so a value nested 100,000 deep is written
 * like any other (no `RangeError`); holding records to a depth limit is validation's job.
 */
import { HandoffError } from '../errors/handoff-error.js';

/**
 * Orders two strings by Unicode code point (what Python's `sort_keys` does), not by UTF-16 code
 * unit (JavaScript's default sort): the two differ when a surrogate pair meets U+E000..U+FFFF.
 *
 * @example
 * ```ts
 * ['😀', '｡'].sort(compareCodePoints); // ['｡', '😀']
 * ```
 */
export function compareCodePoints(a: string, b: string): number {
  const ia = a[Symbol.iterator]();
  const ib = b[Symbol.iterator]();
  for (;;) {
    const x = ia.next();
    const y = ib.next();
    if (x.done) return y.done ? 0 : -1;
    if (y.done) return 1;
    const cx = x.value.codePointAt(0) as number;
    const cy = y.value.codePointAt(0) as number;
    if (cx !== cy) return cx - cy;
  }
}

const NEEDS_ESCAPE = /[\u0000-\u001f"\\\u007f-\uffff]/;

/**
 * A string as canonical JSON writes it: `JSON.stringify`'s escapes, and every code unit above
 * 0x7e as `\uXXXX` (ASCII output).
 *
 * @example
 * ```ts
 * quoteAscii('é"'); // '"\\u00e9\\""'
 * ```
 */
export function quoteAscii(s: string): string {
  const json = JSON.stringify(s);
  if (!NEEDS_ESCAPE.test(s)) return json;
  let out = '';
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    out += c > 0x7e ? `\\u${c.toString(16).padStart(4, '0')}` : json[i];
  }
  return out;
}

function isPlainObject(v: object): boolean {
  const proto = Object.getPrototypeOf(v);
  return proto === Object.prototype || proto === null;
}

function fail(path: string, what: string): never {
  throw new HandoffError('canonical_unsupported', `canonical JSON cannot represent ${what} at ${path}`, {
    details: { path, what },
  });
}

/**
 * How scalars are written: the one part in which the ASCII form and the reference's UTF-8 form
 * differ. `quote` returns null for a string the style cannot write; `number` gets finite numbers.
 */
export interface CanonicalStyle {
  readonly quote: (s: string) => string | null;
  /** What `quote` refused, for the error (e.g. `a lone surrogate`). */
  readonly unquotable: string;
  readonly number: (n: number) => string;
}

const ASCII_STYLE: CanonicalStyle = {
  quote: quoteAscii,
  unquotable: 'a string',
  number: (n) => (Object.is(n, -0) ? '0' : JSON.stringify(n)),
};

/** An array or plain object being written: its members and the index of the next one. */
interface Frame {
  readonly value: object;
  /** Sorted keys of an object; null for an array. */
  readonly keys: string[] | null;
  readonly length: number;
  next: number;
}

/** The `$`-rooted path of the member being written (`$.a[0].b`), rebuilt only for an error. */
function pathOf(stack: readonly Frame[]): string {
  let path = '$';
  for (const f of stack) {
    const i = f.next - 1;
    path += f.keys === null ? `[${i}]` : `.${f.keys[i]}`;
  }
  return path;
}

/**
 * Writes `value` in `style` without recursion: an explicit stack of open arrays and objects, so
 * any depth is written (a deep value is not an error here; records are held to their depth limit
 * elsewhere). Keys are sorted by code point in every style.
 *
 * @example
 * ```ts
 * writeCanonical({ b: 1, a: 2 }, style); // '{"a":2,"b":1}'
 * ```
 * @throws HandoffError `canonical_unsupported`.
 */
export function writeCanonical(root: unknown, style: CanonicalStyle): string {
  const { quote, number } = style;
  const unquotable = (stack: readonly Frame[]): never => fail(pathOf(stack), style.unquotable);
  const stack: Frame[] = [];
  const open = new Set<object>(); // the arrays and objects on the current path (cycle check)
  let out = '';
  let value = root;
  for (;;) {
    // write `value`: a scalar completely, an array or object by opening it
    switch (typeof value) {
      case 'string':
        out += quote(value) ?? unquotable(stack);
        break;
      case 'boolean':
        out += value ? 'true' : 'false';
        break;
      case 'number':
        if (!Number.isFinite(value)) fail(pathOf(stack), `non-finite number ${value}`);
        out += number(value);
        break;
      case 'object': {
        if (value === null) {
          out += 'null';
          break;
        }
        if (open.has(value)) fail(pathOf(stack), 'a cycle');
        if (Array.isArray(value)) {
          open.add(value);
          stack.push({ value, keys: null, length: value.length, next: 0 });
          out += '[';
          break;
        }
        if (!isPlainObject(value))
          fail(pathOf(stack), `a non-plain object (${value.constructor?.name ?? '?'})`);
        const keys = Object.keys(value).sort(compareCodePoints);
        open.add(value);
        stack.push({ value, keys, length: keys.length, next: 0 });
        out += '{';
        break;
      }
      default:
        fail(pathOf(stack), typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`);
    }
    // move to the next member, closing every array and object that is complete
    for (;;) {
      const top = stack[stack.length - 1];
      if (top === undefined) return out;
      if (top.next < top.length) {
        const i = top.next++;
        if (top.keys === null) {
          if (i > 0) out += ',';
          value = (top.value as unknown[])[i];
        } else {
          const k = top.keys[i] as string;
          out += `${i > 0 ? ',' : ''}${quote(k) ?? unquotable(stack)}:`;
          value = (top.value as Record<string, unknown>)[k];
        }
        break;
      }
      out += top.keys === null ? ']' : '}';
      open.delete(top.value);
      stack.pop();
    }
  }
}

/**
 * Serializes `value` as canonical JSON.
 *
 * @example
 * ```ts
 * canonicalJson({ b: 1, a: 'é' }); // '{"a":"\\u00e9","b":1}'
 * ```
 * @throws HandoffError `canonical_unsupported` for undefined, non-finite numbers, bigint,
 * functions, symbols, cycles and non-plain objects.
 */
export function canonicalJson(value: unknown): string {
  return writeCanonical(value, ASCII_STYLE);
}

/**
 * Like {@link canonicalJson} but returns a result instead of throwing.
 *
 * @example
 * ```ts
 * const r = tryCanonicalJson(x); if (!r.ok) console.error(r.error.message);
 * ```
 */
export function tryCanonicalJson(
  value: unknown,
): { ok: true; json: string } | { ok: false; error: HandoffError } {
  try {
    return { ok: true, json: canonicalJson(value) };
  } catch (e) {
    return { ok: false, error: e as HandoffError };
  }
}
