/**
 * `handoff demo` (what `npm start` runs): a short story of what the runtime does for an agent
 * builder, every line the result of a real check. In a temporary git project it delegates one
 * task ("make discount() take 10% off") to sub-agents through `delegate`: one that also edits a
 * file it was not given (a real worker process through `commandWorker`, sandboxed where the
 * machine allows it), one that weakens the test, one that claims `solved` without the change — all
 * refused — and an honest one, accepted and journaled with a cite. Then the gate sends a result
 * back once (the example gate worker and evaluator), and a chain seam refuses a wrong baton (the
 * payroll example). `--verbose` adds the records' details.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { advanceBaseline } from '../baseline/index.js';
import { type Dispatch, handoffFor } from '../contract/index.js';
import { commandWorker, createDispatch, type DelegateResult, delegate } from '../delegate/index.js';
import { type DeclarationHeader, functionHeaderExtractor, type HeaderExtractor } from '../fence/index.js';
import {
  createFsLedger,
  currentCandidate,
  DEFAULT_THRESHOLDS,
  ownerAuthority,
  runGate,
  subprocessEvaluator,
  TaskContractSchema,
} from '../gate/index.js';
import { createFsStore } from '../store/fs-store.js';
import type { CliIo } from './io.js';
import { escapeLine } from './terminal-text.js';

const exec = promisify(execFile);

/** The task's files in the demo project. */
export const STORY_FILES = {
  'src/discount.ts':
    'export function discount(price: number): number {\n  return price; // TODO(agent): take 10% off\n}\n',
  'src/discount.test.ts':
    "import { discount } from './discount';\n\ntest('takes 10% off', () => {\n  expect(discount(100)).toBe(90);\n});\n",
  'README.md': 'The shop.\n',
} as const;

/** The line an honest sub-agent writes. */
const FIXED = 'return Math.round(price * 90) / 100;';
const TODO_LINE = 'return price; // TODO(agent): take 10% off';

/**
 * The statement fence of the demo's TypeScript files (pure): an exported function's signature and
 * each `expect(…)` line of a test are headers a sub-agent may not change.
 *
 * @example
 * ```ts
 * storyHeaders('export function f(x: number): number {\n');
 * // [{ name: 'f', kind: 'function', signature: '(x: number): number', line: 1 }]
 * ```
 */
