/**
 * Path overlay (pure): a run's steps (state values, optionally with the event that led there)
 * laid over a {@link MachineGraph}. Each step resolves to a node; each consecutive pair is matched
 * to the edge that connects them (observed), or — when no single edge does and inference is on —
 * to the shortest chain of edges through the graph (inferred, drawn differently). Visit counts
 * are kept for nodes and edges; pairs that cannot be connected are reported as gaps.
 */
import { eventLabel, isWithin, type MachineGraph, nodeIndex, type VizEdge, type VizNode } from './graph.js';

/** An xstate state value (`'idle'`, `{ plan: 'discover' }`). */
export type StateValueLike = string | { readonly [key: string]: StateValueLike | undefined };

/** One step of a path. */
export interface PathStep {
  /**
   * The state: a node id (`cycle.plan.discover`), a dotted path from the root (`plan.discover`,
   * `plan`) or an xstate state value (`{ plan: 'discover' }`).
   */
  readonly state: StateValueLike;
  /** The event (raw type or display label such as `done: worker`) that led to this step, if known. */
  readonly event?: string | null;
  /** A note shown with the step (e.g. the journal cite it came from). */
  readonly label?: string | null;
}

/** A step as resolved against the graph. */
export interface ResolvedStep {
  readonly index: number;
  /** The resolved node ids (empty when the state is unknown to the machine). */
  readonly nodes: readonly string[];
  readonly event: string | null;
  readonly label: string | null;
  /** The observed edge from the previous step, or null. */
  readonly edge: string | null;
  /** Inferred edges from the previous step (when no direct edge matched). */
  readonly inferred: readonly string[];
}

/** A pair of steps that could not be connected. */
export interface PathGap {
  /** Index of the step the gap ends at. */
  readonly step: number;
  readonly reason: string;
}

/** The overlay of a path on a graph. */
export interface PathOverlay {
  readonly steps: readonly ResolvedStep[];
  /** Observed visits per node id. */
  readonly nodeVisits: Readonly<Record<string, number>>;
  /** Observed traversals per edge id. */
  readonly edgeVisits: Readonly<Record<string, number>>;
  /** Nodes passed through only by inferred edges, with counts. */
  readonly inferredNodes: Readonly<Record<string, number>>;
  /** Inferred traversals per edge id. */
  readonly inferredEdges: Readonly<Record<string, number>>;
  readonly gaps: readonly PathGap[];
  /** The last resolved node (the run's current or final state), or null. */
  readonly current: string | null;
}

/** Options of {@link overlayPath}. */
export interface OverlayOptions {
  /** Fill pairs without a direct edge with the shortest edge chain (default true). */
  readonly infer?: boolean;
  /** Longest inferred chain (default 12). */
  readonly maxInferred?: number;
  /**
   * States the run cannot have been in (node ids or dotted paths, e.g. the human questions of an
   * autoprove cycle run): neither a matched edge nor an inferred chain enters or leaves one,
   * unless a step itself is there.
   */
  readonly avoid?: readonly string[];
}

/** Node membership in the avoided regions (a node counts when it or an ancestor is avoided). */
type Avoided = (id: string) => boolean;

/** True when the edge enters or leaves an avoided state that neither end step is in. */
function crossesAvoided(
  avoided: Avoided,
  e: VizEdge,
  from: readonly string[],
  to: readonly string[],
): boolean {
  if (avoided(e.source) && !from.some(avoided)) return true;
  return e.targets.some((t) => avoided(t) && !to.includes(t));
}

function resolveState(g: MachineGraph, index: ReadonlyMap<string, VizNode>, s: StateValueLike): string[] {
  if (typeof s === 'string') {
    if (index.has(s)) return [s];
    const dotted = `${g.root}.${s}`;
    if (index.has(dotted)) return [dotted];
    return [];
  }
  const out: string[] = [];
  const walk = (prefix: string, v: StateValueLike): void => {
    if (typeof v === 'string') {
      const id = `${prefix}.${v}`;
      if (index.has(id)) out.push(id);
      return;
    }
    for (const [k, sub] of Object.entries(v)) {
      const id = `${prefix}.${k}`;
      if (!index.has(id)) continue;
      if (sub === undefined || (typeof sub === 'object' && Object.keys(sub).length === 0)) out.push(id);
      else walk(id, sub);
    }
  };
  walk(g.root, s);
  return out;
}

/** True when the edge may fire while `node` is (part of) the active configuration. */
function firesFrom(index: ReadonlyMap<string, VizNode>, e: VizEdge, node: string): boolean {
  return isWithin(index, node, e.source) || isWithin(index, e.source, node);
}

/** True when taking the edge lands in (or above) `node`. */
function landsIn(index: ReadonlyMap<string, VizNode>, e: VizEdge, node: string): boolean {
  const targets = e.targets.length === 0 ? [e.source] : e.targets;
  return targets.some((t) => isWithin(index, t, node) || isWithin(index, node, t));
}

function eventMatches(e: VizEdge, event: string | null): boolean {
  return event !== null && (e.event === event || eventLabel(e) === event);
}

