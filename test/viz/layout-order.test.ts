/** The layout's ordering step: grouping by rank, then barycenter sweeps that untangle crossings. */
import { describe, expect, it } from 'vitest';
import { barycenterOrder, groupByRank, rankedNodes, SWEEPS } from '../../src/viz/layout-order.js';

describe('grouping by rank', () => {
  it('children first in their order, then dummy nodes; empty ranks dropped', () => {
    const rank = new Map([
      ['m.a', 0],
      ['~m~0', 1],
      ['m.c', 4],
      ['m.b', 0],
    ]);
    const nodes = rankedNodes(['m.a', 'm.c', 'm.b'], rank);
    expect(nodes).toEqual(['m.a', 'm.c', 'm.b', '~m~0']);
    expect(groupByRank(nodes, rank)).toEqual([['m.a', 'm.b'], ['~m~0'], ['m.c']]);
  });
});

describe('barycenterOrder', () => {
  it('uncrosses two crossing links, leaves the input untouched', () => {
    const ranks = [
      ['a', 'b'],
      ['x', 'y'],
    ];
    const out = barycenterOrder(ranks, [
      ['a', 'y'],
      ['b', 'x'],
    ]);
    expect(out).toEqual([
      ['b', 'a'],
      ['x', 'y'],
    ]);
    expect(ranks).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ]);
  });

  it('keeps the order of nodes without neighbours and of ties; runs six sweeps by default', () => {
    expect(barycenterOrder([['p', 'q', 'r']], [])).toEqual([['p', 'q', 'r']]);
    expect(
      barycenterOrder(
        [['a'], ['x', 'y', 'z']],
        [
          ['a', 'x'],
          ['a', 'y'],
          ['a', 'z'],
        ],
      ),
    ).toEqual([['a'], ['x', 'y', 'z']]);
    expect(SWEEPS).toBe(6);
  });

  it('zero sweeps keep the grouped order', () => {
    expect(
      barycenterOrder(
        [
          ['a', 'b'],
          ['x', 'y'],
        ],
        [
          ['a', 'y'],
          ['b', 'x'],
        ],
        0,
      ),
    ).toEqual([
      ['a', 'b'],
      ['x', 'y'],
    ]);
  });
});
