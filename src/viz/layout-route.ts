/**
 * Edge routing of the SVG layout (pure): one route per target of every edge (a targetless edge is
 * a loop on its source). Loops are cubic curves over the top of their box, edges with dummy
 * nodes smooth paths through them, the rest quadratic curves clipped at the box borders; edges
 * between the same two boxes fan out. A curve that would pass through a box that is not one of
 * its ends (or their ancestors) is re-routed orthogonally (`layout-ortho.ts`); error/stop edges go
 * through the error lane (`layout-lane.ts`). Each label goes greedily to the first spot along its
 * curve, or beside it, that overlaps nothing (else the least-bad one: labels and badges already
 * placed weigh 3, leaf boxes 2, compound headers and borders 1).
 */
import { compactLabel } from './compact-label.js';
import {
  alongPolyline,
  centre,
  clip,
  contains,
  cubic,
  fmt,
  overlaps,
  quad,
  round,
  smoothPath,
} from './geometry.js';
import type { MachineGraph, VizEdge, VizNode } from './graph.js';
import { drawnBox, flattenPath, segmentCrossesBox } from './layout-check.js';
import { errorBadges, errorLane, LANE_GAP, obstaclesBetween, routeLane } from './layout-lane.js';
import { boxPorts, orthoRoute, roundedPath, type SegmentUse } from './layout-ortho.js';
import { FONT, HEADER } from './layout-size.js';
import type { EdgeRoute, ErrorLane, LayoutBox, Pt } from './layout-types.js';

/** Height of a label box. */
export const LABEL_H = 14;
/**
 * The width of a label box for `text` (0 for no text).
 *
 * @example
 * ```ts
 * labelWidth('GO'); // 20
 * ```
 */
export function labelWidth(text: string): number {
  return text === '' ? 0 : Math.ceil(text.length * FONT.label + 8);
}

/** Where along a curve a label is tried, in order (fractions of the curve's parameter). */
export const LABEL_SPOTS: readonly number[] = [0.5, 0.38, 0.62, 0.28, 0.72, 0.18, 0.82, 0.45, 0.55];
/** Where along a path through dummy nodes a label is tried, in order (fractions of its length). */
export const WAYPOINT_LABEL_SPOTS: readonly number[] = [0.12, 0.2, 0.28, 0.36, 0.5, 0.64, 0.8];

/** One edge to one of its targets. */
export interface RouteItem {
  readonly e: VizEdge;
  readonly t: string;
}

/** A routed curve: its SVG path data, a point function over it and where to try its label. */
export interface EdgeCurve {
  readonly d: string;
  readonly at: (u: number) => Pt;
  readonly candidates: readonly number[];
}

/**
 * What a label should not cover. `placed` grows as labels (and error badges) are placed;
 * `compounds` (optional) are compound boxes a label must not straddle.
 */
export interface LabelObstacles {
  readonly placed: readonly LayoutBox[];
  readonly leaves: readonly LayoutBox[];
  readonly headers: readonly LayoutBox[];
  readonly compounds?: readonly LayoutBox[];
}

/**
 * The routes to draw, in edge order: one per target, the source itself for a targetless edge.
 *
 * @example
 * ```ts
 * routeItems([{ ...e, source: 'm.a', targets: [] }]); // [{ e, t: 'm.a' }]
 * ```
 */
export function routeItems(edges: readonly VizEdge[]): RouteItem[] {
  const items: RouteItem[] = [];
  for (const e of edges)
    for (const t of e.targets.length === 0 ? [e.source] : e.targets) items.push({ e, t });
  return items;
}

/**
 * The unordered pair key of two node ids (routes between the same two boxes share it).
 *
 * @example
 * ```ts
 * pairKey('m.b', 'm.a'); // 'm.a|m.b'
 * ```
 */
export function pairKey(a: string, b: string): string {
  return a < b ? `${a}|${b}` : `${b}|${a}`;
}

/**
 * For each route, its place among the routes between the same two boxes and their number.
 *
 * @example
 * ```ts
 * fanOut([{ e: a2b, t: 'b' }, { e: b2a, t: 'a' }]); // [{ k: 0, n: 2 }, { k: 1, n: 2 }]
 * ```
 */
export function fanOut(items: readonly RouteItem[]): { k: number; n: number }[] {
  const pairCount = new Map<string, number>();
  for (const { e, t } of items)
    pairCount.set(pairKey(e.source, t), (pairCount.get(pairKey(e.source, t)) ?? 0) + 1);
  const pairSeen = new Map<string, number>();
  return items.map(({ e, t }) => {
    const key = pairKey(e.source, t);
    const k = pairSeen.get(key) ?? 0;
    pairSeen.set(key, k + 1);
    return { k, n: pairCount.get(key) as number };
  });
}

