/**
 * `handoff formalize` (guided: a human approves each draft) and `handoff autoformalize`
 * (autonomous) — the synthesis outer loop (machines/synthesis.ts) on a project: claims from
 * `--source` drafted into `--target`, validated, committed as `draft:` commits, proved by the
 * inner cycle, routed on stuck; or (`--formalize restage`, no source) the inner cycle on the
 * existing scope with the router on stuck. Every startup warning is printed, then one report
 * line per claim. Exit codes follow `handoff run`: 0 every claim proved, skipped as present or
 * declined by the drafter; 1 the session stopped early or left a claim formalized without a
 * proof; 3 a claim is stuck; 4 the session halted (explicit preserve refusing a redraft, a
 * failed `draft:` commit); 2 usage (also a claim source that yields no claims).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { HandoffError } from '../errors/index.js';
import { splitCommand } from '../runtime/command-line.js';
import {
  createSynthesisJournal,
  runSynthesis,
  type SynthesisRunOptions,
  type SynthesisRunResult,
} from '../runtime/synthesis-run.js';
import { reportLines, synthesisExitCode } from '../synthesis/loop/index.js';
import type { ApproveInput } from '../synthesis/loop/types.js';
import { parseDuration } from '../tracker/duration.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import { type CliIo, printJson } from './io.js';
import { SANDBOX_OPTIONS, sandboxFlags } from './sandbox-flags.js';
import { escapeLine } from './terminal-text.js';

const OPTIONS_TEXT = `  --source FILE           the claim source (.md .txt .tex .lean .pdf; docs/synthesis-claims.md)
  --claim-select SEL      which claims, by 1-based number (e.g. 1,3-4; default all)
  --target FILE           the Lean file drafts are assembled into (inside --project)
  --project DIR           project root, a git repository unless --commit never (default: .)
  --drafter 'CMD …'       the drafter command (docs/drafter-protocol.md; argv, no shell)
  --worker 'CMD …'        the inner cycle's worker command (docs/worker-protocol.md)
  --reviewer 'CMD …'      the inner cycle's reviewer command (its stuck review's next_action
                          routes the claim: continue|deep|repair|redraft|golf|stop)
  --formalize auto|restage  auto (default with --source) or restage: the inner cycle on the
                          existing --target with the router on stuck (no --source)
  --statement-policy preserve|rewrite-generated-only|adjacent-drafts
                          (default rewrite-generated-only, with a warning: formalize is active;
                          an explicit preserve halts the session when a redraft is asked for)
  --commit never|ask|auto draft: commits (default auto; never leaves drafts in the working tree;
                          ask: formalize asks before each draft: commit, autoformalize coerces
                          it to auto with a warning, as autoprove does)
  --golf-search off|quick|full  the golf pass's proof-golfer search_mode (default off)
  --max-cycles N          per claim (default 20)   --max-stuck-cycles N per claim (default 3)
  --max-total-runtime D   per session (default 120m; s|m|h, bare = minutes)
  --worker-timeout D      kill a worker or drafter after D (default 10m)
  --persist               journal claims, drafts and routes in the run store   --run-store DIR
  --json                  print only the session report (JSON)
  --sandbox auto|on|off   the drafter and the worker run in the sandbox: the project read-only
                          under a private layer; a drafter's writes outside its temp path are
                          discarded and refused by name (default auto: where the machine allows
                          it, else one stderr line says why; on: refuse without it; off)
  --sandbox-network deny|allow  network inside the sandbox (default deny; a drafter or worker
                          that calls a model API needs allow)`;

const GUIDED_HELP = `usage: handoff formalize --source FILE --target FILE --drafter 'CMD …' --worker 'CMD …' [options]

The synthesis outer loop, guided: each draft is shown to a human, who answers approve, skip or
stop (from --answers FILE, one answer per line, else from standard input); under --commit ask
the checked draft's draft: commit is a second question (commit, keep it uncommitted, or stop).

${OPTIONS_TEXT}
  --answers FILE          scripted answers, one per line (approve|skip|stop for a draft;
                          commit|keep|stop for a draft: commit under --commit ask)

exit codes: 0 every claim proved, already present, or declined; 1 stopped early (runtime budget,
the human) or a claim left unproved; 3 a claim stuck; 4 halted (explicit preserve refused a
redraft, a draft: commit failed); 2 usage.`;

const AUTO_HELP = `usage: handoff autoformalize --source FILE --target FILE --drafter 'CMD …' --worker 'CMD …' [options]
       handoff autoformalize --formalize restage --target FILE --worker 'CMD …' [options]

The synthesis outer loop, autonomous: claims are extracted once from --source in document order,
then per claim: skip if its declaration is already in --target, draft, validate, draft: commit,
prove with the inner cycle, and on stuck route by the review's next_action (continue/deep/repair:
again within the claim's budgets; redraft: re-draft if provenance and the statement policy allow;
golf: a golf pass; stop: end the claim). A final report line per claim:
formalized | proved | stuck (reason) | skipped (already present) | declined | not-attempted.

${OPTIONS_TEXT}

exit codes: 0 every claim proved, already present, or declined; 1 stopped early (runtime budget)
or a claim left unproved; 3 a claim stuck; 4 halted (explicit preserve refused a redraft, a
draft: commit failed); 2 usage.`;

const OPTIONS = {
  source: { type: 'string' },
  'claim-select': { type: 'string' },
  target: { type: 'string' },
  project: { type: 'string' },
  drafter: { type: 'string' },
  worker: { type: 'string' },
  reviewer: { type: 'string' },
  formalize: { type: 'string' },
  'statement-policy': { type: 'string' },
  commit: { type: 'string' },
  'golf-search': { type: 'string' },
  'max-cycles': { type: 'string' },
  'max-stuck-cycles': { type: 'string' },
  'max-stuck': { type: 'string' },
  'max-total-runtime': { type: 'string' },
  'max-runtime': { type: 'string' },
  'worker-timeout': { type: 'string' },
  persist: { type: 'boolean' },
  'run-store': { type: 'string' },
  answers: { type: 'string' },
  json: { type: 'boolean' },
  ...SANDBOX_OPTIONS,
} as const;

function str(values: Record<string, unknown>, ...names: string[]): string | undefined {
  for (const n of names) if (typeof values[n] === 'string') return values[n] as string;
  return undefined;
}

/**
 * A human reading one answer per line from `next` (null: the input ended → `stop`), for both
 * questions of guided mode: the draft's approval and, under `--commit ask`, its `draft:` commit.
 */
