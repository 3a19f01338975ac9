/**
 * The layout's edge routing: one route per target, fan-out of parallel routes, loops, paths
 * through dummy nodes, clipped direct curves, greedy label spots; and the whole layout of a small
 * chain, where the long edge and the back edge pass through their dummy nodes.
 */
import { describe, expect, it } from 'vitest';
import { nodeIndex } from '../../src/viz/graph.js';
import { layoutGraph } from '../../src/viz/layout.js';
import {
  directCurve,
  edgeCurve,
  fanOut,
  LABEL_H,
  LABEL_SPOTS,
  labelObstacles,
  pairKey,
  placeLabel,
  routeEdges,
  routeItems,
  selfLoopCurve,
  WAYPOINT_LABEL_SPOTS,
  waypointCurve,
} from '../../src/viz/layout-route.js';
import { HEADER } from '../../src/viz/layout-size.js';
import type { LayoutBox } from '../../src/viz/layout-types.js';
import { chainGraph, vizEdge, vizNode } from './layout-fixtures.js';

const box = (id: string, x: number, y: number, w = 100, h = 20): LayoutBox => ({ id, x, y, w, h });
const none = { placed: [], leaves: [], headers: [] };

describe('routes and fan-out', () => {
  it('one route per target; a targetless edge loops on its source', () => {
    const e0 = vizEdge('e0', 'm.a', ['m.b', 'm.c']);
    const e1 = vizEdge('e1', 'm.a', []);
    expect(routeItems([e0, e1]).map(({ e, t }) => `${e.id}>${t}`)).toEqual(['e0>m.b', 'e0>m.c', 'e1>m.a']);
  });

  it('routes between the same two boxes, either way, are numbered in order', () => {
    expect(pairKey('m.b', 'm.a')).toBe('m.a|m.b');
    const items = routeItems([
      vizEdge('e0', 'm.a', ['m.b']),
      vizEdge('e1', 'm.b', ['m.a']),
      vizEdge('e2', 'm.a', ['m.c']),
      vizEdge('e3', 'm.a', ['m.b']),
    ]);
    expect(fanOut(items)).toEqual([
      { k: 0, n: 3 },
      { k: 1, n: 3 },
      { k: 0, n: 1 },
      { k: 2, n: 3 },
    ]);
  });
});

describe('curves', () => {
  it('a loop rises over the top of its box, later loops higher and shifted', () => {
    const a = box('a', 0, 100, 100, 32);
    expect(selfLoopCurve(a, 0, 1).d).toBe('M60,100 C84,66 16,66 40,100');
    expect(selfLoopCurve(a, 1, 2).d).toBe('M75,100 C99,56 31,56 55,100');
    expect(selfLoopCurve(a, 0, 1).at(0)).toEqual({ x: 60, y: 100 });
    expect(selfLoopCurve(a, 0, 1).candidates).toBe(LABEL_SPOTS);
  });

  it('a direct curve is clipped at both borders and bends apart when parallel', () => {
    const a = box('a', 0, 0);
    const b = box('b', 200, 0);
    expect(directCurve(a, b, 0, 1, 1).d).toBe('M100,10 Q150,10 200,10');
    expect(directCurve(a, b, 0, 2, 1).d).toBe('M88.5,0 Q150,-16 211.5,0');
    expect(directCurve(a, b, 0, 2, -1).d).toBe('M88.5,20 Q150,36 211.5,20');
  });

  it('a curve between nested boxes runs centre to centre', () => {
    expect(directCurve(box('p', 0, 0, 400, 200), box('c', 10, 30), 0, 1, 1).d).toBe('M200,100 Q130,70 60,40');
  });

  it('a path through dummy points starts and ends at the borders and tries its own label spots', () => {
    const c = waypointCurve(box('a', 0, 0, 96, 32), box('b', 288, 0, 96, 32), [{ x: 200, y: 16 }]);
    expect(c.d).toBe('M96,16 C113.3,16 168,16 200,16 C232,16 273.3,16 288,16');
    expect(c.at(0.5).x).toBeCloseTo(192);
    expect(c.candidates).toBe(WAYPOINT_LABEL_SPOTS);
  });

  it('edgeCurve picks loop, then waypoints, then direct', () => {
    const a = box('m.a', 0, 0);
    const b = box('m.b', 200, 0);
    const loop = vizEdge('e0', 'm.a', []);
    expect(edgeCurve({ e: loop, t: 'm.a' }, a, a, { k: 0, n: 1 }, [{ x: 1, y: 1 }]).d).toBe(
      selfLoopCurve(a, 0, 1).d,
    );
    const e = vizEdge('e1', 'm.a', ['m.b']);
    expect(edgeCurve({ e, t: 'm.b' }, a, b, { k: 0, n: 1 }, [{ x: 150, y: 60 }]).d).toBe(
      waypointCurve(a, b, [{ x: 150, y: 60 }]).d,
    );
    expect(edgeCurve({ e, t: 'm.b' }, a, b, { k: 0, n: 2 }, []).d).toBe(directCurve(a, b, 0, 2, 1).d);
    const back = vizEdge('e2', 'm.b', ['m.a']);
    expect(edgeCurve({ e: back, t: 'm.a' }, b, a, { k: 1, n: 2 }, []).d).toBe(directCurve(b, a, 1, 2, -1).d);
  });
});

