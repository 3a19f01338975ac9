/**
 * Deeply nested test values, built without recursion, and a seeded fast-check arbitrary of nesting
 * depths around a limit (limit − 1, limit, limit + 1, far beyond, and anything in between).
 */
import fc from 'fast-check';

/** How a nested value is shaped: which container each level is (cycled), its key, and the leaf. */
export interface NestShape {
  /** Per level (cycled): true for an array `[x]`, false for an object `{ [key]: x }`. */
  readonly arrays: readonly boolean[];
  readonly key: string;
}

const DEFAULT_SHAPE: NestShape = { arrays: [true, false], key: 'a' };

/**
 * A value whose nesting depth is exactly `depth` (0 is the scalar `0`; 1 is `[]` or `{}`), built
 * inside out with a loop.
 */
export function nest(depth: number, shape: NestShape = DEFAULT_SHAPE): unknown {
  if (depth <= 0) return 0;
  const isArray = (level: number): boolean => shape.arrays[level % shape.arrays.length] ?? true;
  let v: unknown = isArray(depth - 1) ? [] : {};
  for (let level = depth - 2; level >= 0; level--) v = isArray(level) ? [v] : { [shape.key]: v };
  return v;
}

/** A shape arbitrary: container kinds per level and the object key. */
export const arbShape: fc.Arbitrary<NestShape> = fc.record({
  arrays: fc.array(fc.boolean(), { minLength: 1, maxLength: 6 }),
  key: fc.constantFrom('a', 'é', 'z', '0', '__proto__x', ''),
});

/**
 * Depths around `limit`: exactly limit − 1, limit and limit + 1, far beyond (`far`, default
 * 100,000), and any depth up to a little past the limit.
 */
export function arbDepthAround(limit: number, far = 100_000): fc.Arbitrary<number> {
  return fc.oneof(fc.constantFrom(limit - 1, limit, limit + 1, far), fc.integer({ min: 0, max: limit + 8 }));
}

/** The fast-check parameters of every deep-input property: a fixed seed, so runs are repeatable. */
export const DEEP_RUNS = { seed: 0x5eed_d33b, numRuns: 40 } as const;
