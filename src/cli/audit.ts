/**
 * `handoff audit <run-id> [--root DIR | --project DIR] [--json]` — replays the transition trace a
 * persisted run recorded with its journal (the batch records beside `events.jsonl`) through the
 * machine definitions and flags every step the machine does not allow: an edited, reordered or
 * foreign trace. Exit 0 when every recorded step is allowed, 5 when a step is flagged or the run
 * recorded no trace to check, 3 for a malformed run id or one the store does not hold, 4 when the
 * run or its batch records cannot be read — including a batch record that does not match the
 * journal (torn, edited, or not a record): the audit names it (`batches.jsonl` line, events, what
 * does not match) and still checks the intact records, but never says "no trace recorded".
 *
 * `handoff audit --gate-ledger DIR --problem ID [--json]` — the same for a gate problem: replays
 * the gate machine transitions that traced gate runs recorded on the problem's fs ledger entries
 * (`gate-ledger-audit/v1`, cites `<problem>#<seq>`); `--gate-ledger-pg URL` (or
 * `$HANDOFF_LEDGER_PG_URL`) reads the PostgreSQL gate ledger instead. Exit 0 all allowed, 5 a step
 * flagged or no trace (or no history), 3 a malformed problem id, 4 a damaged or unreadable ledger.
 *
 * `handoff audit --chain-journal DIR --baton ID [--json]` — the same for a baton's chain file
 * journal (`createFileChainJournal(DIR)`): replays the chain machine transitions its commit lines
 * carry (`chain-journal-audit/v1`, cites `<journal file>#<line>`). Exit 0 all allowed, 5 a step
 * flagged or no trace, 3 no journal for the baton, 4 a damaged or unreadable journal.
 *
 * `handoff audit --transfer-journal DIR --session ID [--json]` — the same for a transfer session's
 * journal (`handoff transfer --journal DIR`): replays the transfer machine transitions each write
 * carries and checks each write's trace against its lines (`transfer-journal-audit/v1`, cites
 * `<session>#<seq>`). Exit 0 all allowed, 5 a step or write flagged or no trace, 3 no journal for
 * the session, 4 a damaged or unreadable journal.
 */
import { isAbsolute, join } from 'node:path';
import {
  type AuditReport,
  auditTrace,
  type DamagedBatch,
  damagedBatches,
  damagedBatchLine,
} from '../audit/index.js';
import {
  chainJournalCite,
  readChainLockRecoveries,
  readEffectLedgerLockRecoveries,
  readFileChainJournalTrace,
} from '../chain/index.js';
import { HandoffError } from '../errors/index.js';
import {
  auditLedgerTrace,
  fsLedgerLog,
  type GateLedgerAudit,
  type LedgerTraces,
  ProblemIdSchema,
} from '../gate/index.js';
import { auditTransferJournal, type TransferJournalAudit } from '../transfer/transfer-audit.js';
import { machineGraph } from '../viz/graph.js';
import { MACHINE_NAMES, namedMachine } from '../viz/machines.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import type { CliIo } from './io.js';
import { LEDGER_PG_URL_ENV, loadPg } from './optional-peer.js';
import { RUN_STORE_OPTIONS, runStoreOf, runUnavailable } from './run-store-args.js';
import { escapeLine, toTerminalJson } from './terminal-text.js';
import { transferSessionLines } from './transfer.js';

