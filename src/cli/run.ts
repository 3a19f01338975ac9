/**
 * `handoff run` — runs the six-phase cycle on a project with a worker command. Live progress on a
 * TTY (phase, cycle n/max, open targets, stuck count, elapsed), plain lines otherwise; `--json`
 * prints only the final run-contract/v1 handoff record.
 *
 * Exit codes: 0 solved; 1 stopped on a budget (max-cycles, max-runtime) or by the user; 3 stuck or
 * stopped on a blocker (max-stuck), a relaunch refused by the rerun guard, or a malformed
 * `--prior-run` id; 4 protocol or operational error (including custody violations); 2 usage.
 * Thrown refusals exit through the CLI's table (exit-codes.ts).
 */

import { readFile, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { type Handoff, validateHandoff } from '../contract/index.js';
import { NO_TARGETS_FOUND } from '../cycle/target-exists.js';
import { HandoffError } from '../errors/index.js';
import { commandHeaderExtractor, type ExtractorTable, type HeaderExtractor } from '../fence/index.js';
import { profileByName } from '../profile/index.js';
import { lineHuman, scriptedHuman } from '../runtime/builtin-ports.js';
import { splitCommand } from '../runtime/command-line.js';
import { type CycleFlags, resolveCycleOptions, resolveSandboxFlags } from '../runtime/cycle-options.js';

export { emptyWhy } from '../runtime/empty-run.js';

import { createPersistRecorder, openRunStore } from '../runtime/persist-recorder.js';
import type { PriorRunReuse } from '../runtime/prior-run.js';
import { type ProjectRunResult, runProject } from '../runtime/project-run.js';
import type { CycleProgress } from '../runtime/run-cycle.js';
import type { RunRecorder } from '../runtime/run-recorder.js';
import { describeProgress } from '../runtime/worker-framing.js';
import { isRunId } from '../store/run-id.js';
import { parseDuration } from '../tracker/duration.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { humanErrorLine } from './error-line.js';
import { errorExitCode } from './exit-codes.js';
import { FENCE_HELP, FENCE_OPTIONS, fenceFlags } from './fence-flags.js';
import { type CliIo, printJson } from './io.js';
import { checkRunTarget } from './run-target.js';
import { escapeLine, toTerminalJson } from './terminal-text.js';

/** Exit codes of `handoff run`. */
export const RUN_EXIT = { solved: 0, budget: 1, usage: 2, blocker: 3, error: 4, empty: 5 } as const;

const HELP = `usage: handoff run --target T --scope S --mode prove|autoprove --worker 'CMD …' [options]

Runs Plan → Work → Checkpoint → Review → Replan → Continue/Stop on a project until every target
is solved, a target is stuck, or a budget runs out, and ends with a run-contract/v1 handoff.

required:
  --target T              file, file:line, or directory (relative to --project)
  --scope S               sorry|deps|file|changed|project
  --mode M                prove (a human approves every replan and continue) | autoprove
  --worker 'CMD …'        the worker command, split into argv (quotes respected, no shell)
options:
  --project DIR           project root (default: current directory)
  --reviewer 'CMD …'      reviewer command (JSON in/out; default: built-in)
  --diagnostics 'CMD …'   diagnostics command (JSON in/out; default: built-in marker counter)
  --marker WORD           marker counted by the built-in diagnostics (default: the profile's)
  --profile lean|code     domain profile (docs/concepts.md; default lean: markers sorry, .lean
                          statement fence; code: markers TODO(agent), no fence without
                          --header-extractor)
  --diagnostics-cmd 'CMD …'  the profile's check command, judged by its exit status (e.g.
                          'npm test'): a failing check keeps the edited target open
  --max-cycles N          (default 20)        --max-stuck-cycles N (alias --max-stuck; default 3)
  --max-total-runtime D   (alias --max-runtime; default 120m; s|m|h, bare = minutes)
  --review-every checkpoint|never|N (default checkpoint)
  --planning on|off|ask   (prove: ask, autoprove: on)
  --commit never|ask|auto (prove: ask, autoprove: auto — ask is coerced in autoprove)
  --review-source internal|external|both   (autoprove: external|both coerced to internal)
  --no-checkpoint         never commit a checkpoint
  --planner 'CMD …'       planner command (JSON in/out, split like --worker; 30 s time box, then
                          the built-in plan; default: the built-in planner)
  --stall-minutes N       no-progress stuck threshold (default 10)
  --worker-timeout D      kill a worker after D (default 10m)
  --sandbox auto|on|off   run the worker in a sandbox: the project read-only under a private
                          writable layer, private /tmp and $HOME, no network, own PID namespace
                          (docs/sandbox.md). auto (default): where this machine allows it, else
                          says why on stderr; on: refuse to start without it; off: custody only
  --sandbox-network deny|allow  network inside the sandbox (default deny)
  --header-extractor EXT='CMD …'  statement fence for files ending in EXT: CMD speaks
                          header-extract/v1 (docs/fence.md; repeatable; .lean has a built-in one)
${FENCE_HELP}
  --answers FILE          scripted human answers for prove, one per line
                          (approve|decline|continue|commit|skip|stop|formalize|review-stuck|
                           deep|salvage|negate|continue-with-evidence: TEXT): deep enters deep
                          mode (--deep=ask), salvage|negate pick the falsification policy when
                          stuck; an answer not offered is taken as stop; without it prove asks
                          on the terminal
  --prior-handoff FILE    a prior run's final handoff: the rerun guard applies at startup
  --evidence TEXT         evidence_delta entry for relaunching the prior blocker (repeatable)
  --persist               write the run to the run store   --run-store DIR
  --prior-run ID          (with --persist) reuse a prior run of the same store: preview, drift
                          report, reconciliation, custody, then start citing it (source-note);
                          autoprove stops on drift or an uncovered file (exit 4); prove asks the
                          human to approve the report's token (or pass --approve TOKEN)
  --approve TOKEN         approve the prior run's drift report (its approval token)
  --resume RUN_ID         continue a persisted run that was killed, in its own journal (implies
                          --persist; the same --target/--scope/--mode): a dead writer's lock is
                          recovered (never a live one's), the files must be as the journal last
                          knew them, committed targets are not repeated
  --evidence-justification TEXT   how --evidence resolves a prior operational stop
  --json                  print only the final handoff record (errors: one JSON line on stderr)
  --allow-empty           a run that finds no target ends solved (exit 0) instead of exit 5
deep mode (prove default / autoprove default):
  --deep never|ask|stuck|always     when deep mode runs on a stuck target (never / stuck; ask:
                                    prove asks the human, autoprove coerces it to stuck; always:
                                    after every pass that leaves the target open)
  --deep-sorry-budget N             open targets one deep invocation takes on (1 / 2)
  --deep-time-budget D              advisory time of one deep invocation (10m / 20m; s|m|h)
  --max-deep-per-cycle N            deep invocations per cycle (1 / 1)
  --max-consecutive-deep N          consecutive cycles with deep (2 / 2; alias
                                    --max-consecutive-deep-cycles)
  --deep-scope target|cross-file    files deep may touch (target / target)
  --deep-max-files N                scope fence: files one deep call may change (1 / 2)
  --deep-max-lines N                scope fence: lines one deep call may change (120 / 200)
  --deep-regression-gate strict|off (strict / strict; off is prove-only, coerced to strict)
  --deep-rollback on-regression|on-no-improvement|always|never
                                    (on-regression / on-regression; always is for tests; never
                                    is prove-only, coerced to on-regression)
repair mode:
  --repair-budget-per-signature N   repair attempts per error signature per cycle (2 / 2)
  --repair-budget-per-cycle N       repair attempts per cycle (6 / 8)
batches and falsification:
  --batch-size N                    targets worked per cycle, concurrent only with disjoint
                                    owned files (1 / 2)
  --max-delegates N                 workers running at once within a batch (2 / 2)
  --falsification salvage|negate|off   when stuck: witness search with counterexample + salvage
                                    (salvage / salvage); negate also allows proving the
                                    negation (prove only, coerced to salvage in autoprove); off
                                    skips the search

exit codes: 0 solved; 1 stopped on a budget or by the user; 3 stuck / stopped on a blocker /
relaunch refused by the rerun guard / a malformed --prior-run id (bad_run_id) / an unknown one
(bad_prior_run); 4 protocol or operational error (custody violation, malformed or hanging worker,
prior-run drift or custody not reconciled; --resume: a live lock owner (busy), a file changed
since the kill); 5 no targets found (the run did nothing: the final
handoff is stopped/queue-empty and says "no targets found"; --allow-empty makes it 0 solved);
2 usage (also a --target that names no file, directory or marked file:line of the project).`;

const OPTIONS = {
  ...FENCE_OPTIONS,
  project: { type: 'string' },
  target: { type: 'string' },
  scope: { type: 'string' },
  mode: { type: 'string' },
  worker: { type: 'string' },
  reviewer: { type: 'string' },
  diagnostics: { type: 'string' },
  marker: { type: 'string' },
  profile: { type: 'string' },
  'diagnostics-cmd': { type: 'string' },
  'max-cycles': { type: 'string' },
  'max-stuck-cycles': { type: 'string' },
  'max-stuck': { type: 'string' },
  'max-total-runtime': { type: 'string' },
  'max-runtime': { type: 'string' },
  'review-every': { type: 'string' },
  planning: { type: 'string' },
  commit: { type: 'string' },
  'review-source': { type: 'string' },
  planner: { type: 'string' },
  deep: { type: 'string' },
  'deep-sorry-budget': { type: 'string' },
  'deep-time-budget': { type: 'string' },
  'max-deep-per-cycle': { type: 'string' },
  'max-consecutive-deep': { type: 'string' },
  'max-consecutive-deep-cycles': { type: 'string' },
  'deep-scope': { type: 'string' },
  'deep-max-files': { type: 'string' },
  'deep-max-lines': { type: 'string' },
  'deep-rollback': { type: 'string' },
  'deep-regression-gate': { type: 'string' },
  'repair-budget-per-signature': { type: 'string' },
  'repair-budget-per-cycle': { type: 'string' },
  'batch-size': { type: 'string' },
  'max-delegates': { type: 'string' },
  falsification: { type: 'string' },
  'no-checkpoint': { type: 'boolean' },
  'stall-minutes': { type: 'string' },
  'worker-timeout': { type: 'string' },
  sandbox: { type: 'string' },
  'sandbox-network': { type: 'string' },
  'header-extractor': { type: 'string', multiple: true },
  answers: { type: 'string' },
  'prior-handoff': { type: 'string' },
  evidence: { type: 'string', multiple: true },
  persist: { type: 'boolean' },
  'run-store': { type: 'string' },
  'prior-run': { type: 'string' },
  resume: { type: 'string' },
  approve: { type: 'string' },
  'evidence-justification': { type: 'string' },
  json: { type: 'boolean' },
  'allow-empty': { type: 'boolean' },
} as const;

/**
 * The exit code for a final handoff.
 *
 * @example
 * ```ts
 * exitCodeFor({ status: 'stopped', stop_reason: 'max-cycles' }); // 1
 * ```
 */
export function exitCodeFor(h: Pick<Handoff, 'status' | 'stop_reason'>): number {
  if (h.status === 'solved') return RUN_EXIT.solved;
  if (h.status === 'stuck' || h.stop_reason === 'max-stuck') return RUN_EXIT.blocker;
  if (h.stop_reason === 'protocol-error' || h.stop_reason === 'operational-error') return RUN_EXIT.error;
  return RUN_EXIT.budget;
}

/** `--header-extractor EXT=CMD` entries as an extension → command-extractor table. */
function extractorTable(specs: readonly string[], cwd: string, timeoutMs: number): ExtractorTable {
  const out: Record<string, HeaderExtractor> = {};
  for (const spec of specs) {
    const m = /^(\.[^=\s/]+)=(.+)$/s.exec(spec);
    if (m === null) {
      throw new HandoffError(
        'usage',
        `--header-extractor wants EXT='CMD …' (e.g. .py='python3 sig.py'), got '${spec}'`,
      );
    }
    out[(m[1] as string).toLowerCase()] = commandHeaderExtractor(splitCommand(m[2] as string), {
      cwd,
      timeoutMs,
    });
  }
  return out;
}

function str(values: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const n of names) if (typeof values[n] === 'string') return values[n] as string;
  return undefined;
}

