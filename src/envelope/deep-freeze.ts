/**
 * Recursive `Object.freeze` for plain JSON-like records.
 */

function freeze(value: unknown, seen: WeakSet<object>): void {
  if (typeof value !== 'object' || value === null || seen.has(value)) return;
  seen.add(value);
  Object.freeze(value);
  for (const key of Object.keys(value)) freeze((value as Record<string, unknown>)[key], seen);
}

/**
 * Freezes `value` and everything reachable from it (cycle-safe) and returns it.
 *
 * @example
 * ```ts
 * const v = deepFreeze({ a: { b: [1] } }); Object.isFrozen(v.a.b); // true
 * ```
 */
export function deepFreeze<T>(value: T): T {
  freeze(value, new WeakSet());
  return value;
}
