/**
 * JSON exporter (pure): the graph model (and an overlay) as `handoff-viz-graph/v1` JSON with a
 * fixed key order, two-space indentation and a final newline — the same graph always gives the
 * same bytes.
 */
import type { MachineGraph } from './graph.js';
import type { PathOverlay } from './overlay.js';

/** Schema id of {@link toJson}'s document. */
export const VIZ_GRAPH_SCHEMA = 'handoff-viz-graph/v1';

function sortedCounts(m: Readonly<Record<string, number>>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const k of Object.keys(m).sort()) out[k] = m[k] as number;
  return out;
}

/**
 * The JSON document of a graph (plain data with a fixed key order).
 *
 * @example
 * ```ts
 * graphDocument(machineGraph(gateMachine)).schema; // 'handoff-viz-graph/v1'
 * ```
 */
export function graphDocument(g: MachineGraph, overlay: PathOverlay | null = null): Record<string, unknown> {
  return {
    schema: VIZ_GRAPH_SCHEMA,
    machine: g.id,
    root: g.root,
    nodes: g.nodes.map((n) => ({
      id: n.id,
      key: n.key,
      path: [...n.path],
      parent: n.parent,
      type: n.type,
      initial: n.initial,
      final: n.final,
      children: [...n.children],
      entry: [...n.entry],
      exit: [...n.exit],
      invoke: n.invoke.map((i) => ({ id: i.id, src: i.src })),
      description: n.description,
    })),
    edges: g.edges.map((e) => ({
      id: e.id,
      source: e.source,
      targets: [...e.targets],
      kind: e.kind,
      event: e.event,
      invoke: e.invoke,
      guard: e.guard,
      actions: [...e.actions],
      reenter: e.reenter,
      order: e.order,
    })),
    ...(overlay === null
      ? {}
      : {
          overlay: {
            steps: overlay.steps.map((s) => ({
              index: s.index,
              nodes: [...s.nodes],
              event: s.event,
              label: s.label,
              edge: s.edge,
              inferred: [...s.inferred],
            })),
            node_visits: sortedCounts(overlay.nodeVisits),
            edge_visits: sortedCounts(overlay.edgeVisits),
            inferred_nodes: sortedCounts(overlay.inferredNodes),
            inferred_edges: sortedCounts(overlay.inferredEdges),
            gaps: overlay.gaps.map((x) => ({ step: x.step, reason: x.reason })),
            current: overlay.current,
          },
        }),
  };
}

/**
 * Renders a graph (and optionally an overlay) as deterministic JSON text ending with a newline.
 *
 * @example
 * ```ts
 * JSON.parse(toJson(machineGraph(chainMachine))).edges.length; // 15
 * ```
 */
export function toJson(g: MachineGraph, overlay: PathOverlay | null = null): string {
  return `${JSON.stringify(graphDocument(g, overlay), null, 2)}\n`;
}