/**
 * The value of an option that has an alias; both given with different values is a usage error
 * (never a silent pick).
 */
function aliased(values: Record<string, unknown>, name: string, alias: string): string | undefined {
  const a = str(values, name);
  const b = str(values, alias);
  if (a !== undefined && b !== undefined && a !== b) {
    throw new HandoffError(
      'usage',
      `--${name} and its alias --${alias} disagree ('${a}' vs '${b}'): give one of them`,
    );
  }
  return a ?? b;
}

/** A command option split into argv, a bad one refused naming the option. */
function commandOf(name: string, text: string): string[] {
  try {
    return splitCommand(text);
  } catch (e) {
    if (e instanceof HandoffError) throw new HandoffError('usage', `--${name}: ${e.message}`);
    throw e;
  }
}

/** A reader of a required option: missing or empty is a usage error. */
function needOf(values: Record<string, unknown>): (name: string) => string {
  return (n) => {
    const v = str(values, n);
    if (v === undefined || v === '') throw new HandoffError('usage', `missing required option --${n}`);
    return v;
  };
}

/** The cycle flags and the planner command of a `handoff run` command line. */
export interface RunCycleLine {
  /** The cycle flags as given (text), for {@link resolveCycleOptions}. */
  readonly flags: CycleFlags;
  /** `--planner 'CMD …'` split into argv (no shell), or undefined for the built-in planner. */
  readonly plannerArgv: readonly string[] | undefined;
}

