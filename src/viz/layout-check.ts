/**
 * Legibility checks of a finished layout (pure): flattens the drawn SVG paths and counts
 *
 * - label/box overlaps: an edge label (or an error badge) over a leaf box (a final state's with
 *   its outer ring), over a compound's
 *   title strip, or straddling a compound's border;
 * - label/label overlaps;
 * - edge crossings: a path segment through the inside of a box that is neither an end of the edge
 *   nor an ancestor of one (edges may leave and enter their own ancestors).
 *
 * The tests require zero of each for every machine, in both the expanded and collapsed viewer.
 */
import { overlaps } from './geometry.js';
import type { MachineGraph, VizNode } from './graph.js';
import { HEADER } from './layout-size.js';
import type { GraphLayout, LayoutBox, Pt } from './layout-types.js';

/** One problem found by {@link layoutProblems}. */
export interface LayoutProblem {
  readonly kind: 'label-box' | 'label-label' | 'edge-box';
  /** The label's edge id, badge id or route (`<edge>><target>`). */
  readonly what: string;
  /** The box or other label it runs into. */
  readonly other: string;
}

/**
 * Points along SVG path data made of `M`, `L`, `Q` and `C` commands (absolute), curves sampled
 * in 16 steps; one polyline per `M`.
 *
 * @example
 * ```ts
 * flattenPath('M0,0 L10,0'); // [[{ x: 0, y: 0 }, { x: 10, y: 0 }]]
 * ```
 */
export function flattenPath(d: string): Pt[][] {
  const tokens = d.match(/[MLQC]|-?\d+(?:\.\d+)?(?:e-?\d+)?/g) ?? [];
  const lines: Pt[][] = [];
  let cur: Pt[] = [];
  let i = 0;
  const num = (): number => Number(tokens[i++]);
  const pt = (): Pt => {
    const x = num();
    return { x, y: num() };
  };
  while (i < tokens.length) {
    const c = tokens[i++];
    if (c === 'M') {
      cur = [pt()];
      lines.push(cur);
    } else if (c === 'L') cur.push(pt());
    else if (c === 'Q') {
      const p0 = cur[cur.length - 1] as Pt;
      const c1 = pt();
      const p2 = pt();
      for (let k = 1; k <= 16; k++) {
        const u = k / 16;
        const v = 1 - u;
        cur.push({
          x: v * v * p0.x + 2 * v * u * c1.x + u * u * p2.x,
          y: v * v * p0.y + 2 * v * u * c1.y + u * u * p2.y,
        });
      }
    } else if (c === 'C') {
      const p0 = cur[cur.length - 1] as Pt;
      const c1 = pt();
      const c2 = pt();
      const p3 = pt();
      for (let k = 1; k <= 16; k++) {
        const u = k / 16;
        const v = 1 - u;
        cur.push({
          x: v * v * v * p0.x + 3 * v * v * u * c1.x + 3 * v * u * u * c2.x + u * u * u * p3.x,
          y: v * v * v * p0.y + 3 * v * v * u * c1.y + 3 * v * u * u * c2.y + u * u * u * p3.y,
        });
      }
    } else throw new Error(`unsupported path command ${c}`);
  }
  return lines;
}

/**
 * True when the segment `a`–`b` passes through the inside of box `r` shrunk by `inset` px
 * (Liang–Barsky clipping; touching the shrunk border does not count).
 *
 * @example
 * ```ts
 * segmentCrossesBox({ x: -5, y: 5 }, { x: 15, y: 5 }, { id: 'r', x: 0, y: 0, w: 10, h: 10 }, 1); // true
 * ```
 */
export function segmentCrossesBox(a: Pt, b: Pt, r: LayoutBox, inset: number): boolean {
  const x0 = r.x + inset;
  const x1 = r.x + r.w - inset;
  const y0 = r.y + inset;
  const y1 = r.y + r.h - inset;
  if (x0 >= x1 || y0 >= y1) return false;
  const dx = b.x - a.x;
  const dy = b.y - a.y;
  let t0 = 0;
  let t1 = 1;
  const edges: [number, number][] = [
    [-dx, a.x - x0],
    [dx, x1 - a.x],
    [-dy, a.y - y0],
    [dy, y1 - a.y],
  ];
  for (const [p, q] of edges) {
    if (p === 0) {
      if (q <= 0) return false;
    } else {
      const t = q / p;
      if (p < 0) t0 = Math.max(t0, t);
      else t1 = Math.min(t1, t);
      if (t0 >= t1) return false;
    }
  }
  return t1 - t0 > 1e-9;
}

/**
 * The ids of a node and all its ancestors (not the root).
 *
 * @example
 * ```ts
 * selfAndAncestors(index, 'cycle.plan.choose', 'cycle'); // ['cycle.plan.choose', 'cycle.plan']
 * ```
 */
