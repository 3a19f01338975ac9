/**
 * The recorded path of a run (pure): the machine transitions a persisted run stored with its
 * journal writes (the trace of its batch records) laid over the machine graph as observed steps —
 * no inference. Each trace step is one edge of the graph (source state, event type, targets,
 * guard); {@link traceEdges} is the one matcher, shared with `handoff audit`'s replay.
 */
import type { TraceStep } from '../store/store-types.js';
import type { MachineGraph, VizEdge } from './graph.js';
import type { JournalPath, PhaseStep } from './journal-path.js';
import type { PathOverlay, ResolvedStep } from './overlay.js';

/** The event type a trace records for an eventless (`always`) transition (xstate gives it none). */
export const ALWAYS_EVENT = 'xstate.always';

/** A trace step with the cite of the journal write that carried it. */
export interface RecordedStep {
  readonly step: TraceStep;
  /** `<run_id>#<first seq of the batch>`. */
  readonly cite: string;
  /** The last seq of that batch (notes recorded later attach to later steps). */
  readonly lastSeq: number;
}

/**
 * The graph's edges from the step's source on its event to exactly its targets (every guard):
 * empty when the machine has no such transition.
 *
 * @example
 * ```ts
 * traceEdges(graph, { machine: 'cycle', from: 'cycle.plan.discover', event: 'xstate.done.actor.discover', to: 'cycle.plan.choose' });
 * ```
 */
export function traceEdges(g: MachineGraph, s: TraceStep): VizEdge[] {
  const event = s.event === ALWAYS_EVENT ? '' : s.event;
  return g.edges.filter((e) => e.source === s.from && e.event === event && e.targets.join(',') === s.to);
}

/** The edge a step took: same source, event, targets and guard; null when the machine has none. */
function stepEdge(g: MachineGraph, s: TraceStep): VizEdge | null {
  const guard = s.guard ?? null;
  return traceEdges(g, s).find((e) => e.guard === guard) ?? null;
}

/** A node id as the dotted path from the root (`cycle.work.dispatching` → `work.dispatching`). */
function relative(g: MachineGraph, id: string): string {
  return id.startsWith(`${g.root}.`) ? id.slice(g.root.length + 1) : id;
}

/** The first atomic state of the graph (descending through initial children). */
function initialLeaf(g: MachineGraph): string {
  const byId = new Map(g.nodes.map((n) => [n.id, n]));
  let id = g.root;
  for (;;) {
    const n = byId.get(id);
    const next = n?.children.find((c) => byId.get(c)?.initial === true) ?? n?.children[0];
    if (next === undefined) return id;
    id = next;
  }
}

/**
 * The run's path from its recorded steps: a first step at the machine's initial state (cited as
 * the manifest), then one step per transition that changed state, each matched to its edge. The
 * journal-derived path gives what the trace cannot know (finished, mode, notes by seq).
 *
 * @example
 * ```ts
 * const { path, overlay } = recordedPath(graph, steps, journalPath(load));
 * overlay.inferredEdges; // {} — nothing inferred
 * ```
 */
export function recordedPath(
  g: MachineGraph,
  recorded: readonly RecordedStep[],
  journal: JournalPath,
  runId: string,
): { path: JournalPath; overlay: PathOverlay } {
  const first = initialLeaf(g);
  const steps: PhaseStep[] = [
    {
      state: relative(g, first),
      cite: `${runId}#manifest`,
      seq: null,
      source: 'manifest',
      label: `${runId}#manifest`,
    },
  ];
  const resolved: ResolvedStep[] = [
    { index: 0, nodes: [first], event: null, label: `${runId}#manifest`, edge: null, inferred: [] },
  ];
  const lastSeqOf: number[] = [0];
  const nodeVisits: Record<string, number> = { [first]: 1 };
  const edgeVisits: Record<string, number> = {};
  const gaps: { step: number; reason: string }[] = [];
  let current: string | null = first;
  for (const r of recorded) {
    const edge = stepEdge(g, r.step);
    if (edge !== null) edgeVisits[edge.id] = (edgeVisits[edge.id] ?? 0) + 1;
    if (r.step.to === '') continue;
    const to = r.step.to.split(',')[0] as string;
    const index = steps.length;
    steps.push({ state: relative(g, to), cite: r.cite, seq: null, source: 'trace', label: r.cite });
    resolved.push({
      index,
      nodes: [to],
      event: r.step.event,
      label: r.cite,
      edge: edge?.id ?? null,
      inferred: [],
    });
    lastSeqOf.push(r.lastSeq);
    nodeVisits[to] = (nodeVisits[to] ?? 0) + 1;
    current = to;
    if (edge === null)
      gaps.push({
        step: index,
        reason: `${g.id} has no transition from ${r.step.from} on ${r.step.event} to ${r.step.to}${r.step.guard ? ` [${r.step.guard}]` : ''} (see handoff audit)`,
      });
  }
  const notes = journal.notes.map((n) => {
    let step = 0;
    lastSeqOf.forEach((last, i) => {
      if (last < n.seq) step = i;
    });
    return { ...n, step };
  });
  const transitions = recorded.length;
  const path: JournalPath = {
    ...journal,
    steps,
    notes,
    limits: [
      `the path is the run's recorded transition trace (${transitions} transitions stored with its journal writes); nothing is inferred — handoff audit checks it against the machine`,
      ...journal.limits.filter((l) => l.startsWith('the journal has no final handoff')),
    ],
  };
  return {
    path,
    overlay: { steps: resolved, nodeVisits, edgeVisits, inferredNodes: {}, inferredEdges: {}, gaps, current },
  };
}
