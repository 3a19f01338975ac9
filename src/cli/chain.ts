/**
 * `handoff chain …`: the handoff chain's CLI.
 * - `handoff chain example payroll [--wrong-value] [--contract thin|release] [--json]`, the
 *   payroll experiment run through the seam machine (`runPayroll` → `HandoffChain.run` →
 *   `machines/chain.ts`). Exit codes: 0 every run accepted, 3 a run stopped at a seam, 2 usage.
 * - `handoff chain recover-lock --journal DIR --baton ID [--json]`, a person's recovery of a chain
 *   file journal's stale lock (`recoverChainJournalLock`: removed only when its holder is this
 *   host's pid and that pid is gone; a removal is journaled under `DIR/lock-recoveries/`). Exit
 *   codes: 0 removed or no lock, 3 refused (nothing changed), 2 usage, the io_error code (4) when
 *   the lock was removed but its record could not be written.
 */

import { isAbsolute, join } from 'node:path';
import { recoverChainJournalLock, recoverEffectLedgerLock } from '../chain/lock-recovery.js';
import {
  createStoreChainJournal,
  type StoreChainCommit,
  type StoreChainJournal,
} from '../chain/store-journal.js';
import { HandoffError } from '../errors/index.js';
import { createFsStore } from '../store/fs-store.js';
import { optionalString, parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { errorExitCode } from './exit-codes.js';
import { type CliIo, printJson } from './io.js';
import { escapeLine } from './terminal-text.js';

/**
 * The payroll example is a program on the public chain API (`examples/payroll`), loaded when the
 * verb runs — never a module dependency of the CLI (docs/architecture.md § Layers).
 */
const PAYROLL_PROGRAM = new URL('../../examples/payroll/index.js', import.meta.url).href;
type PayrollProgram = typeof import('../../examples/payroll/index.js');
type PayrollContractKind = Parameters<PayrollProgram['runPayroll']>[0]['contract'];
type PayrollReport = Awaited<ReturnType<PayrollProgram['runPayroll']>>;
const runPayroll: PayrollProgram['runPayroll'] = async (o) =>
  ((await import(PAYROLL_PROGRAM)) as PayrollProgram).runPayroll(o);

const HELP = [
  'usage: handoff chain example payroll [--wrong-value] [--contract thin|release] [--run-store DIR] [--json]',
  '       handoff chain recover-lock --journal DIR --baton ID [--json]',
  '       handoff chain recover-lock --effects DIR [--json]',
  '',
  'recover-lock removes the lock a killed writer left on a baton of the chain file journal DIR',
  '(createFileChainJournal(DIR)) — only when its body names this host and a pid that is not',
  'running; a lock of another host, of a live pid or with an unreadable body is left (exit 3).',
  'A removal is journaled as a chain-lock-recovery/v1 record in DIR/lock-recoveries/ (its cite is',
  'printed). Nothing in the chain ever breaks a lock by itself. Exit: 0 removed or no lock,',
  '3 refused, 2 usage, and the io_error code when the lock was removed but the record not written.',
  'With --effects DIR it removes, by the same rules, the lock of the file effect ledger in DIR',
  '(createFileEffectLedger(DIR): DIR/effects.jsonl.lock) that a writer killed inside a begin or put',
  'left; journaled in DIR/lock-recoveries/ (ledger "effects"). An effect whose intent that writer',
  'recorded stays in doubt: a resume decides it with its reconcile function, never by running it again.',
  '',
  'Runs the payroll handoff chain (intent → settle → fund_check → pay → receipt) on deterministic',
  'month-end data (800 employees, 2 reversed payments) and prints every stage receipt.',
  '',
  '  --wrong-value        settle from the obligations (all salaries) instead of the PAID ledger.',
  '                       Without --contract this runs the experiment twice: the thin contract',
  '                       (accepts and pays the wrong total) then the release contract (stops at',
  '                       settle, nothing paid).',
  '  --contract KIND      thin (keys, producers, types, evidence) or release (adds semantic rules',
  '                       tied to the controlling ledger). Default: release.',
  '  --run-store DIR      make every commit durable in the run store at DIR: each contract run',
  '                       becomes a chain run (run-store-manifest/chain-v1); prints its run id and',
  '                       the cite of every commit (<run_id>#manifest for the start baton,',
  '                       <run_id>#<seq> per baton-commit). Read them back with',
  '                       `handoff store load --run-id ID --root DIR` or `handoff inspect ID --root DIR`.',
  '  --json               print {"example", "wrong_value", "runs": [report…]} instead of text',
  '                       (with --run-store each report has "run_store": {root, run_id, commits}).',
  '  -h, --help           print this help.',
  '',
  'Exit: 0 every run accepted, 3 a run stopped at a seam, 2 usage.',
  'With --run-store: 4 when the run store refuses a commit (e.g. busy: another writer holds the',
  'run lock, never broken) or cannot write it.',
].join('\n');

const money = (x: number) =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Where a run's commits went in the run store. */
interface RunStoreSection {
  readonly root: string;
  readonly run_id: string | null;
  readonly commits: readonly StoreChainCommit[];
}

type CliReport = PayrollReport & { readonly run_store?: RunStoreSection };

function printReport(io: CliIo, r: CliReport): void {
  const lines = [
    `== payroll ${r.baton_id}: contract ${r.contract}, settle source ${r.source} ==`,
    '   receipts:',
  ];
  const width = Math.max(...r.receipts.map((x) => x.stage_name.length), 5);
  for (const x of r.receipts) {
    lines.push(
      `     r${x.input_revision}->r${x.output_revision} ${x.stage_name.padEnd(width)} consumed [${x.consumed_keys.join(', ')}] produced [${x.produced_keys.join(', ')}]`,
      `       ${x.receipt_id}`,
      `       evidence [${x.evidence_refs.join(', ')}] ${x.input_fingerprint} -> ${x.output_fingerprint}`,
    );
  }
  lines.push(`   trace: ${r.trace.join(' -> ') || '(none)'}`);
  if (r.outcome === 'accepted' && r.acceptance) {
    lines.push(`   ACCEPTED ${r.acceptance.receipt_id}`);
  } else if (r.seam_error) {
    lines.push(`   STOPPED ${r.seam_error.message}`, `   checkpoint ${r.seam_error.checkpoint.snapshot_id}`);
  }
  if (r.run_store !== undefined) {
    lines.push(`   run store ${r.run_store.root}: run ${r.run_store.run_id ?? '(none)'}`);
    for (const c of r.run_store.commits)
      lines.push(
        `     ${c.cite.padEnd(36)} ${c.stage === null ? 'start baton' : `commit ${c.stage}`} r${c.revision} ${c.snapshot_id}`,
      );
  }
  lines.push(
    `   paid: ${r.payments.length === 0 ? 'nothing' : `${r.paid_lines} lines, ${money(r.paid_total)}`} (controlling ledger ${money(r.ledger_total)}${r.overpaid !== 0 ? `; overpaid ${money(r.overpaid)}` : ''})`,
    '',
  );
  io.out(`${lines.join('\n')}\n`);
}

async function examplePayroll(argv: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals, rest } = parseVerbArgs(argv, {
    'wrong-value': { type: 'boolean' },
    contract: { type: 'string' },
    'run-store': { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0 || rest.length > 0)
    throw new HandoffError('usage', `unexpected argument ${[...positionals, ...rest][0]}`);
  const contract = values.contract as string | undefined;
  if (contract !== undefined && contract !== 'thin' && contract !== 'release') {
    throw new HandoffError('usage', `unknown --contract ${contract} (thin or release)`);
  }
  const wrongValue = values['wrong-value'] === true;
  const kinds: PayrollContractKind[] = contract ? [contract] : wrongValue ? ['thin', 'release'] : ['release'];
  const runStore = optionalString(values, 'run-store');
  if (runStore !== undefined && runStore.trim() === '')
    throw new HandoffError('usage', '--run-store needs a directory');
  // the invocation owns the runs it starts: each run's lock is held from its first commit to
  // close() (one O_EXCL lock per run instead of one per commit), as handoff run --persist does
  const store =
    runStore === undefined
      ? undefined
      : createFsStore({ root: runStore, env: io.env, cwd: io.cwd, holdLocks: true });
  const runs: CliReport[] = [];
  try {
    for (const kind of kinds) {
      if (store === undefined) {
        runs.push(await runPayroll({ contract: kind, wrongValue }));
        continue;
      }
      let journal: StoreChainJournal | undefined;
      const report = await runPayroll({
        contract: kind,
        wrongValue,
        // every invocation starts fresh runs (discover: false): the example's rail is in memory
        journal: (chain) => {
          journal = createStoreChainJournal(store, chain, { discover: false });
          return journal;
        },
      });
      runs.push({
        ...report,
        run_store: {
          root: store.root,
          run_id: journal?.runOf(report.baton_id) ?? null,
          commits: journal?.commits(report.baton_id) ?? [],
        },
      });
    }
  } finally {
    store?.close();
  }
  if (values.json === true) printJson(io, { example: 'payroll', wrong_value: wrongValue, runs });
  else for (const r of runs) printReport(io, r);
  // a run stopped at a seam exits like the seam refusal itself (the code → exit table)
  return runs.every((r) => r.outcome === 'accepted') ? 0 : errorExitCode('stage_failed', 'chain');
}

/** `handoff chain recover-lock --journal DIR --baton ID [--json]` or `--effects DIR [--json]`. */
function recoverLock(argv: readonly string[], io: CliIo): number {
  const { values, positionals, rest } = parseVerbArgs(argv, {
    journal: { type: 'string' },
    baton: { type: 'string' },
    effects: { type: 'string' },
    json: { type: 'boolean' },
  });
  if (positionals.length > 0 || rest.length > 0)
    throw new HandoffError('usage', `unexpected argument ${[...positionals, ...rest][0]}`);
  const journal = optionalString(values, 'journal');
  const baton = optionalString(values, 'baton');
  const effects = optionalString(values, 'effects');
  const abs = (d: string) => (isAbsolute(d) ? d : join(io.cwd, d));
  if (effects !== undefined && (journal !== undefined || baton !== undefined))
    throw new HandoffError('usage', 'recover-lock takes either --effects DIR or --journal DIR --baton ID');
  if (effects !== undefined && effects.trim() === '')
    throw new HandoffError('usage', '--effects needs the effect ledger directory');
  if (effects === undefined && (journal === undefined || journal.trim() === '' || baton === undefined))
    throw new HandoffError('usage', 'recover-lock needs --journal DIR and --baton ID, or --effects DIR');
  const r =
    effects !== undefined
      ? recoverEffectLedgerLock(abs(effects))
      : recoverChainJournalLock(abs(journal as string), baton as string);
  const subject = effects !== undefined ? { ledger: 'effects' } : { baton_id: baton };
  if (values.json === true) printJson(io, { schema: 'chain-lock-recover/v1', ...subject, ...r });
  else if (r.outcome === 'removed') {
    io.out(`${escapeLine(`removed ${r.lock} (holder ${r.holder.host} pid ${r.holder.pid} is gone)`)}\n`);
    if (r.journaled !== null) io.out(`${escapeLine(`journaled: ${r.journaled.cite}`)}\n`);
  } else if (r.outcome === 'no_lock') io.out(`${escapeLine(`no lock at ${r.lock}: nothing to do`)}\n`);
  else io.out(`${escapeLine(`refused (${r.reason}): ${r.detail} — ${r.lock} left as it is`)}\n`);
  if (r.outcome === 'removed' && r.journaled === null) {
    // the lock is gone, but what was done has no record: not a success
    io.err(
      `${escapeLine(`the lock was removed, but the recovery was not journaled: ${r.record_error ?? '?'}`)}\n`,
    );
    return errorExitCode('io_error', 'chain');
  }
  return r.outcome === 'refused' ? 3 : 0;
}

/** The `chain` verb group. */
export const command: CliCommand = {
  verbs: ['example', 'recover-lock'],
  help: HELP,
  async run(argv, io) {
    const beforeDashes = argv.indexOf('--') === -1 ? argv : argv.slice(0, argv.indexOf('--'));
    if (beforeDashes.includes('--help') || beforeDashes.includes('-h')) {
      io.out(`${HELP}\n`);
      return 0;
    }
    const [verb, name, ...rest] = argv;
    if (verb === 'recover-lock') return recoverLock(argv.slice(1), io);
    if (verb !== 'example')
      throw new HandoffError(
        'usage',
        `unknown chain verb ${verb === undefined ? '(none)' : `'${verb}'`}; try: handoff chain example payroll, handoff chain recover-lock`,
      );
    if (name !== 'payroll')
      throw new HandoffError(
        'usage',
        `unknown example ${name === undefined ? '(none)' : `'${name}'`}; available: payroll`,
      );
    return examplePayroll(rest, io);
  },
};