/**
 * A loop over the top of box `a`, the `k`th of `n` loops on it (shifted 30 px apart, each 10 px
 * higher).
 *
 * @example
 * ```ts
 * selfLoopCurve({ id: 'a', x: 0, y: 100, w: 100, h: 32 }, 0, 1).d; // 'M60,100 C84,66 16,66 40,100'
 * ```
 */
export function selfLoopCurve(a: LayoutBox, k: number, n: number): EdgeCurve {
  const cx = a.x + a.w / 2 + (k - (n - 1) / 2) * 30;
  const top = a.y;
  const lift = 34 + k * 10;
  const p0 = { x: cx + 10, y: top };
  const p3 = { x: cx - 10, y: top };
  const c1 = { x: cx + 34, y: top - lift };
  const c2 = { x: cx - 34, y: top - lift };
  return {
    d: `M${fmt(p0.x)},${fmt(p0.y)} C${fmt(c1.x)},${fmt(c1.y)} ${fmt(c2.x)},${fmt(c2.y)} ${fmt(p3.x)},${fmt(p3.y)}`,
    at: (u) => cubic(p0, c1, c2, p3, u),
    candidates: LABEL_SPOTS,
  };
}

/**
 * A smooth path from box `a` through the dummy-node points `via` (at least one) to box `b`,
 * clipped at both borders.
 *
 * @example
 * ```ts
 * waypointCurve(a, b, [{ x: 200, y: 16 }]).d; // 'M96,16 C… 200,16 C… 288,16'
 * ```
 */
export function waypointCurve(a: LayoutBox, b: LayoutBox, via: readonly Pt[]): EdgeCurve {
  const p0 = clip(a, via[0] as Pt);
  const pn = clip(b, via[via.length - 1] as Pt);
  const pts = [p0, ...via, pn];
  return { d: smoothPath(pts), at: (u) => alongPolyline(pts, u), candidates: WAYPOINT_LABEL_SPOTS };
}

/**
 * A quadratic curve between the centres of `a` and `b`, clipped at their borders unless one box
 * holds the other; the `k`th of `n` curves between the same boxes bends 52 px per step to the
 * side `side` (1 when the source id sorts first, else -1, so both directions share one fan).
 *
 * @example
 * ```ts
 * directCurve({ id: 'a', x: 0, y: 0, w: 100, h: 20 }, { id: 'b', x: 200, y: 0, w: 100, h: 20 }, 0, 1, 1).d;
 * // 'M100,10 Q150,10 200,10'
 * ```
 */
export function directCurve(a: LayoutBox, b: LayoutBox, k: number, n: number, side: 1 | -1): EdgeCurve {
  const ca = centre(a);
  const cb = centre(b);
  const offset = (k - (n - 1) / 2) * 26 * side;
  const dx = cb.x - ca.x;
  const dy = cb.y - ca.y;
  const len = Math.hypot(dx, dy) || 1;
  const nx = -dy / len;
  const ny = dx / len;
  const mid = { x: (ca.x + cb.x) / 2 + nx * offset * 2, y: (ca.y + cb.y) / 2 + ny * offset * 2 };
  const nested = contains(a, b) || contains(b, a);
  const p0 = nested ? ca : clip(a, mid);
  const p2 = nested ? cb : clip(b, mid);
  return {
    d: `M${fmt(p0.x)},${fmt(p0.y)} Q${fmt(mid.x)},${fmt(mid.y)} ${fmt(p2.x)},${fmt(p2.y)}`,
    at: (u) => quad(p0, mid, p2, u),
    candidates: LABEL_SPOTS,
  };
}

/**
 * The curve of one route: a loop when source and target are the same node, a path through its
 * dummy nodes when it has any, else a direct curve.
 *
 * @example
 * ```ts
 * edgeCurve({ e, t }, boxOf(e.source), boxOf(t), { k: 0, n: 1 }, []).d;
 * ```
 */
export function edgeCurve(
  item: RouteItem,
  a: LayoutBox,
  b: LayoutBox,
  fan: { k: number; n: number },
  via: readonly Pt[],
): EdgeCurve {
  const { e, t } = item;
  if (e.source === t) return selfLoopCurve(a, fan.k, fan.n);
  if (via.length > 0) return waypointCurve(a, b, via);
  return directCurve(a, b, fan.k, fan.n, e.source < t ? 1 : -1);
}

/**
 * The boxes labels avoid: leaf boxes (and the pseudo node), the title strips of compounds and
 * the compounds themselves (not to be straddled); `placed` starts empty.
 *
 * @example
 * ```ts
 * labelObstacles(boxes, (id) => index.get(id)!.children.length > 0).headers[0].h; // 24
 * ```
 */
