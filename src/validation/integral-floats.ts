/**
 * Integral floats in integer fields (issue 34): `"seq":1.0`, `"max_cycles":20.0`, `"size":12.0`.
 * The reference implementations (Python) read `1.0` as a float and refuse it wherever they require
 * an `int`; `JSON.parse` reads it as the number 1 and the difference is lost. So the check runs on
 * the JSON text a record was parsed from: find every number token written with a fraction or an
 * exponent whose value is an integer, and ask the record's own validator whether the field it
 * sits in is an integer field — by putting a non-integral number (0.5) there: an integer field
 * refuses it, a free number (an extra key, a probability) accepts it. Pure, never throws.
 *
 * Cost: one regex test over the text ({@link mayHoldIntegralFloat}); the tokenizer and the
 * validator run again only when a number token has a `.`, `e` or `E`.
 */
import { formatPath, type ValidationIssue } from './result.js';

/** A number token with a fraction or an exponent, as a JSON number starts (after `:`, `,`, `[` or space). */
const MAYBE_FLOAT = /[:,[\s]-?[0-9]+[.eE]/;
const NUMBER_TOKEN = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][-+]?[0-9]+)?/y;

/** One integral number token written as a float, and where it sits. */
export interface IntegralFloat {
  /** Its path in the parsed value (keys and array indices). */
  readonly path: readonly (string | number)[];
  /** The token as written (`1.0`, `2e3`). */
  readonly token: string;
}

/**
 * True when `text` may hold a number written with a fraction or exponent (a cheap pre-filter:
 * false means it holds none).
 *
 * @example
 * ```ts
 * mayHoldIntegralFloat('{"seq":1}'); // false
 * mayHoldIntegralFloat('{"seq":1.0}'); // true
 * ```
 */
export function mayHoldIntegralFloat(text: string): boolean {
  return MAYBE_FLOAT.test(text);
}

/**
 * {@link mayHoldIntegralFloat} for a canonical line (Python's float repr, the only float form a
 * canonical line can hold): an integral float is written `N.0` or with `e+` (`1e+16`), so two
 * substring searches rule out almost every line before the regex runs.
 *
 * @example
 * ```ts
 * mayHoldIntegralFloatCanonical('{"seq":1,"ts":"2026-01-01T00:00:00Z"}'); // false
 * mayHoldIntegralFloatCanonical('{"seq":1.0}'); // true
 * ```
 */
export function mayHoldIntegralFloatCanonical(text: string): boolean {
  return (text.indexOf('.0') !== -1 || text.indexOf('e+') !== -1) && MAYBE_FLOAT.test(text);
}

/** Index of the closing quote of the JSON string opening at `start`. */
function stringEnd(text: string, start: number): number {
  let j = start + 1;
  for (;;) {
    const q = text.indexOf('"', j);
    if (q === -1) return text.length - 1;
    let backslashes = 0;
    for (let k = q - 1; k > start && text.charCodeAt(k) === 0x5c; k--) backslashes++;
    if (backslashes % 2 === 0) return q;
    j = q + 1;
  }
}

/**
 * Every number token of a JSON text that is written as a float (with a fraction or an exponent)
 * but has an integral value, with its path. `text` must be JSON that parsed; anything else yields
 * what was found before the first surprise. Iterative (any nesting depth).
 *
 * @example
 * ```ts
 * integralFloats('{"a":[1,2.0],"b":1.5,"c":"3.0"}'); // [{ path: ['a', 1], token: '2.0' }]
 * ```
 */
export function integralFloats(text: string): IntegralFloat[] {
  const found: IntegralFloat[] = [];
  if (!mayHoldIntegralFloat(text)) return found;
  const stack: { arr: boolean; key: string | number }[] = [];
  let expectKey = false;
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x7b /* { */) {
      stack.push({ arr: false, key: '' });
      expectKey = true;
      i++;
    } else if (c === 0x5b /* [ */) {
      stack.push({ arr: true, key: 0 });
      expectKey = false;
      i++;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      expectKey = false;
      i++;
    } else if (c === 0x2c /* , */) {
      const top = stack[stack.length - 1];
      if (top?.arr) top.key = (top.key as number) + 1;
      else expectKey = true;
      i++;
    } else if (c === 0x22 /* " */) {
      const end = stringEnd(text, i);
      const top = stack[stack.length - 1];
      if (expectKey && top !== undefined && !top.arr) {
        try {
          top.key = JSON.parse(text.slice(i, end + 1)) as string;
        } catch {
          return found;
        }
        expectKey = false;
      }
      i = end + 1;
    } else if (c === 0x2d /* - */ || (c >= 0x30 && c <= 0x39)) {
      NUMBER_TOKEN.lastIndex = i;
      const m = NUMBER_TOKEN.exec(text);
      if (m === null) return found;
      const token = m[0];
      if (/[.eE]/.test(token) && Number.isInteger(Number(token)))
        found.push({ path: stack.map((f) => f.key), token });
      i += token.length;
    } else {
      i++; // whitespace, ':', and the letters of true/false/null
    }
  }
  return found;
}

function withHalfAt(value: unknown, path: readonly (string | number)[]): unknown {
  if (path.length === 0) return 0.5;
  const copy = structuredClone(value);
  let at = copy as Record<string | number, unknown>;
  for (let k = 0; k < path.length - 1; k++)
    at = at[path[k] as string | number] as Record<string | number, unknown>;
  at[path[path.length - 1] as string | number] = 0.5;
  return copy;
}

/**
 * The first integral float of `text` that sits in an integer field of `value` (the parse of
 * `text`), as `isValid` judges fields: null when there is none, or when `value` is invalid anyway
 * (its own issues come first). `isValid` must accept `value`'s numbers where any number goes.
 *
 * @example
 * ```ts
 * const text = '{"seq":1.0,"extra":2.0}';
 * integerFieldFloat(text, JSON.parse(text), (v) => Number.isInteger((v as { seq: number }).seq));
 * // { path: ['seq'], token: '1.0' }
 * ```
 */
export function integerFieldFloat(
  text: string,
  value: unknown,
  isValid: (value: unknown) => boolean,
): IntegralFloat | null {
  const floats = integralFloats(text);
  if (floats.length === 0) return null;
  try {
    if (!isValid(value)) return null;
    for (const f of floats) if (!isValid(withHalfAt(value, f.path))) return f;
  } catch {
    return null;
  }
  return null;
}

/**
 * {@link integerFieldFloat} as a validation issue (`integral_float`), or null.
 *
 * @example
 * ```ts
 * integralFloatIssue('{"size":12.0}', { size: 12 }, isBaselineEntry);
 * // { path: 'size', code: 'integral_float', message: 'an integer field written as a float (12.0)' }
 * ```
 */
export function integralFloatIssue(
  text: string,
  value: unknown,
  isValid: (value: unknown) => boolean,
): ValidationIssue | null {
  const f = integerFieldFloat(text, value, isValid);
  return f === null ? null : integralFloatAsIssue(f);
}

/**
 * An {@link IntegralFloat} as a validation issue.
 *
 * @example
 * ```ts
 * integralFloatAsIssue({ path: ['seq'], token: '1.0' }).message; // 'an integer field written as a float (1.0)'
 * ```
 */
export function integralFloatAsIssue(f: IntegralFloat): ValidationIssue {
  return {
    path: formatPath(f.path),
    code: 'integral_float',
    message: `an integer field written as a float (${f.token})`,
  };
}
