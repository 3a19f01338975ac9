/**
 * Small value guards shared by the envelope builder, validator and settings code.
 */

/**
 * True for a non-null, non-array object.
 *
 * @example
 * ```ts
 * isRecord({}); // true
 * isRecord([]); // false
 * ```
 */
export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * True for a string with a non-whitespace character.
 *
 * @example
 * ```ts
 * isNonBlank(' x '); // true
 * ```
 */
export function isNonBlank(v: unknown): v is string {
  return typeof v === 'string' && v.trim().length > 0;
}

/**
 * True for an integer ≥ 1.
 *
 * @example
 * ```ts
 * isPositiveInt(3); // true
 * ```
 */
export function isPositiveInt(v: unknown): v is number {
  return typeof v === 'number' && Number.isInteger(v) && v >= 1;
}

/**
 * A positive integer, else `null`.
 *
 * @example
 * ```ts
 * positiveIntOrNull(0); // null
 * ```
 */
export function positiveIntOrNull(v: unknown): number | null {
  return isPositiveInt(v) ? v : null;
}

/**
 * The trimmed string when non-blank, else `null`.
 *
 * @example
 * ```ts
 * nonBlankOrNull('  a '); // 'a'
 * ```
 */
export function nonBlankOrNull(v: unknown): string | null {
  return isNonBlank(v) ? v.trim() : null;
}