export function labelObstacles(
  boxes: ReadonlyMap<string, LayoutBox>,
  isCompound: (id: string) => boolean,
): { placed: LayoutBox[]; leaves: LayoutBox[]; headers: LayoutBox[]; compounds: LayoutBox[] } {
  const compounds = [...boxes.values()].filter((b) => isCompound(b.id));
  return {
    placed: [],
    leaves: [...boxes.values()].filter((b) => !isCompound(b.id)),
    headers: compounds.map((b) => ({ id: b.id, x: b.x, y: b.y, w: b.w, h: HEADER })),
    compounds,
  };
}

/** How badly a label box runs into the obstacles (placed 3, leaves 2, headers and borders 1). */
function labelHits(box: LayoutBox, obstacles: LabelObstacles): number {
  const straddles = (obstacles.compounds ?? []).filter((c) => overlaps(c, box) && !contains(c, box)).length;
  return (
    obstacles.placed.filter((q) => overlaps(q, box)).length * 3 +
    obstacles.leaves.filter((q) => overlaps(q, box)).length * 2 +
    obstacles.headers.filter((q) => overlaps(q, box)).length +
    straddles
  );
}

/**
 * The label box of an edge on `curve`: an empty label is a zero-width box at the curve's middle;
 * otherwise the first candidate spot that overlaps nothing — centred on the curve at each
 * candidate, then beside it (above, below), then at finer steps along it, then two or three times
 * as far above or below it (next to a neighbour's label where two edges leave a box side by
 * side) — else the one with the fewest weighted overlaps (earliest on ties).
 *
 * @example
 * ```ts
 * placeLabel('e0', 'GO', curve, { placed: [], leaves: [], headers: [] }); // { id: 'e0', x: …, w: 20, h: 14 }
 * ```
 */
export function placeLabel(id: string, text: string, curve: EdgeCurve, obstacles: LabelObstacles): LayoutBox {
  if (text === '') {
    const p = curve.at(0.5);
    return { id, x: round(p.x), y: round(p.y - LABEL_H / 2), w: 0, h: LABEL_H };
  }
  const lw = labelWidth(text);
  const fine: number[] = [];
  for (let k = 1; k < 40; k++) fine.push(k / 40);
  const tries: [number, number, number][] = [];
  for (const u of curve.candidates) tries.push([u, 0, 0]);
  for (const u of curve.candidates)
    for (const [dx, dy] of [
      [0, -(LABEL_H / 2 + 2)],
      [0, LABEL_H / 2 + 2],
      [lw / 2 + 3, 0],
      [-(lw / 2 + 3), 0],
    ] as const)
      tries.push([u, dx, dy]);
  for (const u of fine)
    for (const [dx, dy] of [
      [0, 0],
      [0, -(LABEL_H / 2 + 2)],
      [0, LABEL_H / 2 + 2],
      [lw / 2 + 3, 0],
      [-(lw / 2 + 3), 0],
    ] as const)
      tries.push([u, dx, dy]);
  // last resort: further above or below the curve (stacked next to a neighbour's label)
  for (const k of [2, 3])
    for (const u of fine)
      for (const dx of [0, lw / 2 + 3, -(lw / 2 + 3)])
        for (const dy of [-k * (LABEL_H / 2 + 2), k * (LABEL_H / 2 + 2)]) tries.push([u, dx, dy]);
  let best: LayoutBox | null = null;
  let bestHits = Number.POSITIVE_INFINITY;
  for (const [u, dx, dy] of tries) {
    const p = curve.at(u);
    const box = { id, x: round(p.x + dx - lw / 2), y: round(p.y + dy - LABEL_H / 2), w: lw, h: LABEL_H };
    const hits = labelHits(box, obstacles);
    if (hits < bestHits) {
      best = box;
      bestHits = hits;
    }
    if (hits === 0) break;
  }
  return best as LayoutBox;
}

/**
 * True when a curve passes through a box in `obstacles` (sampled as drawn).
 *
 * @example
 * ```ts
 * curveHits(directCurve(a, c, 0, 1, 1), [b]); // true when b sits between a and c
 * ```
 */
export function curveHits(curve: EdgeCurve, obstacles: readonly LayoutBox[]): boolean {
  for (const line of flattenPath(curve.d))
    for (let k = 0; k + 1 < line.length; k++)
      for (const b of obstacles) if (segmentCrossesBox(line[k] as Pt, line[k + 1] as Pt, b, 0.5)) return true;
  return false;
}

/**
 * An orthogonal curve from box `a` to box `b` around `obstacles`, or null when there is none.
 *
 * @example
 * ```ts
 * orthoCurve(a, b, [wall])?.d; // 'M… L… Q… …'
 * ```
 */
