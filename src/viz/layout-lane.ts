/**
 * The error lane of the SVG layout (pure): error/stop edges (see `edge-class.ts`) do not take
 * part in ranking; instead each is routed orthogonally from its source, around every box, to one
 * vertical lane right of the drawing, down (or up) the lane and into its error sink. Every box
 * they leave gets an error badge (`✕n`) on its right border, which the collapsed viewer shows
 * instead of the edges.
 */
import { alongPolyline } from './geometry.js';
import type { VizNode } from './graph.js';
import { selfAndAncestors } from './layout-check.js';
import { boxPorts, orthoRoute, type Port, roundedPath, type SegmentUse } from './layout-ortho.js';
import type { EdgeCurve, RouteItem } from './layout-route.js';
import { FONT } from './layout-size.js';
import type { ErrorBadge, ErrorLane, LayoutBox, Pt } from './layout-types.js';

/** Space between the drawing's right-most box or label and the lane. */
export const LANE_GAP = 28;
/** Height of an error badge. */
export const BADGE_H = 14;
/** Where along its way to the lane a lane edge's label is tried (fractions of that part). */
export const LANE_LABEL_SPOTS: readonly number[] = [0.5, 0.35, 0.65, 0.2, 0.8, 0.1, 0.9];

/**
 * The text of an error badge with `n` edges.
 *
 * @example
 * ```ts
 * badgeText(3); // '✕3'
 * ```
 */
export function badgeText(n: number): string {
  return `✕${n}`;
}

/**
 * The badges of the boxes lane edges leave, in edge order of their first lane edge: a pill on
 * the box's bottom border, 4 px in from its right end.
 *
 * @example
 * ```ts
 * errorBadges([{ source: 'm.a', edge: 'e2' }], (id) => boxes.get(id)!); // [{ source: 'm.a', edges: ['e2'], box: … }]
 * ```
 */
export function errorBadges(
  lane: readonly { readonly source: string; readonly edge: string }[],
  boxOf: (id: string) => LayoutBox,
): ErrorBadge[] {
  const bySource = new Map<string, string[]>();
  for (const { source, edge } of lane) {
    const list = bySource.get(source) ?? [];
    if (!list.includes(edge)) list.push(edge);
    bySource.set(source, list);
  }
  return [...bySource].map(([source, edges]) => {
    const b = boxOf(source);
    const w = Math.ceil(badgeText(edges.length).length * FONT.label + 12);
    return {
      source: b.id,
      edges,
      box: { id: `badge:${b.id}`, x: b.x + b.w - w - 4, y: b.y + b.h - BADGE_H / 2, w, h: BADGE_H },
    };
  });
}

/**
 * The obstacles of a route between `ends`: every box except the ends and their ancestors.
 *
 * @example
 * ```ts
 * obstaclesBetween(boxes, index, 'cycle', ['cycle.plan.discover', 'cycle.stopped']);
 * ```
 */
export function obstaclesBetween(
  boxes: ReadonlyMap<string, LayoutBox>,
  index: ReadonlyMap<string, VizNode>,
  root: string,
  ends: readonly string[],
): LayoutBox[] {
  const allowed = new Set<string>();
  for (const e of ends) {
    allowed.add(e);
    for (const a of selfAndAncestors(index, e, root)) allowed.add(a);
  }
  return [...boxes.values()].filter((b) => !allowed.has(b.id));
}

/** What {@link routeLane} needs to know about the drawing. */
export interface LaneInput {
  readonly items: readonly RouteItem[];
  /** The box an edge end is drawn at (the pseudo node for the root). */
  readonly boxOf: (id: string) => LayoutBox;
  readonly obstacles: (ends: readonly string[]) => LayoutBox[];
  /** The lane's x. */
  readonly x: number;
  /** Grid segments earlier routes use (shared with them, grown by these routes). */
  readonly used?: SegmentUse;
}

/**
 * Routes the lane edges: source → lane (orthogonal, around every box) → lane → sink. Returns one
 * curve per item (labels are tried on the part before the lane) and the lane with one path per
 * sink from its top.
 *
 * @example
 * ```ts
 * const { curves, sinks, top } = routeLane({ items, boxOf, obstacles, x: 900 });
 * ```
 */
export function routeLane(input: LaneInput): {
  curves: EdgeCurve[];
  sinks: { sink: string; d: string }[];
  top: number;
} {
  const { items, boxOf, obstacles, x } = input;
  const used: SegmentUse = input.used ?? new Map();
  const toLane = items.map(({ e }) => {
    const src = boxOf(e.source);
    const pts = orthoRoute(boxPorts(src), { laneX: x }, obstacles([e.source]), used) ?? [
      { x: src.x + src.w, y: src.y + src.h / 2 },
      { x, y: src.y + src.h / 2 },
    ];
    return pts;
  });
  const top = Math.min(...toLane.map((p) => (p[p.length - 1] as Pt).y));
  const entry = new Map<string, Pt[]>();
  const sinkIds = [...new Set(items.map(({ t }) => t))];
  for (const s of sinkIds) {
    const start: Port = { border: { x, y: top }, out: { x, y: top }, dir: 1 };
    const sink = boxOf(s);
    const pts = orthoRoute([start], { ports: boxPorts(sink) }, obstacles([s])) ?? [
      { x, y: top },
      { x, y: sink.y + sink.h / 2 },
      { x: sink.x + sink.w, y: sink.y + sink.h / 2 },
    ];
    entry.set(s, pts);
  }
  const curves = items.map(({ t }, i) => {
    const head = toLane[i] as Pt[];
    const tail = (entry.get(t) as Pt[]).slice(1);
    const pts = [...head, ...tail];
    return {
      d: roundedPath(dedupe(pts)),
      at: (u: number) => alongPolyline(head, u),
      candidates: LANE_LABEL_SPOTS,
    };
  });
  return {
    curves,
    sinks: sinkIds.map((s) => ({ sink: s, d: roundedPath(entry.get(s) as Pt[]) })),
    top,
  };
}

/** Drops consecutive duplicates and points that go straight on. */
function dedupe(pts: readonly Pt[]): Pt[] {
  const out: Pt[] = [];
  for (const p of pts) {
    const last = out[out.length - 1];
    if (last !== undefined && last.x === p.x && last.y === p.y) continue;
    const before = out[out.length - 2];
    if (
      before !== undefined &&
      last !== undefined &&
      ((before.x === last.x && last.x === p.x) || (before.y === last.y && last.y === p.y)) &&
      (p.x - last.x) * (last.x - before.x) + (p.y - last.y) * (last.y - before.y) >= 0
    )
      out.pop();
    out.push(p);
  }
  return out;
}

/**
 * The lane record of a layout.
 *
 * @example
 * ```ts
 * errorLane(900, 40, sinks, badges); // { x: 900, top: 40, sinks, badges }
 * ```
 */
export function errorLane(
  x: number,
  top: number,
  sinks: readonly { sink: string; d: string }[],
  badges: readonly ErrorBadge[],
): ErrorLane {
  return { x, top, sinks, badges };
}
