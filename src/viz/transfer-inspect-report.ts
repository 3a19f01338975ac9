/**
 * `handoff inspect --transfer-journal DIR --session S` (pure): a transfer session's journal as a
 * report — every line with its cite (the opening, each decision with its outcome, code, agents and
 * redacted key names, an end), and the session's path drawn over the transfer machine: each
 * write's recorded transitions, then the state the written lines put the session in (the step
 * after a write is never recorded; it is read from the journal and drawn as such). States of the
 * machine the session never visited are listed, so the text reads as the path over the graph.
 */
import type { TraceStep } from '../store/store-types.js';
import type { TransferJournalLine } from '../transfer/journal-line-schema.js';
import { sessionStates, tracedWrites } from '../transfer/rules/journal-writes.js';
import { transferCite } from '../transfer/rules/session-state.js';
import type { MachineGraph } from './graph.js';

/**
 * Schema id of {@link TransferInspectReport}.
 *
 * @example
 * ```ts
 * TRANSFER_INSPECT_SCHEMA; // 'handoff-transfer-inspect/v1'
 * ```
 */
export const TRANSFER_INSPECT_SCHEMA = 'handoff-transfer-inspect/v1';

/** One journal line as the report shows it. */
export interface TransferInspectLine {
  readonly cite: string;
  readonly at: string;
  readonly kind: 'open' | 'decision' | 'end';
  /** One line in words (agents, outcome, code, reason). */
  readonly summary: string;
  /** For a decision: its request id, outcome and code. */
  readonly request_id: string | null;
  readonly outcome: 'granted' | 'refused' | null;
  readonly code: string | null;
  /** The agent holding authority after the line (null: nobody). */
  readonly active: string | null;
  /** Names of the context keys the route redacted (values are never journaled). */
  readonly redacted: readonly string[];
  /** True when the line ends a write that recorded the machine's transitions. */
  readonly traced: boolean;
}

/** One write's part of the path. */
export interface TransferPathWrite {
  /** The cite of the write's traced line. */
  readonly cite: string;
  readonly steps: readonly TraceStep[];
  /** The state the session is in once the write is durable (read from the journal, not recorded). */
  readonly after: string;
}

/** The `handoff-transfer-inspect/v1` report. */
export interface TransferInspectReport {
  readonly schema: typeof TRANSFER_INSPECT_SCHEMA;
  readonly session: string;
  readonly status: string;
  readonly active: string | null;
  readonly lines: readonly TransferInspectLine[];
  readonly path: {
    readonly machine: string;
    readonly writes: readonly TransferPathWrite[];
    /** Machine states (short ids) the recorded path entered or left, in first-seen order. */
    readonly visited: readonly string[];
    /** Atomic states of the machine the recorded path never reached. */
    readonly not_visited: readonly string[];
    readonly limits: readonly string[];
  };
}

const LIMITS = [
  "the step after each write (the journal actor's done event) is not recorded: the state after a write is read from the journal",
  'a decision that wrote nothing (a replayed request id, a conflict, a request to an ended session) is not in the journal',
];

function summaryOf(line: TransferJournalLine): string {
  const e = line.entry;
  if (e.kind === 'open') return `session opened: ${e.active} holds the lease until ${e.lease.expires_at}`;
  if (e.kind === 'end') return `session ${e.end} by ${e.by}: ${e.reason}`;
  const d = e.decision;
  const route = `${e.from} → ${e.to ?? '(host)'}`;
  const redacted = d.redacted.length > 0 ? `; redacted ${d.redacted.join(', ')}` : '';
  return `${d.request_id}: ${route} ${d.outcome} (${d.code}): ${d.reason}${redacted}`;
}

/**
 * Builds the report of a session's journal lines over the transfer machine's graph (pure).
 *
 * @example
 * ```ts
 * const r = transferInspectReport('conv-9', readTransferJournalLines(dir, 'conv-9'), machineGraph(transferMachine));
 * r.path.writes[0]?.after; // 'active'
 * ```
 */