const HELP = [
  'usage: handoff audit <run-id> [--root DIR | --project DIR] [--json]',
  '       handoff audit --gate-ledger DIR --problem ID [--json]',
  '       handoff audit --gate-ledger-pg URL --problem ID [--json]',
  '       handoff audit --chain-journal DIR --baton ID [--json]',
  '       handoff audit --transfer-journal DIR --session ID [--json]',
  '',
  'Replays the machine transitions a persisted run recorded with its journal (each journal write of',
  'a `--persist` run carries the transitions since the previous one) through the machine',
  'definitions, and flags every step the machine does not allow, with the cite of the write that',
  'carried it: no such transition, a guard the machine does not have there, a step from a state',
  'that was not active (a dropped or reordered step), an unknown machine.',
  '  --root DIR      the store root (alias --run-store); else $HANDOFF_RUN_STORE; else <project>/.handoff',
  '  --project DIR   the project whose .handoff store to read (alias --project-root; default: cwd)',
  '  --json          print the run-audit/v1 record (gate-ledger-audit/v1 with --gate-ledger)',
  '  --gate-ledger DIR  audit a gate problem instead: the gate machine transitions each traced',
  "                  `handoff gate run` recorded on the problem's entries of the fs ledger DIR",
  '                  (e.g. <repo>/.handoff/gate/ledger), replayed run by run; findings cite',
  '                  <problem>#<seq> and the step index',
  '  --gate-ledger-pg URL  the same on the PostgreSQL gate ledger at URL (needs the optional pg',
  '                  package; --problem alone reads $HANDOFF_LEDGER_PG_URL)',
  '  --problem ID    the gate problem (with --gate-ledger or --gate-ledger-pg)',
  "  --chain-journal DIR  audit a baton's chain file journal instead (createFileChainJournal(DIR)):",
  '                  the chain machine transitions its commit lines carry; findings cite',
  '                  <journal file>#<line> and the step index',
  '  --baton ID      the baton (with --chain-journal)',
  "  --transfer-journal DIR  audit a transfer session's journal instead (handoff transfer --journal",
  "                  DIR): the transfer machine transitions each write carries, and each write's",
  '                  trace against the lines it wrote; findings cite <session>#<seq>',
  '  --session ID    the transfer session (with --transfer-journal)',
  '',
  'Exit: 0 every recorded step allowed, 2 usage, 3 malformed run id (bad_run_id) or no such run',
  '(no_such_run), a malformed problem id, or no journal for the baton or session, 4 the run, its batch',
  'records, the gate ledger, the chain or the transfer journal cannot be read (damaged; a batch',
  'record that does not match the journal is named, and the intact ones are still checked), 5 a step',
  'flagged (a transfer write whose trace does not match its lines included) or no trace recorded.',
].join('\n');

/** The exit status of an audit that found something (or nothing to check). */
const AUDIT_FAILED = 5;
/** The exit status of a malformed id. */
const MALFORMED_ID = 3;
/** The exit status of a damaged journal or batch record. */
const DAMAGED = 4;

/** The line naming the events no batch record covers (none when every event is covered). */
function untracedLine(r: Pick<AuditReport, 'untraced'>): string[] {
  if (r.untraced.length === 0) return [];
  const spans = r.untraced.map((u) =>
    u.first_seq === u.last_seq ? `#${u.first_seq}` : `#${u.first_seq}–#${u.last_seq}`,
  );
  return [
    `untraced: events ${spans.join(', ')} carry no trace record (written while the machine did not move, or their record was lost or removed); their transitions, if any, are not checked`,
  ];
}

/** The line naming where a resumed run's new machine began (none when the run was never resumed). */
function restartLine(r: Pick<AuditReport, 'restarts'>): string[] {
  if (r.restarts.length === 0) return [];
  const at = r.restarts.map((x) => `${x.cite} step ${x.index} (${x.machine})`);
  return [escapeLine(`restarts: ${at.join(', ')} — a resumed run's new machine began at its initial state`)];
}

/** The human report. */
function auditText(r: AuditReport): string {
  const head = r.ok
    ? `audit ${r.run_id}: ok — ${r.steps} recorded transitions in ${r.batches} journal writes, every one allowed`
    : r.steps === 0
      ? `audit ${r.run_id}: no trace recorded — nothing to check (${r.batches} batch records)`
      : `audit ${r.run_id}: ${r.findings.length} of ${r.steps} recorded transitions not allowed`;
  const lines = r.findings.map(
    (f) => `  ${f.cite} step ${f.index}: ${f.code}: ${f.detail} (${f.step.event})`,
  );
  return `${[head, ...lines, ...restartLine(r), ...untracedLine(r), `note: ${r.note}`].join('\n')}\n`;
}

/** The human report of a run whose batch records are damaged: the damage first, then the intact records' audit. */
function damagedText(r: AuditReport, damaged: readonly DamagedBatch[], total: number): string {
  const head = `audit ${r.run_id}: batch records damaged — ${damaged.length} of ${total} do not match the journal; the transitions they carry are not checked`;
  const intact =
    r.steps === 0
      ? `intact batch records: ${r.batches}, none carries a trace`
      : `intact batch records: ${r.batches}, ${r.steps} recorded transitions, ${r.findings.length} not allowed`;
  const lines = r.findings.map(
    (f) => `  ${f.cite} step ${f.index}: ${f.code}: ${f.detail} (${f.step.event})`,
  );
  const body = [
    ...damaged.map((d) => `  ${damagedBatchLine(r.run_id, d)}`),
    intact,
    ...lines,
    ...restartLine(r),
    ...untracedLine(r),
  ];
  return `${[head, ...body.map((l) => escapeLine(l)), `note: ${r.note}`].join('\n')}\n`;
}

