/**
 * Orthogonal routing and the error lane: ports, the grid search around obstacles, path
 * simplification and rounded corners; badges, obstacles between two ends, lane routes.
 */
import { describe, expect, it } from 'vitest';
import { nodeIndex } from '../../src/viz/graph.js';
import { flattenPath, segmentCrossesBox } from '../../src/viz/layout-check.js';
import { badgeText, errorBadges, obstaclesBetween, routeLane } from '../../src/viz/layout-lane.js';
import { sinksLast } from '../../src/viz/layout-order.js';
import {
  boxPorts,
  CLEARANCE,
  insideGrown,
  orthoRoute,
  outermost,
  roundedPath,
  type SegmentUse,
  segmentKey,
  simplify,
  useSegments,
} from '../../src/viz/layout-ortho.js';
import { labelGaps, placeRanks } from '../../src/viz/layout-place.js';
import type { LayoutBox, Pt } from '../../src/viz/layout-types.js';
import { vizEdge, vizNode } from './layout-fixtures.js';

const box = (id: string, x: number, y: number, w = 100, h = 20): LayoutBox => ({ id, x, y, w, h });
const crosses = (pts: readonly Pt[], b: LayoutBox): boolean =>
  pts.slice(1).some((p, i) => segmentCrossesBox(pts[i] as Pt, p, b, 0.5));

describe('orthogonal routes', () => {
  it('ports sit on the side middles and CLEARANCE px out', () => {
    const p = boxPorts(box('a', 0, 0));
    expect(p.map((x) => [x.border, x.out, x.dir])).toEqual([
      [{ x: 100, y: 10 }, { x: 100 + CLEARANCE, y: 10 }, 0],
      [{ x: 50, y: 20 }, { x: 50, y: 20 + CLEARANCE }, 1],
      [{ x: 0, y: 10 }, { x: -CLEARANCE, y: 10 }, 2],
      [{ x: 50, y: 0 }, { x: 50, y: -CLEARANCE }, 3],
    ]);
    expect(insideGrown(box('a', 0, 0, 10, 10), { x: 12, y: 5 }, 3)).toBe(true);
    expect(insideGrown(box('a', 0, 0, 10, 10), { x: 13, y: 5 }, 3)).toBe(false);
  });

  it('goes straight when nothing is in the way, around a wall when something is', () => {
    const a = box('a', 0, 0);
    const b = box('b', 300, 0);
    expect(orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [])).toEqual([
      { x: 100, y: 10 },
      { x: 300, y: 10 },
    ]);
    const wall = box('w', 180, -60, 40, 140);
    const pts = orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [wall]) as Pt[];
    expect(pts[0]).toEqual({ x: 100, y: 10 });
    expect(boxPorts(b).map((p) => p.border)).toContainEqual(pts.at(-1));
    expect(pts.length).toBeGreaterThan(3);
    expect(crosses(pts, wall)).toBe(false);
    expect(pts.slice(1).every((p, i) => p.x === (pts[i] as Pt).x || p.y === (pts[i] as Pt).y)).toBe(true);
    expect(
      pts.every(
        (p) => p.y <= -60 - CLEARANCE + 0.01 || p.y >= 80 + CLEARANCE - 0.01 || p.x <= 180 || p.x >= 220,
      ),
    ).toBe(true);
  });

  it('is null when the target is walled in', () => {
    const b = box('b', 300, 0);
    const ring = [
      box('t', 250, -50, 200, 20),
      box('d', 250, 50, 200, 20),
      box('l', 250, -50, 20, 120),
      box('r', 430, -50, 20, 120),
    ];
    expect(orthoRoute(boxPorts(box('a', 0, 0)), { ports: boxPorts(b) }, ring)).toBeNull();
  });

  it('reaches a vertical lane line', () => {
    const pts = orthoRoute(boxPorts(box('a', 0, 0)), { laneX: 400 }, [box('w', 200, -10, 50, 40)]) as Pt[];
    expect(pts[pts.length - 1]?.x).toBe(400);
    expect(crosses(pts, box('w', 200, -10, 50, 40))).toBe(false);
  });

  it('a later route pays for sharing segments and takes a parallel line when there is one', () => {
    const a = box('a', 0, 0);
    const b = box('b', 0, 300);
    const wall = box('w', -50, 100, 200, 100);
    const used: SegmentUse = new Map();
    const first = orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [wall], used) as Pt[];
    expect(used.size).toBeGreaterThan(0);
    const second = orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [wall], used) as Pt[];
    const alone = orthoRoute(boxPorts(a), { ports: boxPorts(b) }, [wall]) as Pt[];
    expect(alone).toEqual(first);
    expect(second).not.toEqual(first);
    const xsOf = (pts: Pt[]) => new Set(pts.map((p) => p.x));
    expect([...xsOf(second)].some((x) => !xsOf(first).has(x))).toBe(true);
    expect(segmentKey({ x: 0, y: 0 }, { x: 10, y: 0 })).toBe(segmentKey({ x: 10, y: 0 }, { x: 0, y: 0 }));
    const u: SegmentUse = new Map();
    useSegments(
      u,
      [
        { x: 0, y: 0 },
        { x: 20, y: 0 },
      ],
      [0, 10, 20],
      [0],
    );
    expect([...u.keys()]).toEqual(['0,0,10,0', '10,0,20,0']);
  });

  it('keeps only outermost obstacles; simplifies straight runs; rounds corners', () => {
    const p = box('p', 0, 0, 300, 300);
    expect(outermost([p, box('c', 10, 10), box('o', 400, 0)]).map((b) => b.id)).toEqual(['p', 'o']);
    expect(
      simplify([
        { x: 0, y: 0 },
        { x: 5, y: 0 },
        { x: 5, y: 0 },
        { x: 10, y: 0 },
        { x: 10, y: 9 },
      ]),
    ).toEqual([
      { x: 0, y: 0 },
      { x: 10, y: 0 },
      { x: 10, y: 9 },
    ]);
    expect(
      roundedPath([
        { x: 0, y: 0 },
        { x: 20, y: 0 },
        { x: 20, y: 20 },
      ]),
    ).toBe('M0,0 L14,0 Q20,0 20,6 L20,20');
    expect(
      flattenPath(
        roundedPath([
          { x: 0, y: 0 },
          { x: 20, y: 0 },
          { x: 20, y: 20 },
        ]),
      )[0]?.at(-1),
    ).toEqual({ x: 20, y: 20 });
  });
});

