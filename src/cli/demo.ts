/**
 * `handoff demo`: the verb. The default (what `npm start` runs) is the short story of
 * src/cli/demo-story.ts; `handoff demo lean` is the long Lean demonstration: part 1 exercises the run-contract/v1 records (validate the seed's canonical dispatch, evaluate
 * the rerun guard on a relaunch, emit a protocol-error handoff for a broken dispatch). Part 2 runs
 * the six-phase cycle demo when this build includes it.
 */
import { execFile } from 'node:child_process';
import { cp, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { protocolErrorHandoff, rerunGuard, validateDispatch, validateHandoff } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { createSynthesisJournal, runSynthesis } from '../runtime/synthesis-run.js';
import { reportLines } from '../synthesis/loop/index.js';
import { parseVerbArgs } from './args.js';
import type { CliCommand } from './command.js';
import type { CliIo } from './io.js';

const examples = new URL('../../../examples/records/', import.meta.url);

async function readExample(name: string): Promise<unknown> {
  return JSON.parse(await readFile(new URL(name, examples), 'utf8')) as unknown;
}

/**
 * Part 1 of the demo: the records and the rerun guard. Resolves to 0 when every step behaved as
 * the contract says.
 *
 * @example
 * ```ts
 * await recordsDemo(processIo());
 * ```
 */
export async function recordsDemo(io: CliIo): Promise<number> {
  const say = (line = '') => io.out(`${line}\n`);
  let failures = 0;
  const check = (ok: boolean, what: string) => {
    say(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) failures++;
  };

  say('── run-contract/v1 records ──────────────────────────────────────────');
  const dispatch = validateDispatch(await readExample('canonical-dispatch.json'));
  check(dispatch.ok, "the seed's canonical dispatch (examples/records/canonical-dispatch.json) validates");
  const stuck = validateHandoff(await readExample('stuck-handoff.json'));
  check(stuck.ok, 'a stuck handoff with blocker fields (examples/records/stuck-handoff.json) validates');
  if (!dispatch.ok || !stuck.ok) return 1;
  say(`    blocker_signature: ${stuck.value.blocker_signature}`);

  say();
  say('── rerun guard ───────────────────────────────────────────────────────');
  const relaunch = { ...dispatch.value, prior_blocker: stuck.value.blocker_signature };
  const refused = rerunGuard(relaunch, stuck.value);
  check(
    refused.forbidden,
    `relaunch on the same blocker with no new evidence is refused (${refused.branch} branch)`,
  );
  say(`    required evidence: ${refused.required_evidence}`);
  const withEvidence = rerunGuard(
    { ...relaunch, evidence_delta: ['newly verified helper lemma Foo.comp_cont'] },
    stuck.value,
  );
  check(!withEvidence.forbidden, 'the same relaunch with a non-empty evidence_delta is allowed');
  const queueEmpty = {
    ...stuck.value,
    status: 'stopped' as const,
    stop_reason: 'queue-empty' as const,
    blocker_signature: null,
  };
  const fresh = rerunGuard({ ...relaunch, prior_blocker: null }, queueEmpty);
  check(!fresh.forbidden, 'a rerun after a non-blocker stop is never refused (null == null never forbids)');

  say();
  say('── malformed dispatch → protocol-error handoff ──────────────────────');
  const broken =
    '{"schema": "run-contract/v1", "record": "dispatch", "target": "Mathlib/Foo.lean:42", "scope": "sorry", "mode": "prove"';
  const h = protocolErrorHandoff(broken, 'malformed dispatch: unterminated JSON object');
  check(validateHandoff(h).ok, 'a truncated dispatch still yields a handoff that validates');
  say(`    status=${h.status} stop_reason=${h.stop_reason} target=${h.target} next_action=${h.next_action}`);
  say(`    stop_detail: ${h.stop_detail}`);
  return failures === 0 ? 0 : 1;
}

/**
 * `handoff demo formalize`: the synthesis outer loop end to end. Copies examples/formalize/project
 * into a temporary git repository and runs `handoff autoformalize` on examples/formalize/paper.md
 * with the example drafter and reviewer (examples/formalize/) and the example solver worker as
 * real child processes, journaling to the run store; prints the per-claim report, the `draft:`
 * commits and ✓ checks. Resolves to 0 when it behaved as designed (claim 1 skipped as already
 * present, claim 2 proved, claim 3 stuck then redrafted and proved, claim 4 declined).
 *
 * @example
 * ```ts
 * process.exitCode = await formalizeDemo(processIo());
 * ```
 */
export async function formalizeDemo(io: CliIo): Promise<number> {
  const say = (line = '') => io.out(`${line}\n`);
  let failures = 0;
  const check = (ok: boolean, what: string) => {
    say(`  ${ok ? '✓' : '✗'} ${what}`);
    if (!ok) failures++;
  };
  const ex = (f: string) => fileURLToPath(new URL(`../../../examples/formalize/${f}`, import.meta.url));
  const worker = fileURLToPath(new URL('../../examples/workers/solver-worker.js', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), 'handoff-formalize-demo-'));
  const git = (...args: string[]) => promisify(execFile)('git', args, { cwd: dir });
  try {
    await cp(ex('project'), dir, { recursive: true });
    await git('init', '-q');
    await git('add', '-A');
    await git(
      '-c',
      'user.name=demo',
      '-c',
      'user.email=demo@localhost',
      'commit',
      '-q',
      '-m',
      'example project',
    );
    say('── synthesis outer loop: handoff autoformalize (drafter, reviewer, worker as processes) ──');
    say(`  project: ${dir} (temporary git repository)`);
    say(`  source:  ${ex('paper.md')}`);
    say();
    const journal = createSynthesisJournal({ projectRoot: dir, env: {} });
    const r = await runSynthesis({
      projectRoot: dir,
      mode: 'auto',
      source: ex('paper.md'),
      target: 'Paper.lean',
      drafter: { argv: [process.execPath, ex('drafter.mjs')] },
      worker: { argv: [process.execPath, worker] },
      reviewerArgv: [process.execPath, ex('reviewer.mjs')],
      maxCycles: 4,
      maxStuck: 2,
      journal,
      onLog: (l) => say(`    ${l}`),
    });
    say();
    for (const w of r.warnings) say(`  warning: ${w}`);
    say('  report:');
    for (const l of reportLines(r.output)) say(`    ${l}`);
    const log = (await git('log', '--format=%h %s')).stdout.trim().split('\n');
    say('  git log:');
    for (const l of log) say(`    ${l}`);
    const status = r.output.reports.map((c) => c.status);
    check(status[0] === 'skipped', 'claim 1 is already in Paper.lean: skipped, not drafted again');
    check(status[1] === 'proved', 'claim 2 was drafted, committed as draft:, and proved by the inner cycle');
    check(
      status[2] === 'proved' && (r.output.reports[2]?.routes ?? []).includes('redraft'),
      'claim 3 got stuck, the review router sent it back for a redraft (session-generated, rewrite-generated-only), then it was proved',
    );
    check(status[3] === 'declined', 'claim 4 has no formal statement: the drafter declined it');
    check(
      log.filter((l) => / draft: /.test(l)).length === 3,
      'three draft: commits (claim 2, claim 3 and its redraft)',
    );
    check(r.journalRun !== null, `claims, drafts and routes journaled as run ${r.journalRun ?? '(none)'}`);
    say(`  raw journal: npx handoff store load --root ${journal.root} --run-id ${r.journalRun ?? ''}`);
    say(`  (the temporary project is kept for inspection: ${dir})`);
    return failures === 0 ? 0 : 1;
  } catch (e) {
    say(`  ✗ the formalize demo failed: ${(e as Error).message}`);
    await rm(dir, { recursive: true, force: true });
    return 1;
  }
}

