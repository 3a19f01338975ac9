/**
 * The gate ledger's journal audit (pure): replays the gate machine transitions that traced gate
 * runs recorded on their ledger entries (ledger-trace.ts) through the machine definitions, with
 * the run audit's own rules (`auditTrace`: no such transition, guard mismatch, a source state that
 * is not active, an unknown machine). A ledger may hold several runs of one problem (the initial
 * run, lead-directed runs): each run's replay starts from the machine's initial state at the entry
 * marked `start`. Each finding cites its entry as `<problem_id>#<seq>` with the step's index.
 */
import { type AuditFinding, auditTrace, type TracedBatch } from '../audit/index.js';
import type { MachineGraph } from '../viz/graph.js';
import type { LedgerTrace } from './ledger-trace.js';

/** Schema id of {@link GateLedgerAudit}. */
export const GATE_LEDGER_AUDIT_SCHEMA = 'gate-ledger-audit/v1';

/** A flagged step: the run audit's finding, cited by ledger entry. */
export interface GateAuditFinding extends AuditFinding {
  /** The seq of the ledger entry that carried the step (the cite is `<problem_id>#<seq>`). */
  readonly seq: number;
}

/** The audit of one problem's ledger (`gate-ledger-audit/v1`). */
export interface GateLedgerAudit {
  readonly schema: typeof GATE_LEDGER_AUDIT_SCHEMA;
  readonly problem_id: string;
  /** True when every recorded step is allowed and at least one step was recorded. */
  readonly ok: boolean;
  /** Entries in the ledger, and how many of them carry a trace. */
  readonly entries: number;
  readonly traced_entries: number;
  /** Gate runs found (entries marked `start`; a trace before the first such entry counts as one). */
  readonly runs: number;
  readonly steps: number;
  readonly findings: readonly GateAuditFinding[];
  /** What the audit cannot see (always said). */
  readonly note: string;
}

const NOTE =
  'the audit replays the gate machine transitions that traced gate runs recorded on their ledger entries; entries written without a trace (ledger verbs, untraced runs, older versions — the PostgreSQL ledger stored none before its trace column) carry none to check';

/**
 * Audits the traces of one problem's ledger entries (in seq order) against machine graphs.
 *
 * @example
 * ```ts
 * const r = auditLedgerTrace('billing-17', 9, traced, [machineGraph(gateMachine)]);
 * for (const f of r.findings) print(`${f.cite} step ${f.index}: ${f.detail}`);
 * ```
 */
export function auditLedgerTrace(
  problemId: string,
  entries: number,
  traced: readonly { readonly seq: number; readonly trace: LedgerTrace }[],
  graphs: readonly MachineGraph[],
): GateLedgerAudit {
  const runs: TracedBatch[][] = [];
  for (const t of traced) {
    const batch: TracedBatch = { first_seq: t.seq, last_seq: t.seq, trace: t.trace.steps };
    const run = runs[runs.length - 1];
    if (t.trace.start || run === undefined) runs.push([batch]);
    else run.push(batch);
  }
  const findings: GateAuditFinding[] = [];
  let steps = 0;
  for (const run of runs) {
    const r = auditTrace(problemId, run, graphs, (seq) => `${problemId}#${seq}`);
    steps += r.steps;
    for (const f of r.findings) findings.push({ ...f, seq: Number(f.cite.slice(problemId.length + 1)) });
  }
  return {
    schema: GATE_LEDGER_AUDIT_SCHEMA,
    problem_id: problemId,
    ok: findings.length === 0 && steps > 0,
    entries,
    traced_entries: traced.length,
    runs: runs.length,
    steps,
    findings,
    note: NOTE,
  };
}
