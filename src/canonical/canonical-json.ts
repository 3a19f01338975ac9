/**
 * Canonical JSON: sorted keys (by Unicode code point), separators `,` and `:`, ASCII only
 * (every non-ASCII character escaped as `\uXXXX`). The same value always yields the same bytes,
 * across runs and processes.
 *
 * Values that JSON cannot represent faithfully are rejected with a {@link HandoffError} of code
 * `canonical_unsupported`, never silently dropped: `undefined` (as a value, array element or
 * property), non-finite numbers, bigint, functions, symbols, and non-plain objects (Date, Map,
 * class instances…). `-0` is written as `0`.
 */
import { HandoffError } from '../errors/index.js';

function compareCodePoints(a: string, b: string): number {
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

function quote(s: string): string {
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

function write(value: unknown, path: string, seen: Set<object>): string {
  switch (typeof value) {
    case 'string':
      return quote(value);
    case 'boolean':
      return value ? 'true' : 'false';
    case 'number':
      if (!Number.isFinite(value)) return fail(path, `non-finite number ${value}`);
      return Object.is(value, -0) ? '0' : JSON.stringify(value);
    case 'object': {
      if (value === null) return 'null';
      if (seen.has(value)) return fail(path, 'a cycle');
      seen.add(value);
      try {
        if (Array.isArray(value)) {
          const parts: string[] = [];
          for (let i = 0; i < value.length; i++) parts.push(write(value[i], `${path}[${i}]`, seen));
          return `[${parts.join(',')}]`;
        }
        if (!isPlainObject(value))
          return fail(path, `a non-plain object (${value.constructor?.name ?? '?'})`);
        const keys = Object.keys(value).sort(compareCodePoints);
        const parts: string[] = [];
        for (const k of keys) {
          parts.push(`${quote(k)}:${write((value as Record<string, unknown>)[k], `${path}.${k}`, seen)}`);
        }
        return `{${parts.join(',')}}`;
      } finally {
        seen.delete(value);
      }
    }
    default:
      return fail(path, typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`);
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
  return write(value, '$', new Set());
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
