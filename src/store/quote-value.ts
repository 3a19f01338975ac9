/**
 * Quoting a foreign value inside a refusal's detail (pure): scalars as JSON, objects and arrays
 * by their kind only — a value from a journal line or a caller may nest far deeper than
 * `JSON.stringify` (which recurses) can write, and a detail must never throw.
 */

/**
 * The value as it appears in a detail: JSON for strings, numbers, booleans and null; `an object`,
 * `an array`, `a function`… otherwise. Never throws.
 *
 * @example
 * ```ts
 * `kind ${quoteValue('x')} not allowed`; // 'kind "x" not allowed'
 * `kind ${quoteValue([[[]]])} not allowed`; // 'kind an array not allowed'
 * ```
 */
export function quoteValue(value: unknown): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value);
    case 'number':
      return Number.isFinite(value) ? JSON.stringify(value) : String(value);
    case 'undefined':
      return 'undefined';
    case 'bigint':
      return `${value}n`;
    case 'object':
      if (value === null) return 'null';
      return Array.isArray(value) ? 'an array' : 'an object';
    default:
      return `a ${typeof value}`;
  }
}
