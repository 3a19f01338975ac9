/**
 * The memoizing canonical writer the file journal writes its lines with: byte-for-byte
 * `canonicalJson` on any value (generated, frozen or not, shared subtrees, written again), the same
 * errors for what canonical JSON refuses, and a memo that never serves text for data that changed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, deepFreeze } from '../../src/canonical/index.js';
import { memoCanonicalJson } from '../../src/chain/canonical-memo.js';
import { tripBaton, tripChain } from './trip-fixture.js';

const long = (s: string) => s.repeat(200); // past the length below which nothing is memoized

describe('memoCanonicalJson', () => {
  it('writes exactly what canonicalJson writes, frozen or not, the first time and again', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, freeze) => {
        const value = freeze ? deepFreeze(structuredClone(v)) : v;
        const want = canonicalJson(value);
        expect(memoCanonicalJson(value)).toBe(want);
        expect(memoCanonicalJson(value)).toBe(want);
        expect(memoCanonicalJson({ wrap: [value, value] })).toBe(canonicalJson({ wrap: [value, value] }));
      }),
      { numRuns: 300 },
    );
  });

  it('matches on keys and strings canonical JSON escapes or orders specially', () => {
    const v = deepFreeze({
      '😀': long('a'),
      '｡': [long('é'), '\u0000\u001f"\\\u007f', -0, 1e21, 0.1],
      B: { b: 1, a: 2, '': null, __proto__x: true },
    });
    for (let i = 0; i < 3; i++) expect(memoCanonicalJson({ v, i })).toBe(canonicalJson({ v, i }));
  });

  it('a baton revision written after the one it shares structure with is the same bytes', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const c1 = await chain.advance(b0);
    const c2 = await chain.advance(c1.baton);
    for (const b of [b0, c1.baton, c2.baton, c1.baton, c2.baton]) {
      const line = { v: 1, baton_id: b.baton_id, revision: b.revision, baton: b, receipt: null };
      expect(memoCanonicalJson(line)).toBe(canonicalJson(line));
    }
  });

  it('never serves memoized text for a value that is not deep-frozen and changed', () => {
    const inner = { text: long('x') };
    const outer = Object.freeze({ inner }); // frozen, but holding a mutable object
    const before = memoCanonicalJson(outer);
    memoCanonicalJson(outer);
    memoCanonicalJson(outer);
    inner.text = long('y');
    expect(memoCanonicalJson(outer)).toBe(canonicalJson(outer));
    expect(memoCanonicalJson(outer)).not.toBe(before);
    let n = 0;
    const getter = Object.freeze(
      Object.defineProperty({}, 'g', { enumerable: true, get: () => long(String(n++ % 10)) }),
    );
    const texts = [1, 2, 3, 4].map(() => memoCanonicalJson(getter));
    expect(new Set(texts).size).toBe(4); // a getter is read every time, as canonicalJson reads it
  });

  it('hostile values: the same errors as canonicalJson (undefined, NaN, cycles, class instances, deep nesting)', () => {
    const cyclic: Record<string, unknown> = { a: long('c') };
    cyclic.self = cyclic;
    let deep: unknown = long('d');
    for (let i = 0; i < 5000; i++) deep = [deep];
    class Thing {
      x = 1;
    }
    const cases: unknown[] = [
      { a: undefined },
      deepFreeze({ n: [1, Number.NaN] }),
      cyclic,
      { t: new Thing() },
      new Array(3).fill(1, 0, 1), // holes
      { big: 10n },
    ];
    for (const v of cases) {
      let want: unknown;
      try {
        canonicalJson(v);
      } catch (e) {
        want = e;
      }
      expect(want).toBeDefined();
      expect(() => memoCanonicalJson(v)).toThrow((want as Error).message);
    }
    expect(memoCanonicalJson(deep)).toBe(canonicalJson(deep)); // deeper than the walk: handed over whole
  });
});
