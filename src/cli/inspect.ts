/**
 * `handoff inspect <run-id> [--root DIR | --project DIR] [--format text|json|mermaid|dot|html]
 * [--out FILE]` — loads a run from the run store, summarises it (manifest, events with seqs and
 * cites, the effective handoff, damage and warnings) and draws the run's path over its machine,
 * picked from the manifest schema: the cycle machine for run-contract runs
 * (`run-store-manifest/v1|v2`) — the delegation machine when the run's recorded trace names it
 * (a `delegate` or adapter run) —, the chain machine for handoff-chain runs
 * (`run-store-manifest/chain-v1`). Journal damage is reported, never fatal. Exit 0 ok, 2 usage,
 * 3 a malformed run id or one the store does not hold (as in `store load` and `run --prior-run`),
 * 4 the run cannot be read.
 *
 * `handoff inspect --transfer-journal DIR --session ID [--json | --format FORMAT] [--out FILE]` —
 * a transfer session's journal instead: every line with its cite (decisions with outcome, code,
 * agents and redacted key names) and the session's path over the transfer machine, from the
 * transitions each write recorded (`handoff-transfer-inspect/v1` as JSON; mermaid, dot and html
 * draw the recorded path). Exit 0 ok, 2 usage, 3 no journal for the session, 4 a damaged or
 * unreadable journal.
 */