/**
 * Parses the cycle flags and `--planner` of a `handoff run` command line, without resolving
 * them (that is {@link resolveCycleOptions}: defaults per mode, validation, coercions). Aliases
 * are folded (`--max-stuck`, `--max-runtime`, `--max-consecutive-deep-cycles`).
 *
 * @example
 * ```ts
 * const { flags } = parseRunCycleLine(['--target', '.', '--scope', 'file', '--mode', 'prove',
 *   '--worker', 'node w.js', '--max-consecutive-deep-cycles', '3']);
 * flags.maxConsecutiveDeep; // '3'
 * ```
 * @throws HandoffError `usage` for an unknown option, a missing required option (target, scope,
 * mode), an alias that disagrees with its option, or a malformed `--planner` command.
 */
export function parseRunCycleLine(argv: readonly string[]): RunCycleLine {
  return cycleLineOf(parseVerbArgs(argv, OPTIONS, false).values);
}

function cycleLineOf(values: Record<string, unknown>): RunCycleLine {
  const planner = str(values, 'planner');
  return {
    flags: cycleFlagsOf(values, needOf(values)),
    plannerArgv: planner === undefined ? undefined : commandOf('planner', planner),
  };
}

/** The cycle flags of a command line, as text. */
function cycleFlagsOf(values: Record<string, unknown>, need: (name: string) => string): CycleFlags {
  return {
    target: need('target'),
    scope: need('scope'),
    mode: need('mode'),
    planning: str(values, 'planning'),
    reviewEvery: str(values, 'review-every'),
    reviewSource: str(values, 'review-source'),
    commit: str(values, 'commit'),
    checkpoint: values['no-checkpoint'] === true ? false : undefined,
    maxCycles: str(values, 'max-cycles'),
    maxStuck: str(values, 'max-stuck-cycles', 'max-stuck'),
    maxRuntime: str(values, 'max-total-runtime', 'max-runtime'),
    stallMinutes: str(values, 'stall-minutes'),
    deep: str(values, 'deep'),
    deepSorryBudget: str(values, 'deep-sorry-budget'),
    deepTimeBudget: str(values, 'deep-time-budget'),
    maxDeepPerCycle: str(values, 'max-deep-per-cycle'),
    maxConsecutiveDeep: aliased(values, 'max-consecutive-deep', 'max-consecutive-deep-cycles'),
    deepScope: str(values, 'deep-scope'),
    deepMaxFiles: str(values, 'deep-max-files'),
    deepMaxLines: str(values, 'deep-max-lines'),
    deepRegressionGate: str(values, 'deep-regression-gate'),
    deepRollback: str(values, 'deep-rollback'),
    repairPerSignature: str(values, 'repair-budget-per-signature'),
    repairPerCycle: str(values, 'repair-budget-per-cycle'),
    batchSize: str(values, 'batch-size'),
    maxDelegates: str(values, 'max-delegates'),
    falsification: str(values, 'falsification'),
  };
}

