/**
 * `handoff audit` (pure): replays a run's recorded transition trace through the machine
 * definitions and flags every step the machine does not allow — a tampered or foreign journal.
 *
 * A step is allowed when
 * 1. its machine is one of the given machine graphs (`unknown_machine` otherwise);
 * 2. the machine has a transition candidate from the step's source on the step's event type to
 *    exactly the step's targets (`no_such_transition`), and, when the step names a guard, with
 *    that guard (`guard_mismatch`; a step without a guard matches an unguarded candidate only);
 * 3. the source is active in the configuration the previous steps of the same machine left
 *    (`not_active`): the trace must be one path, not a set of plausible edges. When the events
 *    just before the step's batch carry no batch record (seqs after the previous record's
 *    `last_seq`), a machine's first step in that batch whose source is not active is a
 *    `trace_gap` instead: the transitions of those events may be lost (a power cut can lose a
 *    one-event batch's record, which is not synced before its event) or removed; the audit
 *    cannot tell which, and cannot vouch for the run either way.
 * 4. a resumed run's new actor is no finding: a step of a resumable machine (the chain's) that
 *    leaves the initial state, as the machine's first step in its batch or after the previous
 *    actor finished, is a *restart* ({@link isTraceRestart}): the replay goes on from the initial
 *    configuration and the report lists it under `restarts`.
 *
 * Each finding carries the cite of the batch that stored the step (`<run_id>#<first_seq>`) and
 * the step's position. Replay goes on after a finding from the configuration the step claims, so
 * one edited step is one finding, not a cascade.
 */
import { formatCite } from '../store/cite.js';
import type { TraceStep } from '../store/store-types.js';
import type { MachineGraph } from '../viz/graph.js';
import { traceEdges } from '../viz/recorded-path.js';
import { applyTransition, initialConfiguration, isActive, type NodeIndex } from './configuration.js';
import { isTraceRestart } from './trace-restart.js';

/** Schema id of {@link AuditReport}. */
export const AUDIT_SCHEMA = 'run-audit/v1';

/** A batch's trace as stored: its seq range and its steps. */
export interface TracedBatch {
  readonly first_seq: number;
  readonly last_seq: number;
  readonly trace: readonly TraceStep[];
}

/** Why a step was flagged. */
export type AuditFindingCode =
  | 'unknown_machine'
  | 'no_such_transition'
  | 'guard_mismatch'
  | 'not_active'
  | 'trace_gap';

/** One flagged step. */
export interface AuditFinding {
  readonly code: AuditFindingCode;
  /** The cite of the batch that stored the step. */
  readonly cite: string;
  /** The step's index in its batch's trace (0-based). */
  readonly index: number;
  readonly step: TraceStep;
  readonly detail: string;
}

/** A step where a new actor of a resumable machine began (a resumed run). */
export interface AuditRestart {
  /** The cite of the batch that stored the step. */
  readonly cite: string;
  /** The step's index in its batch's trace (0-based). */
  readonly index: number;
  readonly machine: string;
}

/** Options of {@link auditTrace}. */
export interface AuditOptions {
  /**
   * Machines whose runs a new actor continues from the journal's last commit (may restart at
   * their initial state); default `RESUMABLE_MACHINES` (`['chain']`). `[]` allows no restart.
   */
  readonly resumable?: readonly string[];
}

/** The audit of one run (`run-audit/v1`). */
export interface AuditReport {
  readonly schema: typeof AUDIT_SCHEMA;
  readonly run_id: string;
  /** True when every recorded step is allowed (and at least one batch carried a trace). */
  readonly ok: boolean;
  readonly batches: number;
  readonly steps: number;
  readonly findings: readonly AuditFinding[];
  /**
   * Seq ranges up to the last batch record that no record covers: events written without a trace (the machine did not move — e.g. the dispatches and handoffs of one wave — or
   * their record was lost or removed). Their transitions, if any, were not checked.
   */
  readonly untraced: readonly { readonly first_seq: number; readonly last_seq: number }[];
  /**
   * Where a resumed run's new machine actor began (its first step, which leaves the initial state
   * at a commit boundary — see {@link isTraceRestart}): allowed, and said. Empty for a run that was
   * never resumed.
   */
  readonly restarts: readonly AuditRestart[];
  /** What the audit cannot see (always said). */
  readonly note: string;
}

const NOTE =
  "the audit checks the recorded transitions against the machine definitions; events appended without a trace (single appends, other writers) carry no transitions to check; a resumed chain run's new machine begins at its initial state (listed under restarts)";

interface MachineState {
  readonly graph: MachineGraph;
  readonly index: NodeIndex;
  leaves: string[];
}

