/**
 * Schemas built on first use. Loading zod and building schemas cost more than bare node's startup,
 * and a worker that imports `handoff-runtime/contract` only to build its handoff never validates
 * anything; so the record schemas of the worker-side entry points (`/contract`, `/baseline`) are
 * declared through {@link lazySchema}: the exported value stands for the schema from the start (same
 * type, same methods, same `instanceof`), and zod is loaded and the schema behind it built the first
 * time anything reads it.
 */
import { type ZodNamespace, zod } from './zod-sync.js';

/**
 * A stand-in for the object `build(z)` returns (`z` is zod's namespace, loaded on the first build),
 * built on the first read of any property (or any `in`, `Object.keys`, prototype or descriptor
 * query) and reused from then on. Every operation is forwarded to the built object, with the built object as `this` for getters, so zod's methods,
 * getters (`.shape`, `.options`) and `instanceof` checks behave as on the schema itself. Use it only
 * for module-level constants that are never frozen.
 *
 * @example
 * ```ts
 * import { lazySchema } from './lazy-schema.js';
 * export const PointSchema = lazySchema((z) => z.strictObject({ x: z.number(), y: z.number() }));
 * PointSchema.safeParse({ x: 1, y: 2 }).success; // true — zod is loaded and the schema built here
 * ```
 */
export function lazySchema<T extends object>(build: (z: ZodNamespace) => T): T {
  let built: T | undefined;
  const real = (): T => {
    if (built === undefined) built = build(zod());
    return built;
  };
  const handler: ProxyHandler<T> = {
    get: (_t, key) => Reflect.get(real(), key),
    set: (_t, key, value) => Reflect.set(real(), key, value),
    has: (_t, key) => Reflect.has(real(), key),
    ownKeys: () => Reflect.ownKeys(real()),
    getOwnPropertyDescriptor: (_t, key) => {
      const d = Reflect.getOwnPropertyDescriptor(real(), key);
      // the stand-in's own target has no such property: report it configurable (a proxy invariant)
      return d === undefined ? undefined : { ...d, configurable: true };
    },
    defineProperty: (_t, key, d) => Reflect.defineProperty(real(), key, d),
    deleteProperty: (_t, key) => Reflect.deleteProperty(real(), key),
    getPrototypeOf: () => Reflect.getPrototypeOf(real()),
    setPrototypeOf: (_t, proto) => Reflect.setPrototypeOf(real(), proto),
    // freezing the stand-in would break the invariants above: refuse it (Object.freeze throws)
    preventExtensions: () => false,
  };
  return new Proxy({} as T, handler);
}
