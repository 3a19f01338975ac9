/**
 * A small deterministic layered layout for the HTML/SVG viewer (pure, no randomness, no
 * floating state): each compound state lays out its children in ranks (depth-first back-edge
 * removal, longest-path ranking, final states in the last rank, barycenter ordering), children's
 * compounds alternate direction (left→right, then top→bottom, …) and are sized bottom-up, so
 * nested boxes never overlap. Edges are quadratic curves clipped at the box borders, parallel
 * edges fan out, and labels are placed greedily at the first free spot along their curve.
 *
 * This file sequences the steps; each lives in its own module:
 * sizes (`layout-size.ts`) → ranks and dummy nodes (`layout-rank.ts`) → order within ranks
 * (`layout-order.ts`) → coordinates (`layout-place.ts`) → initial markers (`layout-initials.ts`)
 * → edge routes and labels (`layout-route.ts`) → drawing bounds (`layout-bounds.ts`).
 */
import { compactLabel } from './compact-label.js';
import { errorSinks, isLaneEdge } from './edge-class.js';
import { type MachineGraph, nodeIndex, type VizEdge, type VizNode } from './graph.js';
import { CONTENT_ORIGIN, canvasSize, drawingBounds } from './layout-bounds.js';
import { initialMarkers } from './layout-initials.js';
import { barycenterOrder, groupByRank, rankedNodes, sinksLast } from './layout-order.js';
import { labelGaps, placeAbsolute, placeRanks } from './layout-place.js';
import { childContaining, insertDummies, liftEdges, rankLayers, searchRoots } from './layout-rank.js';
import { labelWidth, routeEdges } from './layout-route.js';
import { ANY_STATE_SIZE, compoundSize, dummySize, leafSize } from './layout-size.js';
import type { GraphLayout, LayoutBox, LayoutDirection, Pt, RelativeBox, Size } from './layout-types.js';

export { compactLabel } from './compact-label.js';
export { FONT, leafLines } from './layout-size.js';
export type {
  EdgeRoute,
  ErrorBadge,
  ErrorLane,
  GraphLayout,
  InitialMarker,
  LayoutBox,
} from './layout-types.js';

/**
 * Lays out a graph. `direction` forces the top-level direction; by default the boxes are placed
 * both ways and the direction whose canvas (plus room for the error lane) fits a 1400×1000
 * viewport at the larger scale wins; only that one is routed.
 *
 * @example
 * ```ts
 * const l = layoutGraph(machineGraph(chainMachine));
 * l.boxes.get('chain.ready')!.w > 0; // true
 * ```
 */
export function layoutGraph(g: MachineGraph, direction?: LayoutDirection): GraphLayout {
  if (direction !== undefined) return routePlaced(placeWith(g, direction));
  const lr = placeWith(g, 'LR');
  const tb = placeWith(g, 'TB');
  const scaleOf = (p: Placed): number =>
    Math.min(1400 / (p.canvas.w + (p.lane.size > 0 ? LANE_ROOM : 0)), 1000 / p.canvas.h);
  return routePlaced(scaleOf(tb) > scaleOf(lr) * 1.05 ? tb : lr);
}

/** Width the error lane and its routes add to the right of the canvas, for choosing a direction. */
const LANE_ROOM = 80;

/** Boxes placed in one top-level direction, before routing. */
interface Placed {
  readonly g: MachineGraph;
  readonly topDir: LayoutDirection;
  readonly pass: CompoundPass;
  readonly lane: ReadonlySet<string>;
  readonly boxes: Map<string, LayoutBox>;
  readonly waypoints: Map<string, Pt>;
  readonly canvas: Size;
}

/** What the per-compound step reads and the relative results it collects. */
interface CompoundPass {
  readonly g: MachineGraph;
  /** The edges that take part in ranking: every edge but the lane (error/stop) edges. */
  readonly ranked: readonly VizEdge[];
  /** Error sinks: ordered last in their rank, next to the lane. */
  readonly sinks: ReadonlySet<string>;
  readonly edgeById: ReadonlyMap<string, VizEdge>;
  readonly index: ReadonlyMap<string, VizNode>;
  readonly anyState: string | null;
  readonly childOf: (parent: string, id: string) => string | undefined;
  readonly isCompound: (id: string) => boolean;
  /** Boxes relative to their compound's content origin (dummy nodes too). */
  readonly rel: Map<string, RelativeBox>;
  /** Dummy node ids per route key (`<edge id>><target>`), from source side to target side. */
  readonly chains: Map<string, string[]>;
  /** Children (then dummy nodes) of every compound laid out. */
  readonly kidsOf: Map<string, string[]>;
}