export function selfAndAncestors(index: ReadonlyMap<string, VizNode>, id: string, root: string): string[] {
  const out: string[] = [];
  for (let c: string | null = id; c !== null && c !== root; c = index.get(c)?.parent ?? null) out.push(c);
  return out;
}

/** How far a final state's outer ring (drawn by the viewer) reaches beyond its box. */
export const FINAL_RING = 3;

/**
 * The box a state is drawn in: a final state's box grown by its outer ring.
 *
 * @example
 * ```ts
 * drawnBox({ id: 'm.done', x: 10, y: 10, w: 50, h: 20 }, true); // { id: 'm.done', x: 7, y: 7, w: 56, h: 26 }
 * ```
 */
export function drawnBox(b: LayoutBox, final: boolean): LayoutBox {
  return final
    ? { id: b.id, x: b.x - FINAL_RING, y: b.y - FINAL_RING, w: b.w + 2 * FINAL_RING, h: b.h + 2 * FINAL_RING }
    : b;
}

/**
 * True when `label` runs into box `b`: over a leaf (or the pseudo node), over a compound's title
 * strip, or across a compound's border (partly inside, partly outside).
 *
 * @example
 * ```ts
 * labelHitsBox(label, leafBox, false); // true when they overlap
 * ```
 */
export function labelHitsBox(label: LayoutBox, b: LayoutBox, compound: boolean): boolean {
  if (!compound) return overlaps(label, b);
  if (overlaps(label, { ...b, h: HEADER })) return true;
  const inside =
    label.x >= b.x && label.y >= b.y && label.x + label.w <= b.x + b.w && label.y + label.h <= b.y + b.h;
  return overlaps(label, b) && !inside;
}

/**
 * Every legibility problem of a layout: label/box, label/label and edge/box (see the module
 * comment). `lanes` says which routes to count: all (the expanded viewer) or only the routes
 * that are not collapsed plus the error badges and lane (the collapsed viewer).
 *
 * @example
 * ```ts
 * layoutProblems(g, layoutGraph(g), 'expanded'); // []
 * ```
 */
export function layoutProblems(
  g: MachineGraph,
  l: GraphLayout,
  lanes: 'expanded' | 'collapsed',
): LayoutProblem[] {
  const index = new Map(g.nodes.map((n) => [n.id, n]));
  const isCompound = (id: string): boolean => (index.get(id)?.children.length ?? 0) > 0;
  const problems: LayoutProblem[] = [];
  const boxes = [...l.boxes.values()];
  const drawn = boxes.map((b) => drawnBox(b, index.get(b.id)?.final === true));
  const routes = l.edges.filter((r) => lanes === 'expanded' || !r.lane);
  const labels: LayoutBox[] = routes.filter((r) => r.text !== '').map((r) => r.label);
  const badges: LayoutBox[] = (l.errorLane?.badges ?? []).map((b) => b.box);
  for (const lb of labels)
    for (const b of drawn)
      if (labelHitsBox(lb, b, isCompound(b.id)))
        problems.push({ kind: 'label-box', what: lb.id, other: b.id });
  for (const bd of l.errorLane?.badges ?? [])
    for (const b of drawn)
      if (b.id !== bd.source && labelHitsBox(bd.box, b, isCompound(b.id)))
        problems.push({ kind: 'label-box', what: bd.box.id, other: b.id });
  const all = [...labels, ...badges];
  for (let i = 0; i < all.length; i++)
    for (let j = i + 1; j < all.length; j++)
      if (overlaps(all[i] as LayoutBox, all[j] as LayoutBox))
        problems.push({
          kind: 'label-label',
          what: (all[i] as LayoutBox).id,
          other: (all[j] as LayoutBox).id,
        });
  const paths: { what: string; d: string; ends: string[] }[] = routes.map((r) => ({
    what: `${r.edge}>${r.target}`,
    d: r.d,
    ends: [r.source, r.target],
  }));
  if (lanes === 'collapsed' && l.errorLane !== null)
    for (const s of l.errorLane.sinks) paths.push({ what: `lane>${s.sink}`, d: s.d, ends: [s.sink] });
  for (const p of paths) {
    const allowed = new Set<string>();
    for (const e of p.ends) {
      const id = e === g.root && l.anyState !== null ? l.anyState : e;
      allowed.add(id);
      for (const a of selfAndAncestors(index, id, g.root)) allowed.add(a);
    }
    const hit = new Set<string>();
    for (const line of flattenPath(p.d))
      for (let k = 0; k + 1 < line.length; k++)
        for (const b of boxes)
          if (
            !allowed.has(b.id) &&
            !hit.has(b.id) &&
            segmentCrossesBox(line[k] as Pt, line[k + 1] as Pt, b, 0.5)
          )
            hit.add(b.id);
    for (const b of hit) problems.push({ kind: 'edge-box', what: p.what, other: b });
  }
  return problems;
}