export function transferInspectReport(
  session: string,
  lines: readonly TransferJournalLine[],
  graph: MachineGraph,
): TransferInspectReport {
  const states = sessionStates(session, lines);
  const writes = tracedWrites(session, lines);
  const tracedSeqs = new Set(writes.map((w) => w.last_seq));
  const prefix = `${graph.id}.`;
  const short = (id: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
  const shown: TransferInspectLine[] = lines.map((line, i) => {
    const e = line.entry;
    const d = e.kind === 'decision' ? e.decision : null;
    return {
      cite: transferCite(session, line.seq),
      at: line.at,
      kind: e.kind,
      summary: summaryOf(line),
      request_id: d?.request_id ?? null,
      outcome: d?.outcome ?? null,
      code: d?.code ?? null,
      active: states[i]?.active ?? null,
      redacted: d?.redacted ?? [],
      traced: tracedSeqs.has(line.seq),
    };
  });
  const pathWrites = writes.map((w) => ({
    cite: transferCite(session, w.last_seq),
    steps: w.trace,
    after: w.after,
  }));
  const visited: string[] = [];
  const see = (id: string) => {
    const s = short(id);
    if (s !== '' && !visited.includes(s)) visited.push(s);
  };
  for (const w of pathWrites) {
    for (const s of w.steps) {
      see(s.from);
      for (const t of s.to.split(',')) see(t);
    }
    see(w.after);
  }
  const atomic = graph.nodes
    .filter((n) => n.id !== graph.root && n.children.length === 0)
    .map((n) => short(n.id));
  const last = states[states.length - 1];
  return {
    schema: TRANSFER_INSPECT_SCHEMA,
    session,
    status: last?.status ?? 'new',
    active: last?.active ?? null,
    lines: shown,
    path: {
      machine: graph.id,
      writes: pathWrites,
      visited,
      not_visited: atomic.filter((s) => !visited.includes(s)),
      limits: LIMITS,
    },
  };
}

/** `a →REQUEST→ b →[guard]→ c`: one write's steps as an arrow chain. */
function chainText(steps: readonly TraceStep[], short: (id: string) => string): string {
  if (steps.length === 0) return '(no steps)';
  const parts = [short(steps[0]?.from ?? '')];
  let at = steps[0]?.from ?? '';
  for (const s of steps) {
    // a step that does not leave where the previous one arrived is shown with its own source
    if (s.from !== at) parts.push(`… ${short(s.from)}`);
    const label = s.event === 'xstate.always' ? (s.guard ?? 'always') : s.event;
    parts.push(`─${label}→ ${s.to === '' ? '(stays)' : s.to.split(',').map(short).join(',')}`);
    at = s.to === '' ? at : s.to;
  }
  return parts.join(' ');
}

/**
 * The report as text. `escapeOne` is applied to each output line before the lines are joined (the
 * CLI passes its one-line escape, so a journaled string with a newline or a control cannot forge a
 * line of its own); default: unchanged.
 *
 * @example
 * ```ts
 * process.stdout.write(transferInspectText(report, escapeLine));
 * ```
 */
export function transferInspectText(
  r: TransferInspectReport,
  escapeOne: (line: string) => string = (line) => line,
): string {
  const prefix = `${r.path.machine}.`;
  const short = (id: string) => (id.startsWith(prefix) ? id.slice(prefix.length) : id);
  const out = [
    `transfer session ${r.session} · ${r.lines.length} journal lines · ${r.status}${r.active === null ? ' (nobody holds authority)' : ` (active: ${r.active})`}`,
    '',
    'journal:',
    ...r.lines.map(
      (l) => `  ${l.cite}  ${l.at}  ${l.summary}${l.traced ? '' : l.kind === 'open' ? '' : '  [no trace]'}`,
    ),
    '',
    `path over the ${r.path.machine} machine (recorded with each journal write; ⇒ read from the journal):`,
    ...(r.path.writes.length === 0
      ? ['  no trace recorded (the journal was written before writes carried one)']
      : r.path.writes.map((w) => `  ${w.cite}: ${chainText(w.steps, short)} ⇒ ${w.after}`)),
    `visited: ${r.path.visited.join(', ') || '(none)'}`,
    `never visited: ${r.path.not_visited.join(', ') || '(none)'}`,
    ...r.path.limits.map((l) => `limit: ${l}`),
  ];
  return `${out.map(escapeOne).join('\n')}\n`;
}
