/**
 * Deep copying and read-only proxies: the building blocks of immutable batons and detached views
 * (deep freezing lives in src/canonical). Pure; no I/O.
 */

/**
 * A deep, mutable copy of a JSON-like value (`structuredClone`). Frozen inputs give unfrozen copies.
 *
 * @example
 * ```ts
 * const copy = deepCopy(frozenPolicy); copy.max = 3; // the original is untouched
 * ```
 */
export function deepCopy<T>(value: T): T {
  return structuredClone(value);
}

function refuse(what: string): never {
  throw new TypeError(`read-only view: cannot ${what}`);
}

const READ_ONLY_HANDLER: ProxyHandler<object> = {
  set: (_t, key) => refuse(`assign ${String(key)}`),
  deleteProperty: (_t, key) => refuse(`delete ${String(key)}`),
  defineProperty: (_t, key) => refuse(`define ${String(key)}`),
  setPrototypeOf: () => refuse('change the prototype'),
};

/**
 * Wraps `target` in a proxy whose assignment, deletion and definition throw `TypeError` (in
 * strict and sloppy code alike). Only the top level is guarded: nested values are whatever
 * `target` holds (views pass detached deep copies, so nested mutation stays local).
 *
 * @example
 * ```ts
 * const facts = readOnly({ a: 1 }); facts.a = 2; // TypeError
 * ```
 */
export function readOnly<T extends object>(target: T): Readonly<T> {
  return new Proxy(target, READ_ONLY_HANDLER) as Readonly<T>;
}