/** The `demo` verb. */
export const command: CliCommand = {
  verbs: ['formalize', 'lean'],
  help: [
    'usage: handoff demo [--verbose]',
    '       handoff demo lean [--records-only]',
    '       handoff demo formalize',
    '',
    'Runs a demonstration in a temporary git project.',
    '(default) what the runtime does for an agent builder, in under 60 lines: sub-agents that cheat',
    '  (a write outside their files, a weakened test, "solved" without the change) are refused, an',
    '  honest one is accepted with a cite, the gate sends a result back once, a chain seam refuses',
    "  a wrong baton. --verbose: the records' details under each line.",
    'lean: the run-contract/v1 records and the rerun guard, then the six-phase proving cycle on the',
    '  Lean demo project with the example worker (--records-only: the records part alone).',
    'formalize: the synthesis outer loop (handoff autoformalize) on examples/formalize/paper.md',
    '  with the example drafter, reviewer and worker.',
    'Exit: 0 when every step behaved as designed, 1 otherwise.',
  ].join('\n'),
  async run(argv, io) {
    const { values, positionals } = parseVerbArgs(
      argv,
      { 'records-only': { type: 'boolean' }, verbose: { type: 'boolean' } },
      true,
    );
    const which = positionals[0];
    if (positionals.length > 1) throw new HandoffError('usage', `unexpected argument ${positionals[1]}`);
    if (which === 'formalize') {
      if (values['records-only'] !== undefined || values.verbose !== undefined)
        throw new HandoffError('usage', 'handoff demo formalize takes no other arguments');
      return formalizeDemo(io);
    }
    if (which === undefined) {
      if (values['records-only'] !== undefined)
        throw new HandoffError('usage', '--records-only belongs to handoff demo lean');
      const { runStoryDemo } = await import('./demo-story.js');
      return runStoryDemo(io, { verbose: values.verbose === true });
    }
    if (which !== 'lean') throw new HandoffError('usage', `unknown demo '${which}' (lean or formalize)`);
    if (values.verbose !== undefined) throw new HandoffError('usage', '--verbose belongs to handoff demo');
    return leanDemo(io, values['records-only'] === true);
  },
};

/** `handoff demo lean`: the records, then (when built in) the six-phase cycle demo. */
async function leanDemo(io: CliIo, recordsOnly: boolean): Promise<number> {
  const first = await recordsDemo(io);
  if (recordsOnly) return first;
  let cycle: { runCycleDemo?: (io: CliIo) => Promise<number> } | undefined;
  try {
    cycle = (await import(new URL('./demo-cycle.js', import.meta.url).href)) as typeof cycle;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ERR_MODULE_NOT_FOUND') throw e;
  }
  if (cycle?.runCycleDemo === undefined) {
    if (first !== 0) throw new HandoffError('internal', 'records demo failed');
    return first;
  }
  io.out('\n');
  const second = await cycle.runCycleDemo(io);
  return first === 0 ? second : first;
}
