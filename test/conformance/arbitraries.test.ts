/**
 * The arbitraries are factories: each call gives an `fc.Arbitrary`, the defaults keep the seeded
 * streams, and the options narrow what is generated while every record stays valid.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { FileBaselineSchema } from '../../src/baseline/schema.js';
import {
  arbAbsolutePaths,
  arbBaselineFor,
  arbDispatch,
  arbFileBaseline,
  arbHandoff,
} from '../../src/conformance/index.js';
import { validateDispatch, validateHandoff } from '../../src/contract/index.js';

describe('every arbitrary is a factory', () => {
  it('two calls give equal streams for one seed', () => {
    for (const make of [
      () => arbDispatch(),
      () => arbHandoff(),
      () => arbFileBaseline(),
      () => arbAbsolutePaths(),
    ]) {
      expect(fc.sample(make() as fc.Arbitrary<unknown>, { seed: 5, numRuns: 3 })).toEqual(
        fc.sample(make() as fc.Arbitrary<unknown>, { seed: 5, numRuns: 3 }),
      );
    }
  });

  it('arbDispatch options: at most maxOwnedFiles, the given capabilities appended; always valid', () => {
    fc.assert(
      fc.property(arbDispatch({ maxOwnedFiles: 1, capabilities: ['search-budget:2'] }), (d) => {
        expect(d.owned_files).toHaveLength(1);
        expect(d.capabilities.at(-1)).toBe('search-budget:2');
        expect(validateDispatch(d).ok).toBe(true);
      }),
      { numRuns: 50 },
    );
  });

  it('arbHandoff options: only the given statuses, at most maxOwnedFiles; always valid', () => {
    fc.assert(
      fc.property(arbHandoff({ statuses: ['stuck'], maxOwnedFiles: 2 }), (h) => {
        expect(h.status).toBe('stuck');
        expect(h.files_owned.length).toBeLessThanOrEqual(2);
        expect(validateHandoff(h).ok).toBe(true);
      }),
      { numRuns: 50 },
    );
    expect(() => arbHandoff({ statuses: [] })).toThrow(/at least one status/);
  });

  it('arbFileBaseline options: at most maxFiles entries; valid like arbBaselineFor', () => {
    fc.assert(
      fc.property(arbFileBaseline({ maxFiles: 6 }), arbAbsolutePaths(2).chain(arbBaselineFor), (b, c) => {
        expect(b.files.length).toBeLessThanOrEqual(6);
        expect(FileBaselineSchema.safeParse(b).success).toBe(true);
        expect(FileBaselineSchema.safeParse(c).success).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});