describe('labels', () => {
  const straight = directCurve(box('a', 0, 0), box('b', 200, 0), 0, 1, 1);

  it('an empty label is a zero-width box at the middle of the curve', () => {
    expect(placeLabel('e0', '', straight, none)).toEqual({
      id: 'e0',
      x: 150,
      y: 10 - LABEL_H / 2,
      w: 0,
      h: LABEL_H,
    });
  });

  it('takes the first free spot; avoids placed labels, then leaves, then headers', () => {
    const first = placeLabel('e0', 'GO', straight, none);
    expect(first).toEqual({ id: 'e0', x: 140, y: 3, w: 20, h: LABEL_H });
    const second = placeLabel('e1', 'GO', straight, { ...none, placed: [first] });
    expect(second.x).toBe(118);
    const blockedEverywhere = { placed: [], leaves: [], headers: [box('h', -1000, -1000, 3000, 3000)] };
    expect(placeLabel('e2', 'GO', straight, blockedEverywhere)).toEqual({ ...first, id: 'e2' });
    const leafAtMiddle = {
      placed: [],
      leaves: [box('l', 140, 0, 20, 20)],
      headers: [box('h', 0, -40, 400, 80)],
    };
    expect(placeLabel('e3', 'GO', straight, leafAtMiddle)).toEqual({ ...first, id: 'e3', x: 118 });
  });

  it('when every spot on and beside the curve is taken, the label stacks further above or below it', () => {
    const band = { placed: [box('p', -1000, 0, 3000, 20)], leaves: [], headers: [] };
    const l = placeLabel('e4', 'GO', straight, band);
    expect(l.y).toBe(10 - 2 * (LABEL_H / 2 + 2) - LABEL_H / 2);
    expect(l.y + l.h).toBeLessThanOrEqual(0);
    expect(Math.abs(l.x + l.w / 2 - 150)).toBeLessThanOrEqual(50);
  });

  it('obstacles are leaf boxes and the header strips of compounds', () => {
    const boxes = new Map([
      ['m.p', box('m.p', 0, 0, 300, 200)],
      ['m.p.x', box('m.p.x', 10, 30)],
    ]);
    const o = labelObstacles(boxes, (id) => id === 'm.p');
    expect(o.leaves.map((b) => b.id)).toEqual(['m.p.x']);
    expect(o.headers).toEqual([{ id: 'm.p', x: 0, y: 0, w: 300, h: HEADER }]);
    expect(o.placed).toEqual([]);
  });
});

describe('routeEdges', () => {
  it('routes root transitions from the (any state) box and records each placed label', () => {
    const g = {
      id: 'm',
      root: 'm',
      nodes: [vizNode('m', null, { children: ['m.a'] }), vizNode('m.a', 'm', { initial: true })],
      edges: [vizEdge('e0', 'm', ['m.a']), vizEdge('e1', 'm', ['m.a'])],
    };
    const boxes = new Map([
      ['m::any', box('m::any', 0, 0, 110, 32)],
      ['m.a', box('m.a', 300, 0, 96, 32)],
    ]);
    const { edges: routes, errorLane } = routeEdges(g, nodeIndex(g), boxes, 'm::any', () => []);
    expect(errorLane).toBeNull();
    expect(routes.map((r) => [r.edge, r.source, r.target, r.text])).toEqual([
      ['e0', 'm', 'm.a', 'E0'],
      ['e1', 'm', 'm.a', 'E1'],
    ]);
    expect(routes[0]?.d).toBe(
      directCurve(box('m::any', 0, 0, 110, 32), boxes.get('m.a') as LayoutBox, 0, 2, 1).d,
    );
    const [l0, l1] = routes.map((r) => r.label) as [LayoutBox, LayoutBox];
    expect(l0.x < l1.x + l1.w && l1.x < l0.x + l0.w && l0.y < l1.y + l1.h && l1.y < l0.y + l0.h).toBe(false);
  });
});

describe('layoutGraph on a small chain', () => {
  it('ranks a → b → c → done left to right; a → c and c → a pass through dummy points', () => {
    const l = layoutGraph(chainGraph(), 'LR');
    const x = (id: string) => (l.boxes.get(id) as LayoutBox).x;
    expect(x('m.a') < x('m.b') && x('m.b') < x('m.c') && x('m.c') < x('m.done')).toBe(true);
    expect([...l.boxes.keys()].some((k) => k.startsWith('~'))).toBe(false);
    const route = (edge: string) => l.edges.find((r) => r.edge === edge);
    expect(route('e0')?.d).toMatch(/^M[^C]* Q/);
    expect(route('e3')?.d.split(' C')).toHaveLength(3);
    expect(route('e4')?.d.split(' C')).toHaveLength(3);
    expect(l.initials).toEqual([expect.objectContaining({ parent: 'm', child: 'm.a', x2: x('m.a') })]);
  });

  it('the same graph gives the same layout twice', () => {
    const a = layoutGraph(chainGraph());
    const b = layoutGraph(chainGraph());
    expect({ ...b, boxes: [...b.boxes] }).toEqual({ ...a, boxes: [...a.boxes] });
  });
});