function lineAnswers(next: () => Promise<string | null>, write: (t: string) => void) {
  return async (q: ApproveInput): Promise<string> => {
    const what =
      q.question === 'commit'
        ? `commit the checked draft of claim ${escapeLine(q.claim.id)} as '${escapeLine(q.message ?? '')}' (keep: leave it uncommitted in the working tree)`
        : `approve the draft of claim ${escapeLine(q.claim.id)} (${escapeLine(q.declarations.join(', '))})`;
    write(
      `\n? ${what}:\n${q.text
        .split('\n')
        .map((l) => `    ${escapeLine(l)}`)
        .join('\n')}\n  options: ${q.options.join(' | ')}\n> `,
    );
    const line = (await next())?.trim() ?? 'stop';
    return (q.options as readonly string[]).includes(line) ? line : 'stop';
  };
}

/**
 * Runs `handoff formalize` (`guided`) or `handoff autoformalize` and resolves to the exit code.
 *
 * @example
 * ```ts
 * const code = await formalizeCommand('auto', ['--source', 'paper.md', '--target', 'Paper.lean',
 *   '--drafter', 'node drafter.mjs', '--worker', 'node worker.js'], io);
 * ```
 * @throws HandoffError `usage` for bad or missing options (exit 2 through main's table).
 */