export function storyHeaders(text: string): DeclarationHeader[] {
  const out: DeclarationHeader[] = [];
  let assertion = 0;
  for (const [i, line] of text.split('\n').entries()) {
    const fn = /^export function (\w+)(\([^)]*\)[^{]*)/.exec(line);
    if (fn !== null)
      out.push({ name: fn[1] ?? '', kind: 'function', signature: (fn[2] ?? '').trim(), line: i + 1 });
    const ex = /^\s*(expect\(.*)$/.exec(line);
    if (ex !== null) {
      assertion++;
      out.push({ name: `assertion@${assertion}`, kind: 'assertion', signature: ex[1] ?? '', line: i + 1 });
    }
  }
  return out;
}

const TS_FENCE: HeaderExtractor = functionHeaderExtractor((_file, text) => storyHeaders(text));

/** The package's root (this file runs from src/cli under the tests, from dist/src/cli when built). */
function packageFile(rel: string): string {
  for (const up of ['../../', '../../../']) {
    const p = fileURLToPath(new URL(`${up}${rel}`, import.meta.url));
    if (existsSync(p)) return p;
  }
  return fileURLToPath(new URL(`../../${rel}`, import.meta.url));
}

/**
 * The worker process of the first cheat (JavaScript for `node -e`; argv: the handoff template,
 * the README's path): it makes the honest fix, also rewrites the README, and answers `solved`
 * with a baseline that matches its bytes — a custody-consistent answer whose only fault is the
 * write outside its files.
 */
const OVERREACH_WORKER = `
const fs = require('node:fs');
const { createHash } = require('node:crypto');
const d = JSON.parse(fs.readFileSync(0, 'utf8'));
const [template, readme] = process.argv.slice(1);
const h = JSON.parse(template);
const f = d.owned_files.find((p) => p.endsWith('discount.ts'));
fs.writeFileSync(f, fs.readFileSync(f, 'utf8').replace(${JSON.stringify(TODO_LINE)}, ${JSON.stringify(FIXED)}));
fs.writeFileSync(readme, 'The shop. (Improved by the sub-agent.)\\n');
const files = d.file_baseline.files.map((e) => {
  const b = fs.readFileSync(e.realpath);
  return { ...e, sha256: createHash('sha256').update(b).digest('hex'), size: b.length };
});
h.files_changed = [f];
h.file_baseline = { ...d.file_baseline, files };
process.stdout.write(JSON.stringify(h) + '\\n');
`;

/** Options of {@link runStoryDemo}. */
export interface StoryDemoOptions {
  /** Print the records' details under each line. */
  readonly verbose?: boolean;
  /** Keep the temporary project (default true: the printed `inspect` command reads its journal). */
  readonly keep?: boolean;
}

/**
 * Runs the story and prints it. Resolves to 0 when every step behaved as designed (each cheat
 * refused, the honest answer accepted with a cite, the gate's one send-back, the seam's refusal),
 * 1 otherwise — with a `demo failure:` line naming the step.
 *
 * @example
 * ```ts
 * process.exitCode = await runStoryDemo(processIo(), { verbose: false });
 * ```
 */
export async function runStoryDemo(io: CliIo, options: StoryDemoOptions = {}): Promise<number> {
  const verbose = options.verbose === true;
  const say = (line = '') => io.out(`${escapeLine(line)}\n`);
  const detail = (line: string) => {
    if (verbose) say(`      ${line}`);
  };
  let failures = 0;
  const fail = (what: string) => {
    failures++;
    say(`  demo failure: ${what}`);
  };
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-demo-')));
  const project = join(dir, 'shop');
  const side = join(dir, 'gate');
  const git = (cwd: string, ...args: string[]) =>
    exec('git', ['-c', 'user.name=demo', '-c', 'user.email=demo@localhost', ...args], { cwd });
  try {
    await mkdir(join(project, 'src'), { recursive: true });
    for (const [rel, text] of Object.entries(STORY_FILES)) await writeFile(join(project, rel), text);
    await git(project, 'init', '-q');
    await git(project, 'add', '-A');
    await git(project, 'commit', '-q', '-m', 'the shop');

    say('handoff demo: what the runtime does when your agent hands work to a sub-agent');
    say();
    say('The task: make discount() in src/discount.ts take 10% off. The sub-agent may change');
    say('src/discount.ts and its test; the function signature and the test assertions are fenced.');
    say(`(a temporary git project: ${project})`);
    say();

    const file = join(project, 'src/discount.ts');
    const test = join(project, 'src/discount.test.ts');
    const readme = join(project, 'README.md');
    const task = () =>
      createDispatch({
        target: 'src/discount.ts:2',
        scope: 'file',
        mode: 'autoprove',
        ownedFiles: ['src/discount.ts', 'src/discount.test.ts'],
        cwd: project,
      });
    const fence = (f: string) => (f.endsWith('.ts') ? TS_FENCE : null);
    const watch = { projectRoot: project, fence };
    const unchanged = async () =>
      (await readFile(file, 'utf8')) === STORY_FILES['src/discount.ts'] &&
      (await readFile(test, 'utf8')) === STORY_FILES['src/discount.test.ts'] &&
      (await readFile(readme, 'utf8')) === STORY_FILES['README.md'];
    const showRefusal = (r: DelegateResult) => {
      for (const v of r.violations) detail(`${v.check}: ${v.detail}`);
      detail(`handoff: status ${r.handoff.status}, stop_reason ${r.handoff.stop_reason ?? '-'}`);
    };

    say('1. Sub-agents that cheat are caught and refused');
    // the cheat: a real worker process that also rewrites the README
    let sandboxNote: string | null = null;
    const d1 = await task();
    const r1 = await delegate(
      d1,
      commandWorker([process.execPath, '-e', OVERREACH_WORKER, JSON.stringify(handoffFor(d1)), readme], {
        projectRoot: project,
        timeoutMs: 60_000,
        onSandboxNote: (l) => {
          sandboxNote = l;
        },
      }),
      watch,
    );
    const outside = r1.violations.find((v) => v.check === 'outside_owned');
    if (r1.outcome !== 'refused' || outside === undefined)
      fail(`the sub-agent that edited README.md was ${r1.outcome}, not refused for it`);
    else say('  REFUSED  a sub-agent that also edited README.md, a file it was not given');
    if (!(await unchanged())) fail('the project is not as it was after the refused sub-agent');
    else if (sandboxNote === null)
      say('           the write outside its files never reached your tree (it ran in a sandbox)');
    else {
      say('           README.md and its own files are back to their bytes before it ran');
      say(
        `           (no sandbox on this machine: ${String(sandboxNote).replace(/^sandbox unavailable: /, '')})`,
      );
    }
    showRefusal(r1);

    // the cheat: the test is made to agree with the unchanged code
    const r2 = await delegate(
      await task(),
      async (d) => {
        await writeFile(test, STORY_FILES['src/discount.test.ts'].replace('toBe(90)', 'toBe(100)'));
        const file_baseline = await advanceBaseline(d.file_baseline, d.owned_files);
        return handoffFor(d, { files_changed: [test], file_baseline });
      },
      watch,
    );
    if (r2.outcome !== 'refused' || !r2.violations.some((v) => v.check === 'statement_fence'))
      fail(`the sub-agent that weakened the test was ${r2.outcome}, not refused by the fence`);
    else say('  REFUSED  a sub-agent that weakened the test: toBe(90) became toBe(100)');
    if (!(await unchanged())) fail('the weakened test was not put back');
    else say('           the test is back as it was');
    showRefusal(r2);

    // the cheat: "solved", with a baseline describing the change it never wrote
    const r3 = await delegate(
      await task(),
      async (d: Dispatch) => {
        const claimed = Buffer.from(STORY_FILES['src/discount.ts'].replace(TODO_LINE, FIXED));
        const sha256 = createHash('sha256').update(claimed).digest('hex');
        const files = d.file_baseline.files.map((e) =>
          e.path === file ? { ...e, sha256, size: claimed.length } : e,
        );
        return handoffFor(d, { files_changed: [file], file_baseline: { ...d.file_baseline, files } });
      },
      watch,
    );
    if (r3.outcome !== 'refused' || !r3.violations.some((v) => v.check === 'baseline'))
      fail(`the sub-agent that claimed solved without the change was ${r3.outcome}, not refused`);
    else say('  REFUSED  a sub-agent that answered "solved" with the new bytes\' hash, but never wrote them');
    showRefusal(r3);
    say();

    say('2. An honest sub-agent is accepted, with a cite into the journal');
    const store = createFsStore({ projectRoot: project });
    const r4 = await delegate(
      await task(),
      async (d) => {
        await writeFile(file, STORY_FILES['src/discount.ts'].replace(TODO_LINE, FIXED));
        const file_baseline = await advanceBaseline(d.file_baseline, d.owned_files);
        return handoffFor(d, { files_changed: [file], file_baseline });
      },
      { ...watch, store },
    );
    const cite = r4.cite;
    if (r4.outcome !== 'accepted' || cite === undefined)
      fail(`the honest sub-agent was ${r4.outcome}${cite === undefined ? ', with no cite' : ''}`);
    else {
      say(`  ACCEPTED status ${r4.handoff.status}; journaled as ${cite}`);
      say(`           see it: npx handoff inspect ${cite} --project ${project}`);
    }
    detail(`files_changed: ${r4.handoff.files_changed.join(', ')}`);
    detail(`new line 2: ${(await readFile(file, 'utf8')).split('\n')[1]?.trim() ?? ''}`);
    say();

    say('3. The gate sends a result back once, then hands it to a person');
    await gateScene(side, say, detail, fail, git);
    say();

    say('4. A chain seam refuses a wrong baton');
    await chainScene(say, detail, fail);
    say();

    say(
      failures === 0
        ? 'Every line above is the result of a check the runtime ran.'
        : `${failures} step(s) did not behave as designed.`,
    );
    say('More: npx handoff demo --verbose · npx handoff demo lean (the proving cycle)');
    say('      npx handoff chain example payroll --wrong-value · docs/tutorial-embed.md');
    return failures === 0 ? 0 : 1;
  } catch (e) {
    say(`  demo failure: ${(e as Error).message}`);
    return 1;
  } finally {
    if (options.keep === false) await rm(dir, { recursive: true, force: true });
  }
}

type Say = (line?: string) => void;

/** The gate scene: the example gate problem (src/greet.js must export greet and farewell). */
async function gateScene(
  side: string,
  say: Say,
  detail: (l: string) => void,
  fail: (w: string) => void,
  git: (cwd: string, ...args: string[]) => Promise<unknown>,
): Promise<void> {
  const repo = join(side, 'repo');
  await mkdir(repo, { recursive: true });
  await writeFile(join(repo, 'README.md'), 'greetings\n');
  await writeFile(join(repo, '.gitignore'), '.handoff/\n');
  await git(repo, 'init', '-q');
  await git(repo, 'add', '-A');
  await git(repo, 'commit', '-q', '-m', 'base');
  const raw = JSON.parse(await readFile(packageFile('examples/gate/contract.json'), 'utf8')) as object;
  const contract = TaskContractSchema.parse({ ...raw, candidate: await currentCandidate(repo) });
  const now = () => new Date().toISOString();
  const r = await runGate({
    repo,
    contract,
    ledger: createFsLedger(join(side, 'ledger'), { now }),
    evaluator: subprocessEvaluator([process.execPath, packageFile('examples/gate/evaluator.mjs')]),
    worker: [process.execPath, packageFile('examples/gate/worker.mjs')],
    authority: ownerAuthority(contract.owner),
    thresholds: DEFAULT_THRESHOLDS,
    now,
    recordsDir: join(side, 'records'),
    register: true,
  });
  const sentBack = r.records.grants.length;
  const first = r.records.assessments[0];
  const missing = first?.claims.filter((c) => c.raw_label !== 'CONFIRMED').map((c) => c.criterion_id) ?? [];
  say(
    `  the first answer exported greet but not farewell; the evaluator found: ${missing.join(', ') || 'nothing missing'}`,
  );
  if (sentBack !== 1) fail(`the gate sent the result back ${sentBack} times, not once`);
  else say(`  SENT BACK once (${r.records.grants[0]?.slot ?? '?'}); the repair added farewell`);
  if (r.lead.route === 'REVIEW_READY')
    say('  READY FOR REVIEW: both criteria confirmed; the lead gets one packet, not a loop');
  else fail(`the gate ended at ${r.lead.route}, not REVIEW_READY`);
  detail(`machine path: ${r.path.join(' → ')}`);
  for (const why of [...r.lead.reasons, ...r.lead.limitations]) detail(`lead packet: ${why}`);
  for (const c of r.lead.criteria) detail(`criterion ${c.id}: ${c.status}`);
}

/** The chain scene: the payroll example settled from the wrong source, under the release contract. */
async function chainScene(say: Say, detail: (l: string) => void, fail: (w: string) => void): Promise<void> {
  const program = (await import(
    new URL('../../examples/payroll/index.js', import.meta.url).href
  )) as typeof import('../../examples/payroll/index.js');
  const r = await program.runPayroll({ contract: 'release', wrongValue: true });
  const e = r.seam_error;
  if (r.outcome !== 'stopped' || e === null) {
    fail(`the payroll chain with a wrong net_total was ${r.outcome}`);
    return;
  }
  say(`  a payroll stage handed on net_total from the obligations, not from the ledger of what is owed`);
  say(
    `  STOPPED  the seam after stage '${e.stage}' refused its baton: ${e.detail.split(' (')[0] ?? e.detail}`,
  );
  say(`           paid: ${r.paid_lines === 0 ? 'nothing' : `${r.paid_lines} lines`}`);
  detail(
    `seam error ${e.code}; checkpoint ${e.checkpoint.snapshot_id} (trace ${e.checkpoint.trace.join(' → ')})`,
  );
}
