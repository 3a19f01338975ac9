/**
 * The layout's ranking step: edges lifted to the children holding their ends, back edges from a
 * depth-first search, longest-path ranks with final states last, dummy chains for long edges.
 */
import { describe, expect, it } from 'vitest';
import { nodeIndex } from '../../src/viz/graph.js';
import {
  backEdges,
  childContaining,
  finalsLast,
  insertDummies,
  isDummy,
  liftEdges,
  linkKey,
  longestPathRanks,
  rankLayers,
  searchRoots,
} from '../../src/viz/layout-rank.js';
import { chainGraph, vizEdge, vizNode } from './layout-fixtures.js';

const nested = () => {
  const nodes = [
    vizNode('n', null, { type: 'compound', children: ['n.p', 'n.q'] }),
    vizNode('n.p', 'n', { type: 'compound', children: ['n.p.x', 'n.p.y'], initial: true }),
    vizNode('n.p.x', 'n.p', { initial: true }),
    vizNode('n.p.y', 'n.p'),
    vizNode('n.q', 'n'),
  ];
  return nodeIndex({ id: 'n', root: 'n', nodes, edges: [] });
};

describe('childContaining', () => {
  it('maps a descendant to the child of the compound that holds it', () => {
    const childOf = childContaining(nested(), 'n', null);
    expect(childOf('n', 'n.p.y')).toBe('n.p');
    expect(childOf('n', 'n.q')).toBe('n.q');
    expect(childOf('n.p', 'n.p.y')).toBe('n.p.y');
    expect(childOf('n.p', 'n.q')).toBeUndefined();
    expect(childOf('n.p', 'n.p')).toBeUndefined();
  });

  it('maps the root to the (any state) pseudo node at the root level only', () => {
    expect(childContaining(nested(), 'n', 'n::any')('n', 'n')).toBe('n::any');
    expect(childContaining(nested(), 'n', 'n::any')('n.p', 'n')).toBeUndefined();
    expect(childContaining(nested(), 'n', null)('n', 'n')).toBeUndefined();
  });
});

describe('liftEdges', () => {
  it('keeps edges between distinct children, in edge order, keyed <edge>><target>', () => {
    const childOf = childContaining(nested(), 'n', null);
    const edges = [
      vizEdge('e0', 'n.p.x', ['n.p.y']),
      vizEdge('e1', 'n.p.y', ['n.q']),
      vizEdge('e2', 'n.q', ['n.p', 'n.q']),
    ];
    const { lifted, adj } = liftEdges(edges, ['n.p', 'n.q'], (id) => childOf('n', id));
    expect(lifted).toEqual([
      { key: 'e1>n.q', a: 'n.p', b: 'n.q' },
      { key: 'e2>n.p', a: 'n.q', b: 'n.p' },
    ]);
    expect([...adj]).toEqual([
      ['n.p', ['n.q']],
      ['n.q', ['n.p']],
    ]);
  });
});

describe('back edges and ranks', () => {
  it('searchRoots starts at the pseudo node, then the initial child, then every child', () => {
    expect(searchRoots(['m::any', 'm.a', 'm.b'], 'm::any', 'm.b')).toEqual([
      'm::any',
      'm.b',
      'm::any',
      'm.a',
      'm.b',
    ]);
    expect(searchRoots(['m.a', 'm.b'], 'm::any', undefined)).toEqual(['m.a', 'm.b']);
  });

  it('the depth-first search marks the edge closing a cycle as a back edge', () => {
    const adj = new Map([
      ['a', ['b']],
      ['b', ['a']],
    ]);
    expect(backEdges(['a'], adj)).toEqual({ back: new Set([linkKey('b', 'a')]), post: ['b', 'a'] });
    expect(backEdges(['b', 'a'], adj).back).toEqual(new Set(['a>b']));
  });

  it('longest-path ranks ignore back edges', () => {
    const adj = new Map([
      ['a', ['b', 'c']],
      ['b', ['c']],
      ['c', ['a']],
    ]);
    const { back, post } = backEdges(['a'], adj);
    expect([...longestPathRanks(['a', 'b', 'c'], adj, back, post)]).toEqual([
      ['a', 0],
      ['b', 1],
      ['c', 2],
    ]);
  });

  it('final states go one rank after every other child, only when both kinds are present', () => {
    const isFinal = (k: string) => k === 'done';
    expect([
      ...finalsLast(
        ['a', 'done'],
        new Map([
          ['a', 2],
          ['done', 1],
        ]),
        isFinal,
      ),
    ]).toEqual([
      ['a', 2],
      ['done', 3],
    ]);
    expect([...finalsLast(['done'], new Map([['done', 4]]), isFinal)]).toEqual([['done', 4]]);
    const input = new Map([
      ['a', 0],
      ['done', 0],
    ]);
    finalsLast(['a', 'done'], input, isFinal);
    expect(input.get('done')).toBe(0);
  });

  it('rankLayers composes the three on a chain with a back edge and a final state', () => {
    const g = chainGraph();
    const kids = ['m.a', 'm.b', 'm.c', 'm.done'];
    const { adj } = liftEdges(g.edges, kids, (id) => id);
    const rank = rankLayers(kids, adj, searchRoots(kids, null, 'm.a'), (k) => k === 'm.done');
    expect([...rank]).toEqual([
      ['m.a', 0],
      ['m.b', 1],
      ['m.c', 2],
      ['m.done', 3],
    ]);
  });
});

describe('insertDummies', () => {
  it('gives an edge spanning ranks one dummy per rank between, numbered per compound', () => {
    const rank = new Map([
      ['m.a', 0],
      ['m.b', 1],
      ['m.c', 3],
    ]);
    const r = insertDummies(
      [
        { key: 'e0>m.c', a: 'm.a', b: 'm.c' },
        { key: 'e1>m.b', a: 'm.a', b: 'm.b' },
        { key: 'e2>m.a', a: 'm.c', b: 'm.a' },
      ],
      rank,
      'm',
    );
    expect(r.dummies).toEqual(['~m~0', '~m~1', '~m~2', '~m~3']);
    expect([...r.chains]).toEqual([
      ['e0>m.c', ['~m~0', '~m~1']],
      ['e1>m.b', []],
      ['e2>m.a', ['~m~2', '~m~3']],
    ]);
    expect([...r.rank].slice(3)).toEqual([
      ['~m~0', 1],
      ['~m~1', 2],
      ['~m~2', 2],
      ['~m~3', 1],
    ]);
    expect(r.links).toEqual([
      ['m.a', '~m~0'],
      ['~m~0', '~m~1'],
      ['~m~1', 'm.c'],
      ['m.a', 'm.b'],
      ['m.c', '~m~2'],
      ['~m~2', '~m~3'],
      ['~m~3', 'm.a'],
    ]);
    expect(rank.size).toBe(3);
    expect(r.dummies.every(isDummy)).toBe(true);
    expect(isDummy('m.a')).toBe(false);
  });

  it('an edge within one rank or to the next rank gets no dummy', () => {
    const r = insertDummies(
      [{ key: 'e0>m.b', a: 'm.a', b: 'm.b' }],
      new Map([
        ['m.a', 1],
        ['m.b', 1],
      ]),
      'm',
    );
    expect(r.dummies).toEqual([]);
    expect(r.links).toEqual([['m.a', 'm.b']]);
  });
});