/** The human report of a gate problem's audit, one escaped line per finding. */
function gateAuditText(r: GateLedgerAudit): string {
  const head = r.ok
    ? `audit ${r.problem_id}: ok — ${r.steps} recorded transitions of ${r.runs} gate run(s) on ${r.traced_entries} of ${r.entries} ledger entries, every one allowed`
    : r.steps === 0
      ? `audit ${r.problem_id}: no trace recorded — nothing to check (${r.entries} ledger entries)`
      : `audit ${r.problem_id}: ${r.findings.length} of ${r.steps} recorded transitions not allowed`;
  // a forged step's strings may hold controls or newlines: each finding stays one escaped line
  const lines = r.findings.map(
    (f) => `  ${escapeLine(`${f.cite} step ${f.index}: ${f.code}: ${f.detail} (${f.step.event})`)}`,
  );
  return `${[escapeLine(head), ...lines, `note: ${r.note}`].join('\n')}\n`;
}

/** Where a gate problem's ledger is: an fs ledger directory or a PostgreSQL URL. */
type GateLedgerAt = { readonly dir: string } | { readonly url: string };

/** The problem's ledger traces, read through the backend `at` names (closed after). */
async function gateTraces(at: GateLedgerAt, problem: string): Promise<LedgerTraces | null> {
  if ('dir' in at) {
    const log = fsLedgerLog(at.dir);
    try {
      return await log.readTraces(problem);
    } finally {
      log.close();
    }
  }
  const { pgLedgerLog } = await loadPg('--gate-ledger-pg');
  const log = pgLedgerLog({ connectionString: at.url, maxConnections: 1 });
  try {
    return await log.readTraces(problem);
  } finally {
    await log.close();
  }
}

/** `handoff audit --gate-ledger DIR | --gate-ledger-pg URL --problem ID`. */
async function auditGate(io: CliIo, at: GateLedgerAt, problem: string, json: boolean): Promise<number> {
  if (!ProblemIdSchema.safeParse(problem).success) {
    io.err(`audit: not a problem id: ${escapeLine(JSON.stringify(problem))}\n`);
    return MALFORMED_ID;
  }
  const read = await gateTraces(at, problem);
  const gate = namedMachine('gate');
  const report = auditLedgerTrace(
    problem,
    read?.entries ?? 0,
    read?.traced ?? [],
    gate === undefined ? [] : [machineGraph(gate.machine)],
  );
  io.out(json ? `${toTerminalJson(report)}\n` : gateAuditText(report));
  return report.ok ? 0 : AUDIT_FAILED;
}

/** Schema id of the `--chain-journal --json` report. */
const CHAIN_JOURNAL_AUDIT_SCHEMA = 'chain-journal-audit/v1';

