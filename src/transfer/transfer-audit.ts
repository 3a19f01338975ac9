/**
 * The audit of a transfer session's journal (pure): every write's recorded transitions are replayed
 * through the transfer machine's graph (`auditTrace`), and each write is checked against the lines
 * it wrote. Every request is decided by a new actor restored from the journal, so each write's
 * trace begins at `idle` (a restart, allowed only as a write's first step): from `idle` on
 * `REQUEST` for a new session, else `idle → <status before the write>` (the restore). It must end
 * in the journal state that wrote its line (`transferring` for a grant, `refusing` for a refusal,
 * `closing` for an end). A line without a trace after the first traced write is flagged too: this
 * writer traces every write, so its trace was removed (or an older writer appended it).
 *
 * The step a write's actor takes after its write (the journal actor's done event: `transferring →
 * active`, `closing → returned` …) happens after the line is durable and is never recorded; the
 * next write's restore stands for it, and is checked against the status the lines fold to.
 */
import { type AuditFinding, auditTrace } from '../audit/audit-rules.js';
import type { TraceStep } from '../store/store-types.js';
import type { MachineGraph } from '../viz/graph.js';
import type { TransferJournalLine } from './journal-line-schema.js';
import { type TransferTracedWrite, tracedWrites, writingStateOf } from './rules/journal-writes.js';
import { transferCite } from './rules/session-state.js';

/**
 * Schema id of {@link TransferJournalAudit}.
 *
 * @example
 * ```ts
 * TRANSFER_JOURNAL_AUDIT_SCHEMA; // 'transfer-journal-audit/v1'
 * ```
 */
export const TRANSFER_JOURNAL_AUDIT_SCHEMA = 'transfer-journal-audit/v1';

/** A write whose trace does not match the lines it wrote, or a line whose trace is missing. */
export interface TransferWriteFinding {
  readonly code: 'write_mismatch' | 'untraced_line';
  /** `<session>#<seq>` of the traced line (the untraced line for `untraced_line`). */
  readonly cite: string;
  /** The step's index in the write's trace (null when no one step is to blame). */
  readonly index: number | null;
  readonly detail: string;
}

/** The audit of one session (`transfer-journal-audit/v1`). */
export interface TransferJournalAudit {
  readonly schema: typeof TRANSFER_JOURNAL_AUDIT_SCHEMA;
  readonly session: string;
  /** True when at least one write carried a trace and nothing was flagged. */
  readonly ok: boolean;
  /** Journal lines in all. */
  readonly entries: number;
  /** Writes that carried a trace. */
  readonly traced_writes: number;
  readonly steps: number;
  /** Steps the machine does not allow (cite `<session>#<seq>` of the write's traced line). */
  readonly findings: readonly AuditFinding[];
  /** Writes whose trace does not match their lines; lines whose trace is missing. */
  readonly write_findings: readonly TransferWriteFinding[];
  /** Lines before the first traced write that carry no trace (older journal lines): not checked. */
  readonly untraced: readonly { readonly first_seq: number; readonly last_seq: number }[];
  readonly note: string;
}

const NOTE =
  "each request is decided by a new transfer machine actor restored from the journal: a write's trace begins at idle (the restore is checked against the status its lines fold to) and ends in the journal state that wrote its line; the step after a write (the journal actor's done event) is never recorded; decisions that wrote nothing (a replayed request id, a conflict, a request to an ended session) carry no trace";

const short = (id: string): string => id.replace(/^transfer\./, '');

/** The findings of one write's trace against its lines (pure). */
function writeFindings(session: string, w: TransferTracedWrite, root: string): TransferWriteFinding[] {
  const cite = transferCite(session, w.last_seq);
  const out: TransferWriteFinding[] = [];
  const first = w.trace[0] as TraceStep;
  const idle = `${root}.idle`;
  if (first.from !== idle) {
    out.push({
      code: 'write_mismatch',
      cite,
      index: 0,
      detail: `a write's actor begins at idle, this trace begins at ${short(first.from)}`,
    });
  } else if (w.before === 'new' && first.event !== 'REQUEST') {
    out.push({
      code: 'write_mismatch',
      cite,
      index: 0,
      detail: `the session was new before this write: its trace leaves idle on REQUEST, not on ${first.event} to ${short(first.to)}`,
    });
  } else if (w.before !== 'new' && first.to !== `${root}.${w.before}`) {
    out.push({
      code: 'write_mismatch',
      cite,
      index: 0,
      detail: `the journal before this write folds to ${w.before}, the trace restores ${short(first.to) || '(nothing)'}`,
    });
  }
  const writing = writingStateOf(w.line);
  const last = w.trace[w.trace.length - 1] as TraceStep;
  if (writing !== null && last.to !== `${root}.${writing}`) {
    out.push({
      code: 'write_mismatch',
      cite,
      index: w.trace.length - 1,
      detail: `line ${w.last_seq} (${w.line.entry.kind}${w.line.entry.kind === 'decision' ? ` ${w.line.entry.decision.code}` : ''}) is written in ${writing}, the trace ends in ${short(last.to) || '(no target)'}`,
    });
  }
  return out;
}

/**
 * Audits a session's journal lines against the transfer machine's graph (pure).
 *
 * @example
 * ```ts
 * const r = auditTransferJournal('conv-9', readTransferJournalLines(dir, 'conv-9'), machineGraph(transferMachine));
 * r.ok; // true when every write's transitions are allowed and match its lines
 * ```
 */
export function auditTransferJournal(
  session: string,
  lines: readonly TransferJournalLine[],
  graph: MachineGraph,
): TransferJournalAudit {
  const writes = tracedWrites(session, lines);
  // each write's actor restarts at idle: the transfer machine is resumable at every write
  const replay = auditTrace(session, writes, [graph], (seq) => transferCite(session, seq), {
    resumable: [graph.id],
  });
  // auditTrace cites a batch by its first seq; the write is cited by its traced line
  const lastOf = new Map(writes.map((w) => [transferCite(session, w.first_seq), w.last_seq]));
  const findings = replay.findings.map((f) => ({
    ...f,
    cite: transferCite(session, lastOf.get(f.cite) ?? 0),
  }));
  const write_findings = writes.flatMap((w) => writeFindings(session, w, graph.id));
  const firstTraced = writes[0]?.first_seq ?? Number.POSITIVE_INFINITY;
  const covered = new Set(writes.flatMap((w) => range(w.first_seq, w.last_seq)));
  const untraced: { first_seq: number; last_seq: number }[] = [];
  for (const line of lines) {
    if (covered.has(line.seq)) continue;
    if (line.seq > firstTraced) {
      write_findings.push({
        code: 'untraced_line',
        cite: transferCite(session, line.seq),
        index: null,
        detail: `line ${line.seq} (${line.entry.kind}) carries no trace after traced writes: its trace was removed, or a writer without traces appended it`,
      });
      continue;
    }
    const lastSpan = untraced[untraced.length - 1];
    if (lastSpan !== undefined && lastSpan.last_seq === line.seq - 1) lastSpan.last_seq = line.seq;
    else untraced.push({ first_seq: line.seq, last_seq: line.seq });
  }
  return {
    schema: TRANSFER_JOURNAL_AUDIT_SCHEMA,
    session,
    ok: writes.length > 0 && findings.length === 0 && write_findings.length === 0,
    entries: lines.length,
    traced_writes: writes.length,
    steps: replay.steps,
    findings,
    write_findings,
    untraced,
    note: NOTE,
  };
}

function range(from: number, to: number): number[] {
  const out: number[] = [];
  for (let i = from; i <= to; i++) out.push(i);
  return out;
}
