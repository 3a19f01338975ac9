/**
 * Main path versus error/stop edges (pure). The rule, read from the machine definitions:
 *
 * - An **error sink** is a final state whose key is `stopped`, `failed`, `error` or `aborted`
 *   (cycle: `stopped`; chain: `stopped`; gate: `stopped`). Other final states (`solved`,
 *   `stuck`, `accepted`, `leadReview`) are outcomes of the main path.
 * - An edge is a **stop** edge when every target is an error sink, an **error** edge when it is
 *   an invoke's `onError` (kind `error`) into a live state, and **main** otherwise.
 * - Stop edges (which include every `onError` into a sink) are *lane* edges: the viewer routes
 *   them in one lane to the sinks, and can collapse them into per-state badges.
 */
import type { MachineGraph, VizEdge, VizNode } from './graph.js';

/** Keys of final states that end a run by stopping or failing. */
export const ERROR_SINK_KEYS: readonly string[] = ['stopped', 'failed', 'error', 'aborted'];

/** The class of an edge: on the main path, an invoke error into a live state, or into a sink. */
export type EdgeClass = 'main' | 'error' | 'stop';

/**
 * True for an error sink: a final state named like a stop or failure.
 *
 * @example
 * ```ts
 * isErrorSink({ ...node, key: 'stopped', final: true }); // true
 * ```
 */
export function isErrorSink(n: VizNode): boolean {
  return n.final && ERROR_SINK_KEYS.includes(n.key);
}

/**
 * The ids of the error sinks of a graph, in document order.
 *
 * @example
 * ```ts
 * errorSinks(machineGraph(cycleMachine)); // ['cycle.stopped']
 * ```
 */
export function errorSinks(g: MachineGraph): string[] {
  return g.nodes.filter(isErrorSink).map((n) => n.id);
}

/**
 * The class of one edge given the set of error sinks.
 *
 * @example
 * ```ts
 * edgeClass(edgeIntoStopped, new Set(['cycle.stopped'])); // 'stop'
 * ```
 */
export function edgeClass(e: VizEdge, sinks: ReadonlySet<string>): EdgeClass {
  if (e.targets.length > 0 && e.targets.every((t) => sinks.has(t))) return 'stop';
  return e.kind === 'error' ? 'error' : 'main';
}

/**
 * The class of every edge of a graph, by edge id.
 *
 * @example
 * ```ts
 * classifyEdges(g).get('e2'); // 'stop'
 * ```
 */
export function classifyEdges(g: MachineGraph): Map<string, EdgeClass> {
  const sinks = new Set(errorSinks(g));
  return new Map(g.edges.map((e) => [e.id, edgeClass(e, sinks)]));
}

/**
 * True for a lane edge: a stop edge, routed in the shared lane and collapsible.
 *
 * @example
 * ```ts
 * isLaneEdge(edgeIntoStopped, new Set(['cycle.stopped'])); // true
 * ```
 */
export function isLaneEdge(e: VizEdge, sinks: ReadonlySet<string>): boolean {
  return edgeClass(e, sinks) === 'stop';
}
