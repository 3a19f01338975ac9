/**
 * Batches (src/cycle/batch.ts): targets per cycle with disjoint owned files, the overlap check,
 * and the waves of concurrent dispatches bounded by --max-delegates — tables plus properties
 * (disjoint, in order, every id exactly once), and a hostile planner spelling one file two ways.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { disjointGroups, overlapping, selectBatch } from '../../src/cycle/batch.js';
import type { TargetInfo } from '../../src/cycle/types.js';

const SEED = 20_261_202;
const t = (file: string, line: number): TargetInfo => ({ id: `${file}:${line}`, file, line, goal: 'sorry' });
const byFile = (x: TargetInfo): readonly string[] => [x.file];

describe('overlapping', () => {
  it.each<[string, string[], string[], string[]]>([
    ['disjoint', ['A.lean'], ['B.lean'], []],
    ['one shared', ['B.lean', 'A.lean'], ['C.lean', 'A.lean'], ['A.lean']],
    ['several shared, sorted and unique', ['C', 'A', 'B', 'A'], ['B', 'C', 'C'], ['B', 'C']],
    ['empty', [], ['A'], []],
    [
      'one file spelled two ways',
      ['./A.lean', 'x//y.lean'],
      ['A.lean', 'x/./y.lean'],
      ['A.lean', 'x/y.lean'],
    ],
    ['`x/..` resolved', ['sub/../A.lean', '/abs/../B'], ['A.lean', '/B'], ['/B', 'A.lean']],
    ['a leading `..` is kept, never resolved away', ['../A.lean'], ['A.lean'], []],
  ])('%s', (_name, a, b, expected) => {
    expect(overlapping(a, b)).toEqual(expected);
    expect(overlapping(b, a)).toEqual(expected);
  });
});

describe('selectBatch', () => {
  const a1 = t('A.lean', 1);
  const a2 = t('A.lean', 9);
  const b1 = t('B.lean', 3);
  const c1 = t('C.lean', 5);
  it.each<[string, TargetInfo[], number, TargetInfo[]]>([
    ['prove: one target', [a1, b1, c1], 1, [a1]],
    ['autoprove: two with disjoint files', [a1, b1, c1], 2, [a1, b1]],
    ['a second target in the same file is skipped, not waited for', [a1, a2, b1], 2, [a1, b1]],
    ['only overlapping candidates: one', [a1, a2], 2, [a1]],
    ['size larger than the candidates', [a1, b1], 5, [a1, b1]],
    ['size 0', [a1, b1], 0, []],
    ['a size that is not a number', [a1, b1], Number.NaN, []],
    ['a fractional size rounds down', [a1, b1, c1], 2.9, [a1, b1]],
    ['no candidates', [], 2, []],
    ['the same candidate twice is chosen once', [a1, a1, b1], 3, [a1, b1]],
  ])('%s', (_name, candidates, size, expected) => {
    expect(selectBatch(candidates, size, byFile)).toEqual(expected);
  });

  it('uses the owned files, not the target files (cross-file deep sets)', () => {
    const owned = new Map<string, string[]>([
      [a1.id, ['A.lean', 'Shared.lean']],
      [b1.id, ['B.lean', 'Shared.lean']],
      [c1.id, ['C.lean']],
    ]);
    expect(selectBatch([a1, b1, c1], 3, (x) => owned.get(x.id) ?? [])).toEqual([a1, c1]);
  });

  it('a hostile planner cannot make two workers share a file by spelling it differently', () => {
    const owned = new Map<string, string[]>([
      [a1.id, ['A.lean']],
      [b1.id, ['./A.lean']],
      [c1.id, ['sub//../A.lean', 'C.lean']],
      [a2.id, ['B.lean']],
    ]);
    expect(selectBatch([a1, b1, c1, a2], 3, (x) => owned.get(x.id) ?? [])).toEqual([a1, a2]);
  });

  it('property: at most size, in candidate order, a subset, pairwise disjoint, and maximal', () => {
    const files = fc.array(fc.constantFrom('A', 'B', 'C', 'D', 'E'), { maxLength: 3 });
    fc.assert(
      fc.property(fc.array(files, { maxLength: 12 }), fc.integer({ min: 0, max: 6 }), (owned, size) => {
        const candidates = owned.map((_, i) => t(`T${i}`, i + 1));
        const ownedOf = (x: TargetInfo) => owned[x.line - 1] as string[];
        const chosen = selectBatch(candidates, size, ownedOf);
        expect(chosen.length).toBeLessThanOrEqual(size);
        const idx = chosen.map((c) => candidates.indexOf(c));
        expect(idx.every((i) => i >= 0)).toBe(true);
        expect([...idx].sort((x, y) => x - y)).toEqual(idx);
        for (let i = 0; i < chosen.length; i++) {
          for (let j = i + 1; j < chosen.length; j++) {
            expect(overlapping(ownedOf(chosen[i] as TargetInfo), ownedOf(chosen[j] as TargetInfo))).toEqual(
              [],
            );
          }
        }
        if (chosen.length < size) {
          // every candidate left out overlaps one chosen before it
          for (const c of candidates) {
            if (chosen.includes(c)) continue;
            expect(chosen.some((x) => overlapping(ownedOf(x), ownedOf(c)).length > 0)).toBe(true);
          }
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});

describe('disjointGroups', () => {
  const d = (id: string, ...owned: string[]) => ({ id, owned });
  it.each<[string, ReturnType<typeof d>[], number, string[][]]>([
    ['disjoint, cap 2', [d('a', 'A'), d('b', 'B'), d('c', 'C')], 2, [['a', 'b'], ['c']]],
    ['an overlap goes to a later wave', [d('a', 'A'), d('b', 'A'), d('c', 'C')], 2, [['a', 'c'], ['b']]],
    ['cap 1 is sequential', [d('a', 'A'), d('b', 'B')], 1, [['a'], ['b']]],
    [
      'a chain of overlaps keeps its order',
      [d('a', 'A'), d('b', 'A', 'B'), d('c', 'B')],
      3,
      [['a'], ['b'], ['c']],
    ],
    [
      'a later dispatch never runs before an earlier one it shares a file with',
      [d('a', 'A'), d('b', 'B'), d('c', 'B'), d('d', 'D')],
      2,
      [
        ['a', 'b'],
        ['c', 'd'],
      ],
    ],
    ['a cap below 1 means 1', [d('a', 'A'), d('b', 'B')], 0, [['a'], ['b']]],
    ['a cap that is not a number means 1', [d('a', 'A'), d('b', 'B')], Number.NaN, [['a'], ['b']]],
    ['nothing to run', [], 2, []],
    ['no owned files: never in conflict', [d('a'), d('b'), d('c')], 5, [['a', 'b', 'c']]],
    ['one file spelled two ways is one file', [d('a', 'A.lean'), d('b', './A.lean')], 2, [['a'], ['b']]],
  ])('%s', (_name, inputs, cap, expected) => {
    expect(disjointGroups(inputs, cap)).toEqual(expected);
  });

  it('property: every id exactly once, waves disjoint and within the cap, conflicting pairs in order', () => {
    const files = fc.array(fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F'), { maxLength: 3 });
    fc.assert(
      fc.property(fc.array(files, { maxLength: 15 }), fc.integer({ min: 1, max: 4 }), (owned, cap) => {
        const inputs = owned.map((o, i) => ({ id: `w${i}`, owned: o }));
        const waves = disjointGroups(inputs, cap);
        expect(waves.flat().sort()).toEqual(inputs.map((x) => x.id).sort());
        expect(waves.every((w) => w.length >= 1 && w.length <= cap)).toBe(true);
        const waveOf = new Map(waves.flatMap((w, k) => w.map((id) => [id, k] as const)));
        const ownedOf = (id: string) => inputs.find((x) => x.id === id)?.owned ?? [];
        for (const w of waves) {
          // ids keep input order inside a wave
          const order = w.map((id) => Number(id.slice(1)));
          expect([...order].sort((x, y) => x - y)).toEqual(order);
          for (let i = 0; i < w.length; i++) {
            for (let j = i + 1; j < w.length; j++) {
              expect(overlapping(ownedOf(w[i] as string), ownedOf(w[j] as string))).toEqual([]);
            }
          }
        }
        for (let i = 0; i < inputs.length; i++) {
          for (let j = i + 1; j < inputs.length; j++) {
            const [x, y] = [inputs[i], inputs[j]] as [(typeof inputs)[0], (typeof inputs)[0]];
            if (overlapping(x.owned, y.owned).length > 0) {
              expect(waveOf.get(x.id) as number).toBeLessThan(waveOf.get(y.id) as number);
            }
          }
        }
      }),
      { seed: SEED, numRuns: 300 },
    );
  });
});
