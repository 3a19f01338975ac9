/**
 * Deep immutability of JSON-like records: the one `deepFreeze` of the project (records handed on —
 * batons, receipts, evidence packets, envelopes, settings — are frozen through and through).
 *
 * Not immer's `freeze(x, true)`: that one stops at an object that is already frozen, so a shallowly
 * frozen wrapper would keep mutable children. This walk freezes everything reachable, with its own
 * stack (no recursion limit) and a seen-set (cycle-safe).
 */

/**
 * Freezes `value` and everything reachable from it and returns it.
 *
 * @example
 * ```ts
 * const x = deepFreeze({ a: { b: [1] } }); Object.isFrozen(x.a.b); // true
 * ```
 */
export function deepFreeze<T>(value: T): T {
  const stack: unknown[] = [value];
  const seen = new Set<object>();
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null || seen.has(v)) continue;
    seen.add(v);
    Object.freeze(v);
    for (const k of Object.keys(v)) stack.push((v as Record<string, unknown>)[k]);
  }
  return value;
}