describe('the error lane', () => {
  it('one badge per source box on its bottom border, listing its lane edges in order', () => {
    const boxes = new Map([['m.a', box('m.a', 0, 0, 100, 32)]]);
    const b = errorBadges(
      [
        { source: 'm.a', edge: 'e2' },
        { source: 'm.a', edge: 'e5' },
        { source: 'm.a', edge: 'e5' },
      ],
      (id) => boxes.get(id) as LayoutBox,
    );
    expect(badgeText(2)).toBe('✕2');
    expect(b).toEqual([
      { source: 'm.a', edges: ['e2', 'e5'], box: { id: 'badge:m.a', x: 72, y: 25, w: 24, h: 14 } },
    ]);
  });

  it('obstacles between two ends leave out the ends and their ancestors', () => {
    const g = {
      id: 'm',
      root: 'm',
      nodes: [
        vizNode('m', null, { children: ['m.p', 'm.q', 'm.stopped'] }),
        vizNode('m.p', 'm', { children: ['m.p.a', 'm.p.b'] }),
        vizNode('m.p.a', 'm.p'),
        vizNode('m.p.b', 'm.p'),
        vizNode('m.q', 'm'),
        vizNode('m.stopped', 'm', { final: true, type: 'final' }),
      ],
      edges: [],
    };
    const boxes = new Map(g.nodes.slice(1).map((n, i) => [n.id, box(n.id, i * 150, 0)]));
    expect(obstaclesBetween(boxes, nodeIndex(g), 'm', ['m.p.a', 'm.stopped']).map((b) => b.id)).toEqual([
      'm.p.b',
      'm.q',
    ]);
  });

  it('lane edges run to the lane, along it and into their sink; the sink path starts at the top', () => {
    const a = box('m.a', 0, 0);
    const c = box('m.c', 0, 200);
    const stopped = box('m.stopped', 150, 300);
    const boxes = new Map([
      ['m.a', a],
      ['m.c', c],
      ['m.stopped', stopped],
    ]);
    const items = [
      { e: vizEdge('e0', 'm.a', ['m.stopped']), t: 'm.stopped' },
      { e: vizEdge('e1', 'm.c', ['m.stopped']), t: 'm.stopped' },
    ];
    const r = routeLane({
      items,
      boxOf: (id) => boxes.get(id) as LayoutBox,
      obstacles: (ends) => [...boxes.values()].filter((b) => !ends.includes(b.id)),
      x: 320,
    });
    expect(r.top).toBe(10);
    expect(r.sinks).toHaveLength(1);
    expect(r.sinks[0]?.d.startsWith('M320,10')).toBe(true);
    for (const curve of r.curves) {
      const pts = flattenPath(curve.d)[0] as Pt[];
      expect(pts.some((p) => p.x === 320)).toBe(true);
      expect(pts.at(-1)).toEqual({ x: 250, y: 310 });
      for (const b of [a, c].filter((x) => pts[0]?.y !== x.y + x.h / 2)) expect(crosses(pts, b)).toBe(false);
      expect(curve.at(0).x).toBe(100);
    }
  });
});

describe('ordering and spacing for the lane and labels', () => {
  it('sinks go last in their rank', () => {
    expect(sinksLast([['m.stopped', 'm.done'], ['m.x']], new Set(['m.stopped']))).toEqual([
      ['m.done', 'm.stopped'],
      ['m.x'],
    ]);
  });

  it('left→right rank gaps grow to fit the widest label between them; top→bottom ones do not', () => {
    const ranks = [['a'], ['b'], ['c']];
    expect(
      labelGaps(
        ranks,
        [
          ['a', 'b', 120],
          ['b', 'a', 80],
          ['a', 'c', 300],
        ],
        'LR',
      ),
    ).toEqual([144, 0]);
    expect(labelGaps(ranks, [['a', 'b', 120]], 'TB')).toEqual([0, 0]);
    const sizes = new Map(['a', 'b', 'c'].map((k) => [k, { w: 96, h: 32 }]));
    const p = placeRanks(ranks, sizes, 'LR', [144, 0]);
    expect(p.rel.get('b')?.x).toBe(96 + 144);
    expect(p.rel.get('c')?.x).toBe(96 + 144 + 96 + 96);
  });
});