function fmtElapsed(ms: number): string {
  const s = Math.floor(ms / 1000);
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** A progress renderer; `line` prints one extra line (a worker's progress) above the status. */
export type ProgressPrinter = ((p: CycleProgress) => void) & { line(text: string): void };

/**
 * A progress renderer: one status line rewritten in place on a TTY, plain lines otherwise
 * (phase-only changes stay quiet in plain mode). Log and worker lines are escaped one line each
 * (`escapeLine`), so `write` may be a raw writer (`io.raw`) that lets the renderer's own
 * `\r\x1b[2K` through while no control character of a worker string does.
 *
 * @example
 * ```ts
 * const show = progressPrinter(io); show(progress); show.line('progress A.lean:2: tools simp');
 * ```
 */
export function progressPrinter(io: CliIo, write: (t: string) => void = io.out): ProgressPrinter {
  let last = '';
  const show = (p: CycleProgress) => {
    const status = escapeLine(
      `[${p.phase}] cycle ${p.cycle}/${p.maxCycles} · open ${p.open ?? '?'} · stuck ${p.consecutiveStuck} · ${fmtElapsed(p.elapsedMs)}`,
    );
    if (io.isTTY) {
      write(`\r\x1b[2K`);
      for (const l of p.newLog) write(`  ${escapeLine(l)}\n`);
      write(status);
    } else {
      for (const l of p.newLog) write(`${escapeLine(l)}\n`);
    }
    last = status;
  };
  const line = (text: string) => {
    if (io.isTTY) write(`\r\x1b[2K  ${escapeLine(text)}\n${last}`);
    else write(`${escapeLine(text)}\n`);
  };
  return Object.assign(show, { line });
}

/** Parsed `handoff run` invocation (without I/O). */
export interface RunInvocation {
  readonly project: string;
  readonly json: boolean;
  readonly args: Parameters<typeof runProject>[0];
  readonly persist: {
    readonly enabled: boolean;
    readonly runStore: string | null;
    readonly priorRun: string | null;
    /** `--resume RUN_ID`: the killed run to continue, or null. */
    readonly resume: string | null;
    readonly approve: string | null;
    readonly evidenceJustification: string | null;
  };
  /** Where human-readable notes go (stderr on a TTY or with --json, else stdout). */
  readonly note: (text: string) => void;
}

/**
 * Runs `handoff run` with a recorder factory (persistence) and resolves to the exit code.
 *
 * @example
 * ```ts
 * const code = await runCommand(['--target', '.', '--scope', 'project', '--mode', 'autoprove', '--worker', 'node w.js'], io);
 * ```
 */
export async function runCommand(
  argv: readonly string[],
  io: CliIo,
  makeRecorder?: (inv: RunInvocation) => Promise<RunRecorder | undefined>,
): Promise<number> {
  const { values, positionals } = parseVerbArgs(argv, OPTIONS, false);
  if (positionals.length > 0) throw new HandoffError('usage', `unexpected argument '${positionals[0]}'`);
  const need = needOf(values);
  const project = resolve(io.cwd, str(values, 'project') ?? '.');
  const { flags, plannerArgv } = cycleLineOf(values);
  // startup validation: a bad flag is a usage error before anything is read or run
  const resolved = resolveCycleOptions(flags);
  if (!resolved.ok) throw new HandoffError('usage', resolved.error);
  const sandboxFlags = resolveSandboxFlags({
    sandbox: str(values, 'sandbox'),
    sandboxNetwork: str(values, 'sandbox-network'),
  });
  if (!sandboxFlags.ok) throw new HandoffError('usage', sandboxFlags.error);
  const workerArgv = splitCommand(need('worker'));
  const timeoutText = str(values, 'worker-timeout') ?? '10m';
  const timeoutS = parseDuration(timeoutText);
  if (timeoutS === null || timeoutS === 0)
    throw new HandoffError('usage', `--worker-timeout must be a positive duration, got '${timeoutText}'`);
  const resume = str(values, 'resume') ?? null;
  const persist = values.persist === true || resume !== null;
  const runStore = str(values, 'run-store') ?? null;
  const priorRun = str(values, 'prior-run') ?? null;
  if (resume !== null && (priorRun !== null || str(values, 'prior-handoff') !== undefined))
    throw new HandoffError(
      'usage',
      `--resume and --${priorRun !== null ? 'prior-run' : 'prior-handoff'} are exclusive`,
    );
  if (resume !== null && !isRunId(resume)) {
    throw new HandoffError(
      'bad_run_id',
      `--resume names a run id (YYYYMMDDTHHMMSSZ-<8 hex>), never "latest": ${JSON.stringify(resume)}`,
      { details: { run_id: resume } },
    );
  }
  if (!persist && runStore !== null) throw new HandoffError('usage', '--run-store requires --persist');
  if (!persist && priorRun !== null) throw new HandoffError('usage', '--prior-run requires --persist');
  if (priorRun !== null && !isRunId(priorRun)) {
    throw new HandoffError(
      'bad_run_id',
      `--prior-run names a run id (YYYYMMDDTHHMMSSZ-<8 hex>), never "latest": ${JSON.stringify(priorRun)}`,
      { details: { run_id: priorRun } },
    );
  }
  const approve = str(values, 'approve') ?? null;
  const justification = str(values, 'evidence-justification') ?? null;
  if (priorRun === null && (approve !== null || justification !== null)) {
    throw new HandoffError(
      'usage',
      `--${approve !== null ? 'approve' : 'evidence-justification'} requires --prior-run`,
    );
  }
  if (priorRun !== null && str(values, 'prior-handoff') !== undefined) {
    throw new HandoffError('usage', '--prior-run and --prior-handoff are exclusive');
  }

  let priorHandoff: Handoff | null = null;
  const priorFile = str(values, 'prior-handoff');
  if (priorFile !== undefined) {
    let raw: unknown;
    try {
      raw = JSON.parse(await readFile(resolve(io.cwd, priorFile), 'utf8'));
    } catch (e) {
      throw new HandoffError('usage', `--prior-handoff ${priorFile}: ${(e as Error).message}`);
    }
    const v = validateHandoff(raw);
    if (!v.ok)
      throw new HandoffError(
        'usage',
        `--prior-handoff is not a valid handoff: ${v.issues[0]?.message ?? ''}`,
      );
    priorHandoff = v.value;
  }
  const reviewer = str(values, 'reviewer');
  const diagnostics = str(values, 'diagnostics');
  const marker = str(values, 'marker');
  const diagnosticsCmd = str(values, 'diagnostics-cmd');
  const fence = fenceFlags(values, str(values, 'profile') ?? 'lean');
  const profile = profileByName(str(values, 'profile') ?? 'lean', {
    ...(fence.nativeDecide === undefined ? {} : { nativeDecide: fence.nativeDecide }),
    ...(marker === undefined ? {} : { markers: [marker] }),
    ...(diagnosticsCmd === undefined ? {} : { diagnosticsCommand: splitCommand(diagnosticsCmd) }),
  });
  // a --target that names nothing is a usage error before any worker runs (a typo never ends solved)
  if ((await stat(project).catch(() => null))?.isDirectory() === true) {
    await checkRunTarget({
      projectRoot: project,
      target: flags.target,
      markers: profile.markers,
      errorComment: profile.errorComment,
      checkMarkers: diagnostics === undefined,
      scope: flags.scope,
      profile: { name: profile.name, sourceExtensions: profile.sourceExtensions },
    });
  }
  const mode = flags.mode;
  let human = scriptedHuman([]);
  const answersFile = str(values, 'answers');
  let closeRl: (() => void) | null = null;
  if (answersFile !== undefined) {
    const text = await readFile(resolve(io.cwd, answersFile), 'utf8').catch(() => {
      throw new HandoffError('usage', `cannot read --answers ${answersFile}`);
    });
    human = scriptedHuman(text.split('\n').filter((l) => l.trim() !== ''));
  } else if (mode === 'prove') {
    const rl = createInterface({ input: process.stdin, terminal: false });
    const lines: string[] = [];
    const waiters: ((l: string | null) => void)[] = [];
    let ended = false;
    rl.on('line', (l) => {
      const w = waiters.shift();
      if (w) w(l);
      else lines.push(l);
    });
    rl.on('close', () => {
      ended = true;
      for (const w of waiters.splice(0)) w(null);
    });
    closeRl = () => rl.close();
    const asker = lineHuman(
      () =>
        lines.length > 0
          ? Promise.resolve(lines.shift() ?? null)
          : ended
            ? Promise.resolve(null)
            : new Promise((r) => waiters.push(r)),
      (t) => io.err(t),
    );
    // a summary carries worker strings (a stuck handoff's blocker): one line, controls escaped
    human = { ask: (input) => asker.ask({ ...input, summary: escapeLine(input.summary) }) };
  }
  const json = values.json === true;
  const allowEmpty = values['allow-empty'] === true;
  // on a TTY the status line needs its own control sequence: the raw writer, text escaped inside
  const show = json ? undefined : progressPrinter(io, io.isTTY ? (io.raw?.err ?? io.err) : io.out);
  const note = (t: string) => (json || io.isTTY ? io.err : io.out)(`${escapeLine(t)}\n`);
  const evidence = (values.evidence as string[] | undefined) ?? [];
  const headerExtractors = extractorTable(
    (values['header-extractor'] as string[] | undefined) ?? [],
    project,
    Math.min(timeoutS * 1000, 60_000),
  );
  const inv: RunInvocation = {
    project,
    json,
    note,
    persist: { enabled: persist, runStore, priorRun, resume, approve, evidenceJustification: justification },
    args: {
      projectRoot: project,
      flags,
      worker: { argv: workerArgv },
      ...(fence.fenceGrants.length === 0 ? {} : { fenceGrants: fence.fenceGrants }),
      ...(plannerArgv === undefined ? {} : { plannerArgv }),
      ...(reviewer === undefined ? {} : { reviewerArgv: splitCommand(reviewer) }),
      ...(diagnostics === undefined ? {} : { diagnosticsArgv: splitCommand(diagnostics) }),
      profile,
      human,
      workerTimeoutMs: timeoutS * 1000,
      headerExtractors,
      priorHandoff,
      evidence,
      allowEmpty,
      env: io.env,
      sandbox: sandboxFlags.sandbox,
      sandboxNetwork: sandboxFlags.network,
      onSandboxNote: (line: string) => io.err(`${escapeLine(line)}\n`),
      ...(show === undefined
        ? {}
        : {
            onProgress: show,
            onWorkerProgress: (p: Readonly<Record<string, unknown>>, d: { target: string }) =>
              show.line(describeProgress(p, d.target)),
          }),
    },
  };
  // the coercions are startup warnings: printed before any work (and not again in the summary)
  for (const warning of resolved.warnings) note(`warning: ${warning}`);
  let result: ProjectRunResult;
  let recorder: RunRecorder | undefined;
  try {
    recorder = makeRecorder ? await makeRecorder(inv) : undefined;
    if (recorder?.runId === null && !json) {
      note(
        priorRun === null
          ? 'persisting to the run store (run id assigned at the first dispatch)'
          : `persisting to the run store, reusing prior run ${priorRun}`,
      );
    }
    if (recorder?.resumed && !json) {
      const rec = recorder.resumed.recoveredCite;
      note(
        `resuming run ${recorder.resumed.runId} from its journal${rec === null ? '' : ` (a dead writer's lock recovered: ${rec})`}`,
      );
    }
    if (persist && recorder === undefined) {
      throw new HandoffError('usage', '--persist is not available in this build (no run recorder)');
    }
    result = await runProject({ ...inv.args, ...(recorder === undefined ? {} : { recorder }) });
  } catch (e) {
    const handoff = e instanceof HandoffError ? validateHandoff(e.details.handoff) : null;
    // a directory with no source file of the profile: say which files the profile reads
    if (
      e instanceof HandoffError &&
      e.code === 'usage' &&
      / names no files in /.test(e.message) &&
      diagnostics === undefined
    ) {
      throw new HandoffError(
        'usage',
        `${e.message} (the ${profile.name} profile reads only ${profile.sourceExtensions.join(' ')} files${profile.name === 'lean' ? '; a TypeScript, JavaScript or Python project wants --profile code' : ''})`,
        { details: e.details },
      );
    }
    if (e instanceof HandoffError && handoff?.ok) {
      // a refusal that ends the run with a record (prior-run reuse needing reconciliation)
      const { handoff: _h, ...details } = e.details;
      io.err(
        json
          ? `${toTerminalJson({ error: e.code, message: e.message, details }, 0)}\n`
          : `${humanErrorLine('run', e)}\n`,
      );
      printJson(io, handoff.value);
      return errorExitCode(e.code, 'run');
    }
    throw e;
  } finally {
    closeRl?.();
    await recorder?.dispose?.();
  }
  // a run that found no target did nothing: runProject says so (`empty`, and unless --allow-empty
  // a stopped/queue-empty record), the CLI says it in words and exits 5 unless asked
  const empty = result.empty;
  const why = result.emptyWhy ?? '';
  const h = result.handoff;
  if (empty && allowEmpty) note(`${NO_TARGETS_FOUND}: ${why} (--allow-empty: the run counts as solved)`);
  if (json) {
    // stdout is the record alone; the stop summary's path goes to stderr
    if (result.summaryPath !== null) note(`stop summary: ${result.summaryPath}`);
    printJson(io, h);
  } else {
    // one summary line per item: every value a worker could have shaped is escapeLine'd
    const w = (line: string) => (io.isTTY ? io.err : io.out)(`${line}\n`);
    if (io.isTTY) io.err('\n');
    for (const warning of result.warnings)
      if (!resolved.warnings.includes(warning)) w(`warning: ${escapeLine(warning)}`);
    // only a stored run's id is printed: `handoff inspect` rejects any other (no_such_run)
    const stored = recorder !== undefined && recorder.runId !== null;
    w(
      `run ${stored ? result.runId : 'unpersisted'}: ${h.status}${h.stop_reason ? ` (${h.stop_reason})` : ''}${h.stop_detail ? ` — ${escapeLine(h.stop_detail)}` : ''}`,
    );
    if (empty && !allowEmpty) w(`${NO_TARGETS_FOUND}: ${escapeLine(why)}`);
    if (h.blocker_signature)
      w(`blocker: ${h.blocker_kind}/${h.blocker_class ?? '-'} ${escapeLine(h.blocker_signature)}`);
    for (const c of result.context.checkpoints)
      w(`committed ${c.commit?.slice(0, 8) ?? ''} ${escapeLine(c.message)}`);
    if (result.priorRun !== null) w(`reused prior run ${escapeLine(result.priorRun)}`);
    if (result.finalCite) w(`final handoff stored as ${escapeLine(result.finalCite)}`);
    if (result.summaryPath !== null) w(`stop summary: ${escapeLine(result.summaryPath)}`);
    if (!stored) w(NOT_PERSISTED);
    printJson(io, h);
  }
  return empty && !allowEmpty ? RUN_EXIT.empty : exitCodeFor(h);
}

/** The summary line of a run that left nothing in the run store (no `--persist`, or nothing recorded). */
export const NOT_PERSISTED =
  'not persisted: rerun with --persist to inspect it later (handoff inspect RUN_ID)';

/**
 * The recorder factory of the CLI: with `--persist`, a persistence recorder on the fs store
 * (`--run-store` → `$HANDOFF_RUN_STORE` → `<project>/.handoff`); with `--prior-run`, the reuse
 * protocol runs at startup against that same store (see src/runtime/prior-run.ts).
 *
 * @example
 * ```ts
 * await runCommand(argv, io, persistRecorderFactory);
 * ```
 */
export async function persistRecorderFactory(inv: RunInvocation): Promise<RunRecorder | undefined> {
  if (!inv.persist.enabled) return undefined;
  const rec = await createPersistRecorder({
    projectRoot: inv.project,
    runStore: inv.persist.runStore,
    env: inv.args.env ?? {},
    ...(inv.args.profile === undefined ? {} : { blockerClasses: inv.args.profile.blockerClasses }),
    ...(inv.persist.resume === null ? {} : { resume: inv.persist.resume }),
  });
  if (inv.persist.priorRun !== null) {
    const { store } = openRunStore(inv.project, inv.persist.runStore, inv.args.env ?? {});
    (inv.args as { priorRun?: PriorRunReuse }).priorRun = {
      store,
      priorRun: inv.persist.priorRun,
      approve: inv.persist.approve ?? undefined,
      evidenceJustification: inv.persist.evidenceJustification ?? undefined,
      onReport: (lines) => {
        for (const l of lines) inv.note(l);
      },
    };
  }
  return rec;
}

/** The `run` verb group. */
export const command: CliCommand = {
  verbs: [],
  help: HELP,
  // a thrown refusal (rerun_forbidden: 3, …) exits through main's table (exit-codes.ts)
  run: (argv, io) => runCommand(argv, io, persistRecorderFactory),
};