function bestEdge(
  g: MachineGraph,
  index: ReadonlyMap<string, VizNode>,
  from: readonly string[],
  to: readonly string[],
  event: string | null,
  avoided: Avoided,
): VizEdge | null {
  let best: VizEdge | null = null;
  let bestScore = -1;
  for (const e of g.edges) {
    if (crossesAvoided(avoided, e, from, to)) continue;
    const src = from.find((f) => firesFrom(index, e, f));
    if (src === undefined) continue;
    const dst = to.find((t) => landsIn(index, e, t));
    if (dst === undefined) continue;
    if (event !== null && !eventMatches(e, event) && g.edges.some((x) => eventMatches(x, event))) continue;
    const targets = e.targets.length === 0 ? [e.source] : e.targets;
    const score =
      (eventMatches(e, event) ? 8 : 0) +
      (e.source === src ? 4 : 0) +
      (targets.includes(dst) ? 2 : 0) +
      (e.guard === null ? 1 : 0);
    if (score > bestScore) {
      best = e;
      bestScore = score;
    }
  }
  return best;
}

/** Edges that leave `node` (or fire from inside it / above it), excluding moves that stay inside a coarse node. */
function exits(g: MachineGraph, index: ReadonlyMap<string, VizNode>, node: string): VizEdge[] {
  return g.edges.filter((e) => {
    if (!firesFrom(index, e, node)) return false;
    const targets = e.targets.length === 0 ? [e.source] : e.targets;
    return !targets.every((t) => isWithin(index, t, node) && t !== node);
  });
}

function inferChain(
  g: MachineGraph,
  index: ReadonlyMap<string, VizNode>,
  from: readonly string[],
  to: readonly string[],
  max: number,
  avoided: Avoided,
): VizEdge[] | null {
  interface Item {
    readonly node: string;
    readonly chain: readonly VizEdge[];
  }
  const seen = new Set<string>(from);
  let frontier: Item[] = from.map((node) => ({ node, chain: [] }));
  for (let depth = 0; depth < max && frontier.length > 0; depth++) {
    const next: Item[] = [];
    for (const item of frontier) {
      for (const e of exits(g, index, item.node)) {
        if (crossesAvoided(avoided, e, [item.node], to)) continue;
        const chain = [...item.chain, e];
        if (to.some((t) => landsIn(index, e, t))) return chain;
        for (const t of e.targets) {
          if (seen.has(t)) continue;
          seen.add(t);
          next.push({ node: t, chain });
        }
      }
    }
    frontier = next;
  }
  return null;
}

function bump(m: Record<string, number>, k: string): void {
  m[k] = (m[k] ?? 0) + 1;
}

/**
 * Lays a path over a graph: resolves each step to nodes, matches each consecutive pair to an
 * edge (preferring the step's event, then the exact source and target, then an unguarded edge,
 * then document order), infers the shortest edge chain when no single edge connects them, and
 * counts visits. A repeated step without an event is a stay (no edge).
 *
 * @example
 * ```ts
 * const o = overlayPath(machineGraph(chainMachine), [
 *   { state: 'ready' }, { state: 'running', event: 'START' }, { state: 'validating' },
 * ]);
 * o.nodeVisits['chain.running']; // 1
 * ```
 */
export function overlayPath(
  g: MachineGraph,
  steps: readonly PathStep[],
  options: OverlayOptions = {},
): PathOverlay {
  const index = nodeIndex(g);
  const infer = options.infer ?? true;
  const max = options.maxInferred ?? 12;
  const avoidIds = (options.avoid ?? []).flatMap((a) => resolveState(g, index, a));
  const avoided: Avoided = (id) => avoidIds.some((a) => isWithin(index, id, a));
  const nodeVisits: Record<string, number> = {};
  const edgeVisits: Record<string, number> = {};
  const inferredNodes: Record<string, number> = {};
  const inferredEdges: Record<string, number> = {};
  const gaps: PathGap[] = [];
  const resolved: ResolvedStep[] = [];
  let prev: readonly string[] = [];
  let current: string | null = null;
  steps.forEach((step, i) => {
    const nodes = resolveState(g, index, step.state);
    const event = step.event ?? null;
    let edge: string | null = null;
    let inferred: string[] = [];
    if (nodes.length === 0) {
      gaps.push({ step: i, reason: `state ${JSON.stringify(step.state)} is not a state of ${g.id}` });
    } else if (prev.length > 0) {
      const same = nodes.length === prev.length && nodes.every((n, k) => n === prev[k]);
      const direct = same && event === null ? null : bestEdge(g, index, prev, nodes, event, avoided);
      if (direct !== null) {
        edge = direct.id;
        bump(edgeVisits, direct.id);
      } else if (!same) {
        const chain = infer ? inferChain(g, index, prev, nodes, max, avoided) : null;
        if (chain === null) {
          gaps.push({ step: i, reason: `no transition path from ${prev.join(',')} to ${nodes.join(',')}` });
        } else {
          inferred = chain.map((e) => e.id);
          for (const e of chain) bump(inferredEdges, e.id);
          for (const e of chain.slice(0, -1)) for (const t of e.targets) bump(inferredNodes, t);
        }
      }
    }
    for (const n of nodes) bump(nodeVisits, n);
    if (nodes.length > 0) {
      prev = nodes;
      current = nodes[nodes.length - 1] as string;
    }
    resolved.push({ index: i, nodes, event, label: step.label ?? null, edge, inferred });
  });
  return { steps: resolved, nodeVisits, edgeVisits, inferredNodes, inferredEdges, gaps, current };
}