/** `handoff audit --chain-journal DIR --baton ID`. */
function auditChainJournal(io: CliIo, dir: string, batonId: string, json: boolean): number {
  const read = readFileChainJournalTrace(dir, batonId);
  if (!read.ok) {
    io.err(`audit: ${escapeLine(`${read.code}: ${read.detail}`)}\n`);
    return 4;
  }
  if (read.entries === 0) {
    io.err(
      `audit: no chain journal for baton ${escapeLine(JSON.stringify(batonId))} in ${escapeLine(dir)}\n`,
    );
    return MALFORMED_ID;
  }
  const chain = namedMachine('chain');
  const audited = auditTrace(
    batonId,
    read.traced,
    chain === undefined ? [] : [machineGraph(chain.machine)],
    (line) => chainJournalCite(batonId, line),
  );
  const { run_id: _runId, schema: _schema, ...rest } = audited;
  // the journaled lock recoveries of this baton (a person's `chain recover-lock`): listed, not judged
  const recovered = readChainLockRecoveries(dir, batonId);
  // an effect ledger kept in the journal's directory: its lock recoveries (`--effects DIR`) too
  const effectsRecovered = readEffectLedgerLockRecoveries(dir).recoveries;
  const report = {
    schema: CHAIN_JOURNAL_AUDIT_SCHEMA,
    baton_id: batonId,
    file: read.file,
    entries: read.entries,
    traced_lines: read.traced.length,
    ...rest,
    lock_recoveries: [
      ...recovered.recoveries.map((r) => ({
        cite: r.cite,
        at: r.record.at,
        holder: r.record.holder,
        recovered_by: r.record.recovered_by,
      })),
      ...effectsRecovered.map((r) => ({
        cite: r.cite,
        at: r.record.at,
        holder: r.record.holder,
        recovered_by: r.record.recovered_by,
        ledger: 'effects' as const,
      })),
    ],
    unreadable_lock_recoveries: recovered.unreadable,
  };
  if (json) {
    io.out(`${toTerminalJson(report)}\n`);
    return report.ok ? 0 : AUDIT_FAILED;
  }
  const id = JSON.stringify(batonId);
  const head = report.ok
    ? `audit baton ${id}: ok — ${report.steps} recorded transitions on ${report.traced_lines} of ${report.entries} journal lines, every one allowed`
    : report.steps === 0
      ? `audit baton ${id}: no trace recorded — nothing to check (${report.entries} journal lines)`
      : `audit baton ${id}: ${report.findings.length} of ${report.steps} recorded transitions not allowed`;
  const lines = report.findings.map(
    (f) => `  ${escapeLine(`${f.cite} step ${f.index}: ${f.code}: ${f.detail} (${f.step.event})`)}`,
  );
  const recoveryLines = [
    ...report.lock_recoveries.map((r) =>
      escapeLine(
        `lock recovery${'ledger' in r ? ' (effect ledger)' : ''}: ${r.cite} at ${r.at} — removed the lock of ${r.holder.host} pid ${r.holder.pid} (gone), by pid ${r.recovered_by.pid}`,
      ),
    ),
    ...report.unreadable_lock_recoveries.map((u) =>
      escapeLine(`lock recovery unreadable: ${u.cite}: ${u.detail}`),
    ),
  ];
  io.out(
    `${[escapeLine(head), ...lines, ...restartLine(report), ...recoveryLines, `note: ${report.note}`].join('\n')}\n`,
  );
  return report.ok ? 0 : AUDIT_FAILED;
}

/** The human report of a transfer session's audit, one escaped line per finding. */
function transferAuditText(r: TransferJournalAudit): string {
  const id = JSON.stringify(r.session);
  const flagged = r.findings.length + r.write_findings.length;
  const head = r.ok
    ? `audit session ${id}: ok — ${r.steps} recorded transitions in ${r.traced_writes} journal writes (${r.entries} lines), every one allowed and matching its lines`
    : r.traced_writes === 0
      ? `audit session ${id}: no trace recorded — nothing to check (${r.entries} journal lines)`
      : `audit session ${id}: ${flagged} finding(s) in ${r.steps} recorded transitions of ${r.traced_writes} journal writes`;
  const lines = [
    ...r.findings.map((f) => `${f.cite} step ${f.index}: ${f.code}: ${f.detail} (${f.step.event})`),
    ...r.write_findings.map(
      (f) => `${f.cite}${f.index === null ? '' : ` step ${f.index}`}: ${f.code}: ${f.detail}`,
    ),
  ].map((l) => `  ${escapeLine(l)}`);
  const untraced =
    r.untraced.length === 0
      ? []
      : [
          `untraced: lines ${r.untraced.map((u) => (u.first_seq === u.last_seq ? `#${u.first_seq}` : `#${u.first_seq}–#${u.last_seq}`)).join(', ')} were written without a trace (an older writer); not checked`,
        ];
  return `${[escapeLine(head), ...lines, ...untraced, `note: ${r.note}`].join('\n')}\n`;
}

/** `handoff audit --transfer-journal DIR --session ID`. */
function auditTransfer(io: CliIo, dir: string, session: string, json: boolean): number {
  const read = transferSessionLines(io, 'audit', dir, session);
  if (!read.ok) return read.exit;
  const transfer = namedMachine('transfer');
  if (transfer === undefined) throw new HandoffError('internal', 'the transfer machine is not registered');
  const report = auditTransferJournal(session, read.lines, machineGraph(transfer.machine));
  io.out(json ? `${toTerminalJson(report)}\n` : transferAuditText(report));
  return report.ok ? 0 : AUDIT_FAILED;
}