/** The boxes in one top-level direction. */
function placeWith(g: MachineGraph, topDir: LayoutDirection): Placed {
  const index = nodeIndex(g);
  const anyState = g.edges.some((e) => e.source === g.root) ? `${g.root}::any` : null;
  const sinks = new Set(errorSinks(g));
  const lane = new Set(g.edges.filter((e) => isLaneEdge(e, sinks)).map((e) => e.id));
  const pass: CompoundPass = {
    g,
    ranked: g.edges.filter((e) => !lane.has(e.id)),
    sinks,
    edgeById: new Map(g.edges.map((e) => [e.id, e])),
    index,
    anyState,
    childOf: childContaining(index, g.root, anyState),
    isCompound: (k) => k !== anyState && (index.get(k) as VizNode).children.length > 0,
    rel: new Map(),
    chains: new Map(),
    kidsOf: new Map(),
  };
  const size = layoutCompound(pass, g.root, topDir);
  const { boxes, waypoints } = placeAbsolute(g.root, pass.kidsOf, pass.rel, pass.isCompound, CONTENT_ORIGIN);
  return { g, topDir, pass, lane, boxes, waypoints, canvas: canvasSize(size) };
}

/** Initial markers, edge routes, the error lane and the bounds of placed boxes. */
function routePlaced(p: Placed): GraphLayout {
  const { g, topDir, pass, lane, boxes, waypoints, canvas } = p;
  const { index, anyState } = pass;
  const initials = initialMarkers(g, index, boxes, topDir);
  const viaOf = (key: string): Pt[] => (pass.chains.get(key) ?? []).map((id) => waypoints.get(id) as Pt);
  const { edges, errorLane } = routeEdges(g, index, boxes, anyState, viaOf, lane);
  const bounds = drawingBounds(canvas, edges, errorLane);
  return {
    minX: bounds.minX,
    minY: bounds.minY,
    width: bounds.width,
    height: bounds.height,
    direction: topDir,
    boxes,
    anyState,
    edges,
    initials,
    errorLane,
  };
}

/**
 * Lays out the children of one compound in direction `dir` (sizing nested compounds first, in
 * the other direction) and returns the size they take; relative boxes, dummy chains and the
 * children list are collected in `pass`.
 */
function layoutCompound(pass: CompoundPass, parentId: string, dir: LayoutDirection): Size {
  const { g, index, anyState } = pass;
  const kids = [...(index.get(parentId) as VizNode).children];
  if (parentId === g.root && anyState !== null) kids.unshift(anyState);
  const flip: LayoutDirection = dir === 'LR' ? 'TB' : 'LR';
  const sizes = new Map<string, Size>();
  for (const k of kids) {
    if (k === anyState) sizes.set(k, ANY_STATE_SIZE);
    else {
      const n = index.get(k) as VizNode;
      sizes.set(
        k,
        n.children.length === 0 ? leafSize(n) : compoundSize(n.key, layoutCompound(pass, k, flip)),
      );
    }
  }
  const { lifted, adj } = liftEdges(pass.ranked, kids, (id) => pass.childOf(parentId, id));
  const initial = kids.find((k) => k !== anyState && (index.get(k) as VizNode).initial);
  const isFinal = (k: string): boolean => k !== anyState && (index.get(k) as VizNode).final;
  const ranked = rankLayers(kids, adj, searchRoots(kids, anyState, initial), isFinal);
  const { rank, dummies, chains, links } = insertDummies(lifted, ranked, parentId);
  for (const id of dummies) sizes.set(id, dummySize(dir));
  for (const [key, chain] of chains) pass.chains.set(key, chain);
  const all = rankedNodes(kids, rank);
  const order = sinksLast(barycenterOrder(groupByRank(all, rank), links), pass.sinks);
  const widths = lifted.map((l): [string, string, number] => {
    const e = pass.edgeById.get(l.key.slice(0, l.key.indexOf('>'))) as VizEdge;
    return [l.a, l.b, labelWidth(compactLabel(e, index.get(e.source)))];
  });
  const { rel, size } = placeRanks(order, sizes, dir, labelGaps(order, widths, dir));
  for (const [k, box] of rel) pass.rel.set(k, box);
  pass.kidsOf.set(parentId, all);
  return size;
}
