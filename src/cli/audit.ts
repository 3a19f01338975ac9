/**
 * `handoff audit <run-id> [--root DIR | --project DIR] [--json]` — replays the transition trace a
 * persisted run recorded with its journal (the batch records beside `events.jsonl`) through the
 * machine definitions and flags every step the machine does not allow: an edited, reordered or
 * foreign trace. Exit 0 when every recorded step is allowed, 5 when a step is flagged or the run
 * recorded no trace to check, 3 for a malformed run id or one the store does not hold, 4 when the
 * run or its batch records cannot be read.
 */
import { type AuditReport, auditTrace } from '../audit/index.js';
import { HandoffError } from '../errors/index.js';
import { machineGraph } from '../viz/graph.js';
import { MACHINE_NAMES, namedMachine } from '../viz/machines.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { RUN_STORE_OPTIONS, runStoreOf, runUnavailable } from './run-store-args.js';
import { toTerminalJson } from './terminal-text.js';

const HELP = [
  'usage: handoff audit <run-id> [--root DIR | --project DIR] [--json]',
  '',
  'Replays the machine transitions a persisted run recorded with its journal (each journal write of',
  'a `--persist` run carries the transitions since the previous one) through the machine',
  'definitions, and flags every step the machine does not allow, with the cite of the write that',
  'carried it: no such transition, a guard the machine does not have there, a step from a state',
  'that was not active (a dropped or reordered step), an unknown machine.',
  '  --root DIR      the store root (alias --run-store); else $HANDOFF_RUN_STORE; else <project>/.handoff',
  '  --project DIR   the project whose .handoff store to read (alias --project-root; default: cwd)',
  '  --json          print the run-audit/v1 record',
  '',
  'Exit: 0 every recorded step allowed, 2 usage, 3 malformed run id (bad_run_id) or no such run',
  '(no_such_run), 4 the run or its batch records cannot be read, 5 a step flagged or no trace recorded.',
].join('\n');

/** The exit status of an audit that found something (or nothing to check). */
const AUDIT_FAILED = 5;

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
  return `${[head, ...lines, `note: ${r.note}`].join('\n')}\n`;
}

/** The `handoff audit` verb group. */
export const command: CliCommand = {
  verbs: [],
  help: HELP,
  async run(argv, io) {
    const { values, positionals } = parseVerbArgs(argv, {
      ...RUN_STORE_OPTIONS,
      json: { type: 'boolean' },
    });
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
    io.out(values.json === true ? `${toTerminalJson(report)}\n` : auditText(report));
    return report.ok ? 0 : AUDIT_FAILED;
  },
};
