/**
 * unionBy keeps set semantics by canonical JSON whichever path it takes: a list it made carries its
 * keys to the next union (only the new items are keyed), and a superseded list used again is keyed
 * afresh — the result is the same as a union computed from scratch.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { unionBy } from '../../src/persist/knowledge.js';

/** The union computed from scratch, for comparison. */
function reference<T>(a: readonly T[], b: readonly T[]): T[] {
  const out: T[] = [];
  for (const x of [...a, ...b]) if (!out.some((y) => JSON.stringify(y) === JSON.stringify(x))) out.push(x);
  return out;
}

describe('unionBy', () => {
  it('chained unions equal the from-scratch union, also when a superseded list is reused', () => {
    fc.assert(
      fc.property(
        fc.array(
          fc.array(fc.oneof(fc.string({ maxLength: 2 }), fc.record({ a: fc.nat(3) })), { maxLength: 5 }),
          {
            maxLength: 8,
          },
        ),
        (parts) => {
          let acc: unknown[] = [];
          let expected: unknown[] = [];
          const history: unknown[][] = [];
          for (const p of parts) {
            history.push(acc);
            acc = unionBy(acc, p);
            expected = reference(expected, p);
            expect(acc).toEqual(expected);
          }
          // a superseded list (its keys moved on) gives the right union again
          for (const old of history) expect(unionBy(old, parts.flat())).toEqual(reference(old, parts.flat()));
        },
      ),
    );
  });
  it('a carried list is not re-keyed: a duplicate of an old item is dropped', () => {
    const a = unionBy([], ['x', { k: 1 }]);
    const b = unionBy(a, [{ k: 1 }, 'y']);
    expect(b).toEqual(['x', { k: 1 }, 'y']);
    expect(unionBy(b, ['x'])).toEqual(['x', { k: 1 }, 'y']);
  });
});