export async function formalizeCommand(
  mode: 'guided' | 'auto',
  argv: readonly string[],
  io: CliIo,
): Promise<number> {
  const { values, positionals } = parseVerbArgs(argv, OPTIONS, false);
  if (positionals.length > 0) throw new HandoffError('usage', `unexpected argument '${positionals[0]}'`);
  const need = (n: string) => {
    const v = str(values, n);
    if (v === undefined || v === '') throw new HandoffError('usage', `missing required option --${n}`);
    return v;
  };
  if (mode === 'auto' && str(values, 'answers') !== undefined)
    throw new HandoffError('usage', '--answers belongs to handoff formalize (autoformalize never asks)');
  const persist = values.persist === true;
  const runStore = str(values, 'run-store') ?? null;
  if (!persist && runStore !== null) throw new HandoffError('usage', '--run-store requires --persist');
  const timeoutText = str(values, 'worker-timeout') ?? '10m';
  const timeoutS = parseDuration(timeoutText);
  if (timeoutS === null || timeoutS === 0)
    throw new HandoffError('usage', `--worker-timeout must be a positive duration, got '${timeoutText}'`);
  const project = resolve(io.cwd, str(values, 'project') ?? '.');
  const source = str(values, 'source');
  const drafter = str(values, 'drafter');
  const sandbox = sandboxFlags(values);
  const reviewer = str(values, 'reviewer');
  const formalize = str(values, 'formalize');
  if (formalize !== undefined && formalize !== 'auto' && formalize !== 'restage')
    throw new HandoffError('usage', `--formalize must be auto|restage, got '${formalize}'`);
  if ((formalize ?? (source === undefined ? 'restage' : 'auto')) === 'auto' && drafter === undefined)
    throw new HandoffError('usage', 'missing required option --drafter');
  let closeRl: (() => void) | null = null;
  let human: ((q: ApproveInput) => Promise<string>) | undefined;
  const note = (t: string) => (values.json === true || io.isTTY ? io.err : io.out)(`${escapeLine(t)}\n`);
  if (mode === 'guided') {
    const answersFile = str(values, 'answers');
    if (answersFile !== undefined) {
      const text = await readFile(resolve(io.cwd, answersFile), 'utf8').catch(() => {
        throw new HandoffError('usage', `cannot read --answers ${answersFile}`);
      });
      const lines = text.split('\n').filter((l) => l.trim() !== '');
      human = lineAnswers(async () => lines.shift() ?? null, io.err);
    } else {
      const rl = createInterface({ input: process.stdin, terminal: false });
      const queued: string[] = [];
      const waiters: ((l: string | null) => void)[] = [];
      let ended = false;
      rl.on('line', (l) => {
        const w = waiters.shift();
        if (w) w(l);
        else queued.push(l);
      });
      rl.on('close', () => {
        ended = true;
        for (const w of waiters.splice(0)) w(null);
      });
      closeRl = () => rl.close();
      human = lineAnswers(
        () =>
          queued.length > 0
            ? Promise.resolve(queued.shift() ?? null)
            : ended
              ? Promise.resolve(null)
              : new Promise((r) => waiters.push(r)),
        io.err,
      );
    }
  }
  const journal = persist
    ? createSynthesisJournal({ projectRoot: project, runStore, env: io.env })
    : undefined;
  const options: SynthesisRunOptions = {
    projectRoot: project,
    mode,
    ...(source === undefined ? {} : { source: resolve(io.cwd, source) }),
    ...(formalize === undefined ? {} : { formalize }),
    ...(str(values, 'claim-select') === undefined
      ? {}
      : { claimSelect: str(values, 'claim-select') as string }),
    target: need('target'),
    ...(drafter === undefined ? {} : { drafter: { argv: splitCommand(drafter) } }),
    worker: { argv: splitCommand(need('worker')) },
    ...(reviewer === undefined ? {} : { reviewerArgv: splitCommand(reviewer) }),
    ...(str(values, 'statement-policy') === undefined
      ? {}
      : { statementPolicy: str(values, 'statement-policy') as string }),
    ...(str(values, 'commit') === undefined ? {} : { commit: str(values, 'commit') as string }),
    ...(str(values, 'golf-search') === undefined ? {} : { golfSearch: str(values, 'golf-search') as string }),
    ...(str(values, 'max-cycles') === undefined ? {} : { maxCycles: str(values, 'max-cycles') as string }),
    ...(str(values, 'max-stuck-cycles', 'max-stuck') === undefined
      ? {}
      : { maxStuck: str(values, 'max-stuck-cycles', 'max-stuck') as string }),
    ...(str(values, 'max-total-runtime', 'max-runtime') === undefined
      ? {}
      : { maxRuntime: str(values, 'max-total-runtime', 'max-runtime') as string }),
    workerTimeoutMs: timeoutS * 1000,
    ...(human === undefined ? {} : { human }),
    ...(journal === undefined ? {} : { journal }),
    env: io.env,
    sandbox: sandbox.mode,
    sandboxNetwork: sandbox.network,
    onSandboxNote: (line) => io.err(`${escapeLine(line)}\n`),
  };
  let r: SynthesisRunResult;
  try {
    r = await runSynthesis(options);
  } finally {
    closeRl?.();
  }
  return printReport(io, r, values.json === true, note, journal?.root ?? null);
}

function printReport(
  io: CliIo,
  r: SynthesisRunResult,
  json: boolean,
  note: (t: string) => void,
  storeRoot: string | null,
): number {
  const o = r.output;
  for (const w of r.warnings) note(`warning: ${w}`);
  if (json) {
    printJson(io, {
      schema: 'synthesis-report/v1',
      target: r.targetFile,
      ending: o.ending,
      error: o.error,
      claims: o.reports,
      provenance: o.provenance,
      journal: r.journalRun,
    });
    return synthesisExitCode(o);
  }
  io.out(
    `synthesis ${o.ending}${o.error === null ? '' : `: ${escapeLine(o.error)}`} (target ${escapeLine(r.targetFile)})\n`,
  );
  for (const line of reportLines(o)) io.out(`  ${escapeLine(line)}\n`);
  if (r.journalRun !== null) {
    io.out(`journal: run ${r.journalRun} (${r.cites.length} events) in ${escapeLine(storeRoot ?? '')}\n`);
  }
  return synthesisExitCode(o);
}

/** The `formalize` verb group (guided). */
export const command: CliCommand = {
  verbs: [],
  help: GUIDED_HELP,
  run: (argv, io) => formalizeCommand('guided', argv, io),
};

/** The `autoformalize` verb group (autonomous; loaded through main's module table). */
export const autoformalizeCommand: CliCommand = {
  verbs: [],
  help: AUTO_HELP,
  run: (argv, io) => formalizeCommand('auto', argv, io),
};