/** The reason a step is not an edge of the graph, or null when it is one. */
function edgeProblem(g: MachineGraph, s: TraceStep): { code: AuditFindingCode; detail: string } | null {
  const candidates = traceEdges(g, s);
  if (candidates.length === 0)
    return {
      code: 'no_such_transition',
      detail: `${g.id} has no transition from ${s.from} on ${JSON.stringify(s.event)} to ${s.to === '' ? '(no target)' : s.to}`,
    };
  const guard = s.guard ?? null;
  if (!candidates.some((e) => e.guard === guard))
    return {
      code: 'guard_mismatch',
      detail: `${g.id}: the transition from ${s.from} on ${JSON.stringify(s.event)} to ${s.to} is guarded by ${candidates.map((e) => e.guard ?? '(none)').join(' | ')}, the trace says ${guard ?? '(none)'}`,
    };
  return null;
}

/** `events 4–6` / `event 4`: the seqs no batch record covers. */
function seqSpan(span: { readonly from: number; readonly to: number }): string {
  return span.from === span.to ? `event ${span.from}` : `events ${span.from}–${span.to}`;
}

/**
 * Audits a run's traced batches against machine graphs (pure). Findings cite the batch's first
 * event as `<runId>#<seq>`, or as `citeOf(seq)` for a journal that is not a run (a gate ledger's
 * `<problem>#<seq>`).
 *
 * @example
 * ```ts
 * const r = auditTrace(runId, batches, [machineGraph(cycleMachine)]);
 * if (!r.ok) for (const f of r.findings) print(`${f.cite} step ${f.index}: ${f.detail}`);
 * ```
 */
export function auditTrace(
  runId: string,
  batches: readonly TracedBatch[],
  graphs: readonly MachineGraph[],
  citeOf: (firstSeq: number) => string = (seq) => formatCite(runId, seq),
  options: AuditOptions = {},
): AuditReport {
  const machines = new Map<string, MachineState>();
  for (const graph of graphs) {
    const index = new Map(graph.nodes.map((n) => [n.id, n]));
    machines.set(graph.id, { graph, index, leaves: initialConfiguration(graph) });
  }
  const findings: AuditFinding[] = [];
  const restarts: AuditRestart[] = [];
  let steps = 0;
  let traced = 0;
  let previousLast = 0;
  const untracedSpans: { first_seq: number; last_seq: number }[] = [];
  for (const batch of batches) {
    if (batch.trace.length > 0) traced += 1;
    const cite = citeOf(batch.first_seq);
    // events between the previous record and this one carry no record: their steps are unknown
    const untraced =
      batch.first_seq > previousLast + 1 ? { from: previousLast + 1, to: batch.first_seq - 1 } : null;
    if (untraced !== null) untracedSpans.push({ first_seq: untraced.from, last_seq: untraced.to });
    previousLast = Math.max(previousLast, batch.last_seq);
    const seen = new Set<string>();
    batch.trace.forEach((step, index) => {
      steps += 1;
      const m = machines.get(step.machine);
      if (m === undefined) {
        findings.push({
          code: 'unknown_machine',
          cite,
          index,
          step,
          detail: `no machine ${JSON.stringify(step.machine)} is known to the audit`,
        });
        return;
      }
      const firstInWrite = !seen.has(step.machine);
      const afterGap = untraced !== null && firstInWrite;
      seen.add(step.machine);
      const problem = edgeProblem(m.graph, step);
      if (problem !== null) findings.push({ ...problem, cite, index, step });
      else if (
        isTraceRestart(step, {
          graph: m.graph,
          index: m.index,
          leaves: m.leaves,
          firstInWrite,
          ...(options.resumable === undefined ? {} : { resumable: options.resumable }),
        })
      ) {
        // a new actor of a resumed run: it begins in the initial configuration
        restarts.push({ cite, index, machine: step.machine });
        m.leaves = initialConfiguration(m.graph);
      } else if (!isActive(m.index, m.leaves, step.from))
        findings.push(
          afterGap
            ? {
                code: 'trace_gap',
                cite,
                index,
                step,
                detail: `${step.from} is not active after the last recorded step (active: ${m.leaves.join(', ')}), and ${seqSpan(untraced)} before this batch carry no trace record: their transitions were lost (a power cut can lose an unsynced one-event record) or removed`,
              }
            : {
                code: 'not_active',
                cite,
                index,
                step,
                detail: `${step.from} is not active at this point (active: ${m.leaves.join(', ')})`,
              },
        );
      const targets = step.to === '' ? [] : step.to.split(',');
      if (targets.every((t) => m.index.has(t)) && m.index.has(step.from))
        m.leaves = applyTransition(m.index, m.leaves, step.from, targets);
    });
  }
  return {
    schema: AUDIT_SCHEMA,
    run_id: runId,
    ok: findings.length === 0 && traced > 0,
    batches: batches.length,
    steps,
    findings,
    untraced: untracedSpans,
    restarts,
    note: NOTE,
  };
}