import { resolve as resolvePath } from 'node:path';
import { HandoffError } from '../errors/index.js';
import { type AnyLoadResult, type FsStore, formatCite, isChainRunLoad, parseCite } from '../store/index.js';
import { chainInspectJson, chainInspectReport, chainInspectText } from '../viz/chain-inspect-report.js';
import { machineGraph } from '../viz/graph.js';
import { inspectJson, inspectReport, inspectText } from '../viz/inspect-report.js';
import { namedMachine } from '../viz/machines.js';
import { type RecordedStep, recordedTrail } from '../viz/recorded-path.js';
import { DELEGATION_SETTLE_LIMIT, type RunMachine, runMachine } from '../viz/run-machine.js';
import { transferInspectReport, transferInspectText } from '../viz/transfer-inspect-report.js';
import { optionalString, parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import type { CliIo } from './io.js';
import { RUN_STORE_OPTIONS, runStoreOf, runUnavailable } from './run-store-args.js';
import { escapeControls, escapeLine, toTerminalJson } from './terminal-text.js';
import { transferSessionLines } from './transfer.js';
import { emit, render } from './viz.js';

const FORMATS = ['text', 'json', 'mermaid', 'dot', 'html'] as const;

const HELP = [
  'usage: handoff inspect <run-id | run-id#seq> [--root DIR | --project DIR] [--format text|json|mermaid|dot|html] [--out FILE]',
  '',
  'Loads a stored run (run-store/v1) and shows its manifest, events (seq, cite), effective handoff,',
  'journal damage and warnings, and the path the run took through its machine, derived from the',
  'journal: the transitions the run recorded with its journal writes (persisted cycle runs, chain',
  'runs on the run store, delegate runs), else derived from the journal. The machine follows the',
  'manifest schema, and for run-contract runs the machine their recorded trace names:',
  '  run-contract runs (run-store-manifest/v1|v2) → the cycle machine: dispatch → work, worker',
  '    handoff → checkpoint, review → review, replan → replan, final handoff → solved/stuck/stopped;',
  '    steps in between are inferred and drawn as such.',
  '  delegate and adapter runs (a run-contract run whose trace names the delegation machine) → the',
  '    delegation machine: dispatch → prepare → work → check → journal, as recorded with the handoff.',
  '  handoff-chain runs (run-store-manifest/chain-v1) → the chain machine: the steps each',
  '    baton-commit carried (failures and retries before it included); without them manifest',
  '    (start baton) → ready, each baton-commit → running → validating → committed; a complete',
  '    last baton → accepted (no journal write follows the acceptance).',
  '  --root DIR      the store root (alias --run-store); else $HANDOFF_RUN_STORE; else <project>/.handoff',
  '  --project DIR   the project whose .handoff store to read (alias --project-root; default: cwd)',
  '  --format        text (default), json (handoff-inspect/v1), mermaid, dot, html (the path drawn)',
  '  --out FILE      write to FILE instead of standard output',
  'A cite (RUN_ID#SEQ, as the library and `handoff run` print them; RUN_ID#manifest) inspects its',
  'run and first says which event it names (on stderr for the non-text formats).',
  '',
  'Exit: 0 ok (a damaged journal is reported, not fatal), 2 usage, 3 malformed run id (bad_run_id)',
  'or no such run (no_such_run), 4 unreadable run.',
  '',
  'usage: handoff inspect --transfer-journal DIR --session ID [--json | --format FORMAT] [--out FILE]',
  '',
  "A transfer session's journal (handoff transfer --journal DIR): every line with its cite (each",
  'decision with its outcome, code, agents and the names of the redacted keys) and the path the',
  'session took over the transfer machine, from the transitions each journal write recorded (the',
  'state after a write is read from the journal). --json prints handoff-transfer-inspect/v1; mermaid,',
  'dot and html draw the recorded path (each write begins at idle, drawn as a restart).',
  'Exit: 0 ok, 2 usage, 3 no journal for the session, 4 a damaged or unreadable journal.',
].join('\n');

/** True when argv asks for a transfer session (`--transfer-journal`, before any `--`). */
function wantsTransfer(argv: readonly string[]): boolean {
  const dd = argv.indexOf('--');
  const head = dd === -1 ? argv : argv.slice(0, dd);
  return head.some((a) => a === '--transfer-journal' || a.startsWith('--transfer-journal='));
}

/** `handoff inspect --transfer-journal DIR --session ID`. */
async function inspectTransfer(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseVerbArgs(argv, {
    'transfer-journal': { type: 'string' },
    session: { type: 'string' },
    json: { type: 'boolean' },
    format: { type: 'string' },
    out: { type: 'string' },
  });
  const dir = optionalString(values, 'transfer-journal');
  const session = optionalString(values, 'session');
  if (dir === undefined || session === undefined || positionals.length > 0)
    throw new HandoffError('usage', 'give --transfer-journal DIR and --session ID (and no run id)');
  const format = values.json === true ? 'json' : (optionalString(values, 'format') ?? 'text');
  if (!(FORMATS as readonly string[]).includes(format))
    throw new HandoffError('usage', `unknown format '${format}' (known: ${FORMATS.join(', ')})`);
  const read = transferSessionLines(io, 'inspect', resolvePath(io.cwd, dir), session);
  if (!read.ok) return read.exit;
  const transfer = namedMachine('transfer');
  if (transfer === undefined) throw new HandoffError('internal', 'the transfer machine is not registered');
  const graph = machineGraph(transfer.machine);
  const report = transferInspectReport(session, read.lines, graph);
  let text: string;
  if (format === 'text') text = transferInspectText(report, escapeLine);
  else if (format === 'json') text = `${toTerminalJson(report)}\n`;
  else {
    // each write's actor begins at idle: drawn as a restart, as for a resumed chain run
    const recorded = report.path.writes.flatMap((w) =>
      w.steps.map((step) => ({ step, cite: w.cite, lastSeq: 0 })),
    );
    const trail = recordedTrail(graph, recorded, session, { restarts: true });
    const subtitle = [
      `transfer session ${session} · ${report.lines.length} journal lines · ${report.status}${report.active === null ? '' : ` (active: ${report.active})`}`,
      ...report.path.limits.map((l) => `limit: ${l}`),
    ].map(escapeLine);
    text = render(graph, format as 'mermaid' | 'dot' | 'html', trail.overlay, subtitle);
  }
  await emit(io, text, optionalString(values, 'out'));
  return 0;
}

/** The closing subtitle lines of a rendered diagram, run or chain run: journal damage, then path limits. */
function subtitleTail(report: {
  readonly damaged: { readonly code: string; readonly line: number } | null;
  readonly path: { readonly limits: readonly string[] };
}): string[] {
  return [
    ...(report.damaged === null
      ? []
      : [`journal damage: ${report.damaged.code} at line ${report.damaged.line}`]),
    ...report.path.limits.map((l) => `limit: ${l}`),
  ];
}

/**
 * The machine a run is drawn over and its recorded transitions: complete batch records' traces,
 * each step with the cite of its journal write (`runMachine` picks `chain` by the manifest, else
 * the machine the trace names — `delegation` for a `delegate` run — else `cycle`). No steps when
 * the run recorded none or they cannot be read: the path is then derived from the journal, as for
 * any run written without a trace. Steps of other machines are left out (`handoff audit` flags a
 * foreign machine).
 */
async function recordedSteps(
  store: FsStore,
  runId: string,
  chainRun: boolean,
): Promise<{ machine: RunMachine; steps: RecordedStep[] }> {
  const b = await store.readBatches(runId);
  if (!b.ok) return { machine: chainRun ? 'chain' : 'cycle', steps: [] };
  const machine = runMachine(chainRun, b.value.batches);
  const steps = b.value.batches
    .filter((x) => x.status === 'complete')
    .flatMap((x) =>
      x.trace
        .filter((step) => step.machine === machine)
        .map((step) => ({ step, cite: formatCite(runId, x.first_seq), lastSeq: x.last_seq })),
    );
  return { machine, steps };
}

/**
 * What a cite names, in words: `RUN#3 names event 3 of 5: handoff (status solved)`, the manifest
 * for `RUN#manifest`; null when the run has no event with that seq.
 *
 * @example
 * ```ts
 * citeLine('R#2', 2, [{ seq: 1, kind: 'dispatch', payload: {} }, { seq: 2, kind: 'handoff', payload: { status: 'solved' } }]);
 * // 'R#2 names event 2 of 2: handoff (status solved)'
 * ```
 */
export function citeLine(
  cite: string,
  seq: number | 'manifest',
  events: readonly { readonly seq: number; readonly kind: string; readonly payload: unknown }[],
): string | null {
  if (seq === 'manifest') return `${cite} names the run's manifest (its first dispatch)`;
  const e = events.find((x) => x.seq === seq);
  if (e === undefined) return null;
  const p = (e.payload ?? {}) as Record<string, unknown>;
  const facts = [
    typeof p.status === 'string' ? `status ${p.status}` : null,
    typeof p.target === 'string' ? `target ${p.target}` : null,
  ].filter((x): x is string => x !== null);
  return `${cite} names event ${seq} of ${events.length}: ${e.kind}${facts.length > 0 ? ` (${facts.join(', ')})` : ''}`;
}

/** The `handoff inspect` verb group. */

export const command: CliCommand = {
  verbs: [],
  help: HELP,
  async run(argv, io) {
    if (wantsTransfer(argv)) return inspectTransfer(argv, io);
    const { values, positionals } = parseVerbArgs(argv, {
      ...RUN_STORE_OPTIONS,
      format: { type: 'string' },
      out: { type: 'string' },
    });
    if (positionals.length !== 1)
      throw new HandoffError(
        'usage',
        'expected one run id (handoff inspect RUN_ID; `handoff store list` prints them)',
      );
    // a cite the library hands out (`RUN#3`, `RUN#manifest`) inspects its run and names the event
    const given = positionals[0] as string;
    const cite = parseCite(given);
    const runId = cite?.run_id ?? given;
    const format = optionalString(values, 'format') ?? 'text';
    if (!(FORMATS as readonly string[]).includes(format))
      throw new HandoffError('usage', `unknown format '${format}' (known: ${FORMATS.join(', ')})`);
    const store = runStoreOf(values, io);
    let loaded: AnyLoadResult;
    let recorded: RecordedStep[] = [];
    let drawnOver: RunMachine = 'cycle';
    try {
      loaded = await store.loadRun(runId);
      if (loaded.ok) {
        const r = await recordedSteps(store, runId, isChainRunLoad(loaded.value));
        recorded = r.steps;
        drawnOver = r.machine;
      }
    } finally {
      await (store as { close?: () => unknown }).close?.();
    }
    if (!loaded.ok) {
      throw runUnavailable('inspect', runId, store, loaded);
    }
    if (cite !== null) {
      const events = loaded.value.events as readonly { seq: number; kind: string; payload: unknown }[];
      const line = citeLine(given, cite.seq, events);
      if (line === null) {
        throw new HandoffError(
          'usage',
          `${given}: run ${runId} has ${events.length} events, none with seq ${String(cite.seq)} (handoff inspect ${runId} lists them)`,
          { details: { cite: given, events: events.length } },
        );
      }
      // on stdout only in the text report; a diagram or JSON stays what it was
      if (format === 'text' && optionalString(values, 'out') === undefined)
        io.out(`${escapeControls(line)}\n\n`);
      else io.err(`handoff inspect: ${escapeControls(line)}\n`);
    }
    if (isChainRunLoad(loaded.value)) {
      const chain = namedMachine('chain');
      if (chain === undefined) throw new HandoffError('internal', 'the chain machine is not registered');
      const graph = machineGraph(chain.machine);
      const report = chainInspectReport(loaded.value, graph, recorded);
      if (report.damaged !== null) {
        io.err(
          `handoff inspect: journal damaged (${report.damaged.code} at line ${report.damaged.line}); showing the valid prefix\n`,
        );
      }
      let text: string;
      // the report is display, also with --out: control characters escaped (the store keeps them)
      if (format === 'text') text = escapeControls(chainInspectText(report, graph));
      else if (format === 'json') text = `${toTerminalJson(chainInspectJson(report, graph))}\n`;
      else {
        const subtitle = [
          `chain run ${report.run_id} · ${report.manifest.chain_id} · baton ${report.manifest.baton_id} · ${report.events.length} commits · ${report.path.finished ? 'accepted' : 'unfinished'}`,
          `last committed baton ${report.last_baton.snapshot_id}`,
          ...subtitleTail(report),
        ];
        text = render(graph, format as 'mermaid' | 'dot' | 'html', report.overlay, subtitle);
      }
      await emit(io, text, optionalString(values, 'out'));
      return 0;
    }
    // a run-contract run: the cycle machine, or the delegation machine its trace names
    const named = namedMachine(drawnOver);
    if (named === undefined) throw new HandoffError('internal', `the ${drawnOver} machine is not registered`);
    const graph = machineGraph(named.machine);
    const drawn = inspectReport(loaded.value, graph, recorded);
    const report =
      drawnOver === 'delegation'
        ? { ...drawn, path: { ...drawn.path, limits: [...drawn.path.limits, DELEGATION_SETTLE_LIMIT] } }
        : drawn;
    const damage = loaded.value.damage;
    if (damage !== null) {
      io.err(
        `handoff inspect: journal damaged (${damage.code} at line ${damage.line}); showing the valid prefix\n`,
      );
    }
    let text: string;
    if (format === 'text') text = escapeControls(inspectText(report, graph));
    else if (format === 'json') text = `${toTerminalJson(inspectJson(report, graph))}\n`;
    else {
      const h = report.effective_handoff;
      const subtitle = [
        `run ${report.run_id} · created ${report.manifest.created} · ${report.events.length} events · ${report.path.finished ? 'finished' : 'unfinished'}`,
        h === null
          ? 'no handoff recorded'
          : `effective handoff ${h.cite}: ${h.status ?? '?'}${h.stop_reason ? ` (${h.stop_reason})` : ''}`,
        ...subtitleTail(report),
      ];
      text = render(graph, format as 'mermaid' | 'dot' | 'html', report.overlay, subtitle);
    }
    await emit(io, text, optionalString(values, 'out'));
    return 0;
  },
};
