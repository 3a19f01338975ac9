/**
 * The legibility check (`layout-check.ts`) and what it finds on every machine's layout: no edge
 * label over a state box, no two labels over each other, no edge through a box that is not one of
 * its ends (or their ancestors) — in both top-level directions, with the error edges expanded and
 * collapsed. The check itself is shown to find planted problems, so a pass means something.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine, gateMachine, synthesisMachine } from '../../machines/index.js';
import { classifyEdges } from '../../src/viz/edge-class.js';
import { machineGraph } from '../../src/viz/graph.js';
import { layoutGraph } from '../../src/viz/layout.js';
import {
  flattenPath,
  labelHitsBox,
  layoutProblems,
  segmentCrossesBox,
  selfAndAncestors,
} from '../../src/viz/layout-check.js';
import type { EdgeRoute, GraphLayout, LayoutBox } from '../../src/viz/layout-types.js';
import { vizEdge, vizNode } from './layout-fixtures.js';

const box = (id: string, x: number, y: number, w = 100, h = 20): LayoutBox => ({ id, x, y, w, h });

const MACHINES: [string, AnyStateMachine][] = [
  ['cycle', cycleMachine as unknown as AnyStateMachine],
  ['chain', chainMachine as unknown as AnyStateMachine],
  ['gate', gateMachine as unknown as AnyStateMachine],
  ['synthesis', synthesisMachine as unknown as AnyStateMachine],
];

describe('geometry of the check', () => {
  it('flattens M/L/Q/C path data, one polyline per M', () => {
    expect(flattenPath('M0,0 L10,0')).toEqual([
      [
        { x: 0, y: 0 },
        { x: 10, y: 0 },
      ],
    ]);
    const q = flattenPath('M0,0 Q10,20 20,0');
    expect(q[0]).toHaveLength(17);
    expect(q[0]?.[8]).toEqual({ x: 10, y: 10 });
    const c = flattenPath('M0,0 C0,8 8,8 8,0 M50,50 L60,60');
    expect(c).toHaveLength(2);
    expect(c[0]?.[8]).toEqual({ x: 4, y: 6 });
    expect(() => flattenPath('M0,0 A1,1 0 0 1 2,2')).toThrow(/unsupported/);
  });

  it('a segment crosses a box only through its inside', () => {
    const r = box('r', 0, 0, 10, 10);
    expect(segmentCrossesBox({ x: -5, y: 5 }, { x: 15, y: 5 }, r, 0.5)).toBe(true);
    expect(segmentCrossesBox({ x: -5, y: 5 }, { x: 3, y: 5 }, r, 0.5)).toBe(true);
    expect(segmentCrossesBox({ x: -5, y: 0 }, { x: 15, y: 0 }, r, 0.5)).toBe(false);
    expect(segmentCrossesBox({ x: -5, y: 5 }, { x: 0, y: 5 }, r, 0.5)).toBe(false);
    expect(segmentCrossesBox({ x: -5, y: -5 }, { x: 15, y: -1 }, r, 0.5)).toBe(false);
    expect(segmentCrossesBox({ x: 5, y: -5 }, { x: 5, y: 15 }, r, 0.5)).toBe(true);
  });

  it('a label hits a leaf by overlap, a compound by its title strip or by straddling its border', () => {
    const leaf = box('l', 0, 0, 100, 32);
    const compound = box('c', 0, 0, 300, 200);
    expect(labelHitsBox(box('x', 90, 10, 30, 14), leaf, false)).toBe(true);
    expect(labelHitsBox(box('x', 101, 10, 30, 14), leaf, false)).toBe(false);
    expect(labelHitsBox(box('x', 10, 10, 30, 14), compound, true)).toBe(true);
    expect(labelHitsBox(box('x', 10, 100, 30, 14), compound, true)).toBe(false);
    expect(labelHitsBox(box('x', 290, 100, 30, 14), compound, true)).toBe(true);
    expect(labelHitsBox(box('x', 310, 100, 30, 14), compound, true)).toBe(false);
  });

  it('lists a node and its ancestors, not the root', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    const index = new Map(g.nodes.map((n) => [n.id, n]));
    expect(selfAndAncestors(index, 'cycle.plan.choose', 'cycle')).toEqual([
      'cycle.plan.choose',
      'cycle.plan',
    ]);
  });
});

describe('layoutProblems finds planted problems', () => {
  const g = {
    id: 'm',
    root: 'm',
    nodes: [
      vizNode('m', null, { children: ['m.a', 'm.b', 'm.c'] }),
      vizNode('m.a', 'm', { initial: true }),
      vizNode('m.b', 'm'),
      vizNode('m.c', 'm'),
    ],
    edges: [vizEdge('e0', 'm.a', ['m.c']), vizEdge('e1', 'm.a', ['m.b'])],
  };
  const boxes = new Map([
    ['m.a', box('m.a', 0, 0)],
    ['m.b', box('m.b', 200, 0)],
    ['m.c', box('m.c', 400, 0)],
  ]);
  const route = (edge: string, target: string, d: string, label: LayoutBox): EdgeRoute => ({
    edge,
    source: 'm.a',
    target,
    d,
    label,
    text: 'X',
    lane: false,
  });
  const layout = (edges: EdgeRoute[]): GraphLayout => ({
    minX: 0,
    minY: 0,
    width: 600,
    height: 100,
    direction: 'LR',
    boxes,
    anyState: null,
    edges,
    initials: [],
    errorLane: null,
  });

  it('an edge through a box, a label on a box and two labels on each other', () => {
    const l = layout([
      route('e0', 'm.c', 'M100,10 L400,10', box('e0', 250, 3, 20, 14)),
      route('e1', 'm.b', 'M100,10 L200,10', box('e1', 255, 3, 20, 14)),
    ]);
    expect(layoutProblems(g, l, 'expanded')).toEqual([
      { kind: 'label-box', what: 'e0', other: 'm.b' },
      { kind: 'label-box', what: 'e1', other: 'm.b' },
      { kind: 'label-label', what: 'e0', other: 'e1' },
      { kind: 'edge-box', what: 'e0>m.c', other: 'm.b' },
    ]);
  });

  it('nothing when the edge goes around and the labels sit apart', () => {
    const l = layout([
      route('e0', 'm.c', 'M50,20 L50,60 L450,60 L450,20', box('e0', 240, 62, 20, 14)),
      route('e1', 'm.b', 'M100,10 L200,10', box('e1', 140, 3, 20, 14)),
    ]);
    expect(layoutProblems(g, l, 'expanded')).toEqual([]);
  });

  it('collapsed: lane routes are skipped but the lane and badges are checked', () => {
    const lane = route('e0', 'm.c', 'M100,10 L400,10', box('e0', 250, 3, 20, 14));
    const l: GraphLayout = {
      ...layout([{ ...lane, lane: true }]),
      errorLane: {
        x: 500,
        top: 0,
        sinks: [{ sink: 'm.c', d: 'M500,0 L500,10 L100,10' }],
        badges: [{ source: 'm.a', edges: ['e0'], box: box('badge:m.a', 90, 10, 20, 14) }],
      },
    };
    expect(layoutProblems(g, l, 'collapsed')).toEqual([{ kind: 'edge-box', what: 'lane>m.c', other: 'm.b' }]);
    expect(layoutProblems(g, l, 'expanded').map((p) => p.kind)).toEqual(['label-box', 'edge-box']);
  });
});

describe('every machine lays out legibly', () => {
  for (const [name, machine] of MACHINES) {
    for (const dir of ['LR', 'TB'] as const) {
      it(`${name} ${dir}: zero label/box, label/label and edge/box problems, expanded and collapsed`, () => {
        const g = machineGraph(machine);
        const l = layoutGraph(g, dir);
        expect(layoutProblems(g, l, 'expanded')).toEqual([]);
        expect(layoutProblems(g, l, 'collapsed')).toEqual([]);
        expect(l.edges.filter((r) => r.text !== '').length).toBeGreaterThan(5);
      });
    }
  }

  it('the cycle machine: every error/stop edge runs in the lane, every state it leaves carries a badge', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    const l = layoutGraph(g);
    const stops = g.edges.filter((e) => classifyEdges(g).get(e.id) === 'stop');
    expect(stops.length).toBeGreaterThan(40);
    expect(l.edges.filter((r) => r.lane).map((r) => r.edge)).toEqual(stops.map((e) => e.id));
    expect(l.errorLane?.sinks.map((s) => s.sink)).toEqual(['cycle.stopped']);
    expect(l.errorLane?.badges.flatMap((b) => b.edges).sort()).toEqual(stops.map((e) => e.id).sort());
    expect(l.errorLane?.badges.map((b) => b.source).sort()).toEqual(
      [...new Set(stops.map((e) => e.source))].sort(),
    );
    const right = Math.max(...[...l.boxes.values()].map((b) => b.x + b.w));
    expect(l.errorLane?.x).toBeGreaterThan(right);
    for (const r of l.edges.filter((x) => x.lane)) {
      const pts = flattenPath(r.d).flat();
      expect(pts.some((p) => p.x === l.errorLane?.x)).toBe(true);
    }
  });
});