/** The `handoff audit` verb group. */
export const command: CliCommand = {
  verbs: [],
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseVerbArgs(argv, {
      ...RUN_STORE_OPTIONS,
      json: { type: 'boolean' },
      'gate-ledger': { type: 'string' },
      'gate-ledger-pg': { type: 'string' },
      problem: { type: 'string' },
      'chain-journal': { type: 'string' },
      baton: { type: 'string' },
      'transfer-journal': { type: 'string' },
      session: { type: 'string' },
    });
    const transferJournal = values['transfer-journal'];
    if (typeof transferJournal === 'string' || values.session !== undefined) {
      if (
        typeof transferJournal !== 'string' ||
        typeof values.session !== 'string' ||
        positionals.length > 0 ||
        values['chain-journal'] !== undefined ||
        values['gate-ledger'] !== undefined ||
        values['gate-ledger-pg'] !== undefined
      )
        throw new HandoffError(
          'usage',
          `give --transfer-journal DIR and --session ID (and no run id)\n\n${HELP}`,
        );
      return auditTransfer(
        io,
        isAbsolute(transferJournal) ? transferJournal : join(io.cwd, transferJournal),
        values.session,
        values.json === true,
      );
    }
    const chainJournal = values['chain-journal'];
    if (typeof chainJournal === 'string' || values.baton !== undefined) {
      if (
        typeof chainJournal !== 'string' ||
        typeof values.baton !== 'string' ||
        positionals.length > 0 ||
        values['gate-ledger'] !== undefined
      )
        throw new HandoffError('usage', `give --chain-journal DIR and --baton ID (and no run id)\n\n${HELP}`);
      return auditChainJournal(
        io,
        isAbsolute(chainJournal) ? chainJournal : join(io.cwd, chainJournal),
        values.baton,
        values.json === true,
      );
    }
    const gateLedger = values['gate-ledger'];
    const gatePg = values['gate-ledger-pg'];
    if (typeof gateLedger === 'string' || typeof gatePg === 'string' || values.problem !== undefined) {
      // --problem alone takes the PostgreSQL ledger from $HANDOFF_LEDGER_PG_URL, as handoff gate does
      const envUrl = io.env[LEDGER_PG_URL_ENV];
      const url =
        gatePg ?? (gateLedger === undefined && envUrl !== undefined && envUrl !== '' ? envUrl : undefined);
      if (
        typeof values.problem !== 'string' ||
        positionals.length > 0 ||
        (gateLedger !== undefined && gatePg !== undefined) ||
        (gateLedger === undefined && url === undefined)
      )
        throw new HandoffError(
          'usage',
          `give --gate-ledger DIR or --gate-ledger-pg URL, and --problem ID (and no run id)\n\n${HELP}`,
        );
      const at: GateLedgerAt =
        typeof gateLedger === 'string'
          ? { dir: isAbsolute(gateLedger) ? gateLedger : join(io.cwd, gateLedger) }
          : { url: url as string };
      return auditGate(io, at, values.problem, values.json === true);
    }
    if (positionals.length !== 1) throw new HandoffError('usage', `expected one run id\n\n${HELP}`);
    const runId = positionals[0] as string;
    const store = runStoreOf(values, io);
    let read: Awaited<ReturnType<typeof store.readBatches>>;
    try {
      read = await store.readBatches(runId);
    } finally {
      await (store as { close?: () => unknown }).close?.();
    }
    if (!read.ok) {
      throw runUnavailable('audit', runId, store, read);
    }
    const graphs = MACHINE_NAMES.map((n) => namedMachine(n))
      .filter((m) => m !== undefined)
      .map((m) => machineGraph(m.machine));
    // a torn or aborted batch was never acknowledged: its trace is not part of the run
    const batches = read.value.batches.filter((b) => b.status === 'complete');
    const report = auditTrace(runId, batches, graphs);
    // a record that does not match the journal is damage, named — not a run without a trace
    const damaged = damagedBatches(read.value.batches, read.value.warnings);
    if (damaged.length > 0) {
      const total = read.value.batches.length + read.value.warnings.length;
      io.out(
        values.json === true
          ? `${toTerminalJson({ ...report, ok: false, damaged_batches: damaged })}\n`
          : damagedText(report, damaged, total),
      );
      return DAMAGED;
    }
    io.out(values.json === true ? `${toTerminalJson(report)}\n` : auditText(report));
    return report.ok ? 0 : AUDIT_FAILED;
  },
};
