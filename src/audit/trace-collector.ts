/**
 * The transition trace of a protocol machine's run, collected from xstate's inspection events:
 * every transition a machine actor took (its `@xstate.microstep` events carry the exact transition
 * definitions) becomes one compact {@link TraceStep} — machine id, source state node, event type,
 * target state nodes, guard. The collector is the `inspect` option a runner passes to
 * `createActor`; `take()` hands over the steps since the last boundary, which a durable writer
 * stores with its batch (`Store.appendBatch`'s `trace`) and `handoff audit` replays.
 */
import type { InspectionEvent } from 'xstate';
import type { MachineInspector } from '../../machines/inspector.js';
import type { TraceStep } from '../store/store-types.js';
import { guardText } from '../viz/graph.js';
import { ALWAYS_EVENT } from '../viz/recorded-path.js';

/** Options of {@link createTraceCollector}. */
export interface TraceCollectorOptions {
  /** Machine ids to record (default: every machine actor, including invoked child machines). */
  readonly machines?: readonly string[];
}

/** A trace collector: the inspector to attach, and the steps recorded so far. */
export interface TraceCollector {
  /** Pass as the runner's `inspect` option. */
  readonly inspect: MachineInspector;
  /** The steps recorded since the previous `take()`, in order; the collector keeps none of them. */
  take(): TraceStep[];
  /** How many steps wait to be taken. */
  readonly pending: number;
}

interface RawTransition {
  readonly eventType?: string;
  readonly source?: { readonly id?: string };
  readonly target?: readonly { readonly id?: string }[] | undefined;
  readonly guard?: unknown;
}

/** The machine id of an inspected actor, or null when the actor is not a state machine. */
function machineIdOf(e: InspectionEvent): string | null {
  const logic = (e.actorRef as { logic?: { id?: unknown; root?: unknown } }).logic;
  if (logic === undefined || logic.root === undefined || typeof logic.id !== 'string') return null;
  return logic.id;
}

/**
 * One trace step of a transition definition (pure).
 *
 * @example
 * ```ts
 * traceStep('cycle', t); // { machine: 'cycle', from: 'cycle.plan.discover', event: 'xstate.done.actor.planner', to: 'cycle.plan.approve' }
 * ```
 */
export function traceStep(machine: string, t: RawTransition): TraceStep {
  const guard = t.guard === undefined ? null : guardText(t.guard);
  return {
    machine,
    from: t.source?.id ?? '',
    event: t.eventType === undefined || t.eventType === '' ? ALWAYS_EVENT : t.eventType,
    to: (t.target ?? []).map((x) => x.id ?? '').join(','),
    ...(guard === null ? {} : { guard }),
  };
}

/**
 * Creates a trace collector.
 *
 * @example
 * ```ts
 * const trace = createTraceCollector({ machines: ['cycle'] });
 * await runCycle({ ...input, inspect: trace.inspect });
 * await store.appendBatch(runId, entries, { trace: trace.take() });
 * ```
 */
export function createTraceCollector(options: TraceCollectorOptions = {}): TraceCollector {
  const only = options.machines === undefined ? null : new Set(options.machines);
  let steps: TraceStep[] = [];
  const inspect = (e: InspectionEvent): void => {
    if (e.type !== '@xstate.microstep') return;
    const machine = machineIdOf(e);
    if (machine === null || (only !== null && !only.has(machine))) return;
    for (const t of e._transitions as readonly RawTransition[]) steps.push(traceStep(machine, t));
  };
  return {
    inspect,
    take() {
      const out = steps;
      steps = [];
      return out;
    },
    get pending() {
      return steps.length;
    },
  };
}
