/**
 * The recorded path of a run (pure): the machine transitions a persisted run stored with its
 * journal writes (the trace of its batch records) laid over the machine graph as observed steps —
 * no inference. The core ({@link recordedTrail}) works for any machine (the cycle machine of
 * run-contract runs, the chain machine of chain runs); {@link recordedPath} joins it with a cycle
 * run's journal-derived path (finish, notes). Each trace step is one edge of the graph (source
 * state, event type, targets, guard); {@link traceEdges} is the one matcher, shared with
 * `handoff audit`'s replay.
 */
import type { TraceStep } from '../store/store-types.js';
import { type MachineGraph, nodeIndex, type VizEdge } from './graph.js';
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

/** One state of a recorded trail: the machine's initial state, then one per state change. */
export interface RecordedTrailStep {
  /** The node as a dotted path from the root (`work.dispatching`, `running`). */
  readonly state: string;
  /** `<run_id>#manifest` for the initial state, else the cite of the write that carried the step. */
  readonly cite: string;
  /** The last seq of that write (0 for the initial state). */
  readonly lastSeq: number;
  readonly source: 'manifest' | 'trace';
}

/** A run's recorded trail over one machine: its states and their overlay on the graph. */
export interface RecordedTrail {
  readonly steps: readonly RecordedTrailStep[];
  /** Observed steps only: `inferred` is empty everywhere; a step the machine lacks is a gap. */
  readonly overlay: PathOverlay;
  /** How many of the machine's transitions the run recorded (state changes or not). */
  readonly transitions: number;
}

/** A recorded string shown in a gap: one line, at most 120 characters (a trace may be forged). */
function shown(s: string): string {
  const one = s.replace(/\s+/g, ' ');
  return one.length > 120 ? `${one.slice(0, 119)}…` : one;
}

/**
 * Options of {@link recordedTrail}.
 *
 * @example
 * ```ts
 * recordedTrail(machineGraph(chainMachine), recorded, runId, { restarts: true });
 * ```
 */
export interface RecordedTrailOptions {
  /**
   * The machine's runs are resumed by a new actor (the chain's `chain.resume`): a step leaving the
   * initial state while another state is current is drawn as a return to the initial state (a
   * step labelled `<cite> resumed`) before the step itself. Default false (the cycle machine).
   */
  readonly restarts?: boolean;
}

/**
 * The trail of recorded steps over any machine graph (`g`): a first step at the machine's initial
 * state (cited as the manifest), then one step per transition that changed state, each matched
 * to its edge (same source, event, targets and guard). A step the machine has no transition for
 * is drawn where it says it went (when that state exists) and reported as a gap naming
 * `handoff audit`; a target the machine does not have is not drawn. Steps of other machines are
 * the caller's to drop (each recorded step names its machine).
 *
 * @example
 * ```ts
 * const { steps, overlay } = recordedTrail(machineGraph(chainMachine), recorded, runId);
 * steps.map((s) => s.state); // ['ready', 'running', 'failed', 'running', 'validating', 'committed']
 * overlay.inferredEdges; // {} — nothing inferred
 * ```
 */
export function recordedTrail(
  g: MachineGraph,
  recorded: readonly RecordedStep[],
  runId: string,
  options: RecordedTrailOptions = {},
): RecordedTrail {
  const index = nodeIndex(g);
  const first = initialLeaf(g);
  const manifest = `${runId}#manifest`;
  const steps: RecordedTrailStep[] = [
    { state: relative(g, first), cite: manifest, lastSeq: 0, source: 'manifest' },
  ];
  const resolved: ResolvedStep[] = [
    { index: 0, nodes: [first], event: null, label: manifest, edge: null, inferred: [] },
  ];
  const nodeVisits: Record<string, number> = { [first]: 1 };
  const edgeVisits: Record<string, number> = {};
  const gaps: { step: number; reason: string }[] = [];
  let current: string | null = first;
  for (const r of recorded) {
    if (options.restarts === true && r.step.from === first && current !== first && current !== null) {
      // a resumed run's new actor (handoff audit's restart) begins back at the initial state
      const at = steps.length;
      steps.push({ state: relative(g, first), cite: r.cite, lastSeq: r.lastSeq, source: 'trace' });
      resolved.push({
        index: at,
        nodes: [first],
        event: null,
        label: `${r.cite} resumed`,
        edge: null,
        inferred: [],
      });
      nodeVisits[first] = (nodeVisits[first] ?? 0) + 1;
      current = first;
    }
    const edge = stepEdge(g, r.step);
    if (edge !== null) edgeVisits[edge.id] = (edgeVisits[edge.id] ?? 0) + 1;
    if (r.step.to === '') continue;
    const to = r.step.to.split(',')[0] as string;
    const known = index.has(to);
    const stepIndex = steps.length;
    steps.push({ state: relative(g, to), cite: r.cite, lastSeq: r.lastSeq, source: 'trace' });
    resolved.push({
      index: stepIndex,
      nodes: known ? [to] : [],
      event: r.step.event,
      label: r.cite,
      edge: edge?.id ?? null,
      inferred: [],
    });
    if (known) {
      nodeVisits[to] = (nodeVisits[to] ?? 0) + 1;
      current = to;
    }
    if (edge === null) {
      const guard = r.step.guard ? ` [${shown(r.step.guard)}]` : '';
      gaps.push({
        step: stepIndex,
        reason: `${g.id} has no transition from ${shown(r.step.from)} on ${shown(r.step.event)} to ${shown(r.step.to)}${guard} (see handoff audit)`,
      });
    }
  }
  return {
    steps,
    overlay: { steps: resolved, nodeVisits, edgeVisits, inferredNodes: {}, inferredEdges: {}, gaps, current },
    transitions: recorded.length,
  };
}

/**
 * A cycle run's path from its recorded steps ({@link recordedTrail} over the cycle machine); the
 * journal-derived path gives what the trace cannot know (finished, mode, notes by seq).
 *
 * @example
 * ```ts
 * const { path, overlay } = recordedPath(graph, steps, journalPath(load), runId);
 * overlay.inferredEdges; // {} — nothing inferred
 * ```
 */
export function recordedPath(
  g: MachineGraph,
  recorded: readonly RecordedStep[],
  journal: JournalPath,
  runId: string,
): { path: JournalPath; overlay: PathOverlay } {
  const trail = recordedTrail(g, recorded, runId);
  const steps: PhaseStep[] = trail.steps.map((s) => ({
    state: s.state,
    cite: s.cite,
    seq: null,
    source: s.source,
    label: s.cite,
  }));
  const notes = journal.notes.map((n) => {
    let step = 0;
    trail.steps.forEach((s, i) => {
      if (s.lastSeq < n.seq) step = i;
    });
    return { ...n, step };
  });
  const path: JournalPath = {
    ...journal,
    steps,
    notes,
    limits: [
      `the path is the run's recorded transition trace (${trail.transitions} transitions stored with its journal writes); nothing is inferred — handoff audit checks it against the machine`,
      ...journal.limits.filter((l) => l.startsWith('the journal has no final handoff')),
    ],
  };
  return { path, overlay: trail.overlay };
}
