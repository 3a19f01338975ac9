/**
 * The suite's fast-check runs are seeded (test/setup/fast-check-seed.ts): two samples drawn with
 * no seed of their own are the same draw, and the seed is the fixed one unless FC_SEED names another.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';

describe('fast-check in this suite', () => {
  it('draws from one fixed seed', () => {
    const want = Number.isInteger(Number(process.env.FC_SEED)) ? Number(process.env.FC_SEED) : 20261206;
    expect(fc.readConfigureGlobal().seed).toBe(want);
    const draw = () => fc.sample(fc.array(fc.integer(), { minLength: 5, maxLength: 5 }), 3);
    expect(draw()).toEqual(draw());
  });
});