export function orthoCurve(
  a: LayoutBox,
  b: LayoutBox,
  obstacles: readonly LayoutBox[],
  used: SegmentUse = new Map(),
): EdgeCurve | null {
  const pts = orthoRoute(boxPorts(a), { ports: boxPorts(b) }, obstacles, used);
  if (pts === null) return null;
  return { d: roundedPath(pts), at: (u) => alongPolyline(pts, u), candidates: WAYPOINT_LABEL_SPOTS };
}

/**
 * Routes every edge of `g` over placed boxes: the root's own transitions start at the `anyState`
 * pseudo node, `viaOf(<edge id>><target>)` gives the dummy-node points of a route. Edges in
 * `lane` (error/stop edges, see `edge-class.ts`) go through the error lane right of the drawing
 * (`layout-lane.ts`); every other curve that would pass through a box is re-routed orthogonally
 * around the boxes. Main labels are placed first, then the error badges, then lane labels.
 *
 * @example
 * ```ts
 * routeEdges(g, nodeIndex(g), boxes, null, () => [])[0]; // { edge: 'e0', source, target, d, label, text, lane }
 * ```
 */
export function routeEdges(
  g: MachineGraph,
  index: ReadonlyMap<string, VizNode>,
  boxes: ReadonlyMap<string, LayoutBox>,
  anyState: string | null,
  viaOf: (routeKey: string) => readonly Pt[],
  lane: ReadonlySet<string> = new Set(),
): { edges: EdgeRoute[]; errorLane: ErrorLane | null } {
  const endId = (id: string): string => (id === g.root && anyState !== null ? anyState : id);
  const boxOf = (id: string): LayoutBox => boxes.get(endId(id)) as LayoutBox;
  const isCompound = (id: string): boolean =>
    id !== anyState && (index.get(id) as VizNode).children.length > 0;
  const labelled = labelObstacles(boxes, isCompound);
  const obstacles = {
    ...labelled,
    leaves: labelled.leaves.map((b) => drawnBox(b, index.get(b.id)?.final === true)),
  };
  const between = (ends: readonly string[]): LayoutBox[] =>
    obstaclesBetween(boxes, index, g.root, ends.map(endId));
  const items = routeItems(g.edges);
  const laneItems = items.map((item, i) => ({ item, i })).filter(({ item }) => lane.has(item.e.id));
  const badges = errorBadges(
    laneItems.map(({ item }) => ({ source: endId(item.e.source), edge: item.e.id })),
    (id) => boxes.get(id) as LayoutBox,
  );
  for (const bd of badges) obstacles.placed.push(bd.box);
  const fans = fanOut(items.filter(({ e }) => !lane.has(e.id)));
  const routes = new Map<number, EdgeRoute>();
  const used: SegmentUse = new Map();
  let f = 0;
  items.forEach((item, i) => {
    const { e, t } = item;
    if (lane.has(e.id)) return;
    const text = compactLabel(e, index.get(e.source));
    const a = boxOf(e.source);
    const b = boxOf(t);
    let curve = edgeCurve(item, a, b, fans[f++] as { k: number; n: number }, viaOf(`${e.id}>${t}`));
    const walls = between([e.source, t]);
    if (e.source !== t && curveHits(curve, walls)) curve = orthoCurve(a, b, walls, used) ?? curve;
    const label = placeLabel(e.id, text, curve, obstacles);
    if (text !== '') obstacles.placed.push(label);
    routes.set(i, { edge: e.id, source: e.source, target: t, d: curve.d, label, text, lane: false });
  });
  let errorLaneOut: ErrorLane | null = null;
  if (laneItems.length > 0) {
    let right = 0;
    for (const bx of boxes.values()) right = Math.max(right, bx.x + bx.w);
    for (const p of obstacles.placed) right = Math.max(right, p.x + p.w);
    for (const bd of badges) right = Math.max(right, bd.box.x + bd.box.w);
    const x = round(right + LANE_GAP);
    const { curves, sinks, top } = routeLane({
      items: laneItems.map(({ item }) => item),
      boxOf,
      obstacles: between,
      x,
      used,
    });
    laneItems.forEach(({ item, i }, k) => {
      const { e, t } = item;
      const curve = curves[k] as EdgeCurve;
      const text = compactLabel(e, index.get(e.source));
      const label = placeLabel(e.id, text, curve, obstacles);
      if (text !== '') obstacles.placed.push(label);
      routes.set(i, { edge: e.id, source: e.source, target: t, d: curve.d, label, text, lane: true });
    });
    errorLaneOut = errorLane(x, top, sinks, badges);
  }
  return { edges: items.map((_, i) => routes.get(i) as EdgeRoute), errorLane: errorLaneOut };
}
