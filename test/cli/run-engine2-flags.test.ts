/**
 * `handoff run`'s flags of cycle engine II (issue 13): the deep, repair, batch and falsification
 * flags and `--planner` are parsed (aliases folded, a disagreeing alias refused), validated at
 * startup through the built CLI (exit 2 with a usage error naming the flag and its values, before
 * any project is touched), documented in `--help` with the mode defaults, and the autoprove
 * coercions are printed once, as startup warnings, on a real run with a real worker and git.
 * Uses the built CLI (`npm run build` first).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseRunCycleLine } from '../../src/cli/run.js';
import { isHandoffError } from '../../src/errors/index.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { EASY, handoffOf, runArgs, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import { runCli } from '../helpers/cli.js';

const REQUIRED = ['--target', '.', '--scope', 'file', '--mode', 'autoprove', '--worker', 'node w.js'];

function usageOf(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isHandoffError(e) && e.code === 'usage') return e.message;
    throw e;
  }
  throw new Error('expected a usage error');
}

describe('parseRunCycleLine: every flag reaches the cycle options', () => {
  it('the new flags, as text, resolve to the options they name', () => {
    const { flags, plannerArgv } = parseRunCycleLine([
      ...REQUIRED,
      '--deep',
      'always',
      '--deep-sorry-budget',
      '3',
      '--deep-time-budget',
      '45s',
      '--max-deep-per-cycle',
      '2',
      '--max-consecutive-deep',
      '5',
      '--deep-scope',
      'cross-file',
      '--deep-max-files',
      '4',
      '--deep-max-lines',
      '300',
      '--deep-regression-gate',
      'strict',
      '--deep-rollback',
      'on-no-improvement',
      '--repair-budget-per-signature',
      '1',
      '--repair-budget-per-cycle',
      '10',
      '--batch-size',
      '3',
      '--max-delegates',
      '6',
      '--falsification',
      'off',
    ]);
    expect(plannerArgv).toBeUndefined();
    const r = resolveCycleOptions(flags);
    if (!r.ok) throw new Error(r.error);
    expect(r.warnings).toEqual([]);
    expect(r.options).toMatchObject({
      mode: 'autoprove',
      deep: 'always',
      deepSorryBudget: 3,
      deepTimeBudget: '45s',
      maxDeepPerCycle: 2,
      maxConsecutiveDeep: 5,
      deepScope: 'cross-file',
      deepMaxFiles: 4,
      deepMaxLines: 300,
      deepRegressionGate: 'strict',
      deepRollback: 'on-no-improvement',
      repairPerSignature: 1,
      repairPerCycle: 10,
      batchSize: 3,
      maxDelegates: 6,
      falsification: 'off',
      outerLoop: false,
    });
  });

  it('without the flags, the mode defaults apply (prove and autoprove differ)', () => {
    const line = (mode: string) =>
      resolveCycleOptions(
        parseRunCycleLine(['--target', '.', '--scope', 'file', '--mode', mode, '--worker', 'w']).flags,
      );
    expect(line('prove')).toMatchObject({
      ok: true,
      options: { deep: 'never', deepSorryBudget: 1, deepMaxLines: 120, repairPerCycle: 6, batchSize: 1 },
    });
    expect(line('autoprove')).toMatchObject({
      ok: true,
      options: { deep: 'stuck', deepSorryBudget: 2, deepMaxLines: 200, repairPerCycle: 8, batchSize: 2 },
    });
  });

  it('--max-consecutive-deep-cycles is an alias; both given must agree', () => {
    const alias = parseRunCycleLine([...REQUIRED, '--max-consecutive-deep-cycles', '4']).flags;
    expect(resolveCycleOptions(alias)).toMatchObject({ ok: true, options: { maxConsecutiveDeep: 4 } });
    const both = parseRunCycleLine([
      ...REQUIRED,
      '--max-consecutive-deep',
      '3',
      '--max-consecutive-deep-cycles',
      '3',
    ]).flags;
    expect(resolveCycleOptions(both)).toMatchObject({ ok: true, options: { maxConsecutiveDeep: 3 } });
    expect(
      usageOf(() =>
        parseRunCycleLine([...REQUIRED, '--max-consecutive-deep', '3', '--max-consecutive-deep-cycles', '4']),
      ),
    ).toBe(
      "--max-consecutive-deep and its alias --max-consecutive-deep-cycles disagree ('3' vs '4'): give one of them",
    );
  });

  it('--planner is split into argv like --worker (quotes kept, no shell), a malformed one refused', () => {
    const { plannerArgv } = parseRunCycleLine([
      ...REQUIRED,
      '--planner',
      `python3 'my planner.py' --x "a b" $HOME;rm`,
    ]);
    expect(plannerArgv).toEqual(['python3', 'my planner.py', '--x', 'a b', '$HOME;rm']);
    expect(usageOf(() => parseRunCycleLine([...REQUIRED, '--planner', "python3 'open"]))).toBe(
      "--planner: unterminated ' in command: python3 'open",
    );
    expect(usageOf(() => parseRunCycleLine([...REQUIRED, '--planner', '   ']))).toBe(
      '--planner: empty command',
    );
  });

  it('an unknown spelling is refused, not ignored', () => {
    expect(usageOf(() => parseRunCycleLine([...REQUIRED, '--deep-max-file', '2']))).toMatch(
      /^unknown option --deep-max-file \(did you mean --deep-max-files\?\)$/,
    );
  });
});

describe('the built CLI', () => {
  let cwd: string;
  beforeAll(async () => {
    // not a git repository, no files: a startup error must come before the project is looked at
    cwd = await mkdtemp(join(tmpdir(), 'handoff-flags-'));
  });
  afterAll(async () => {
    await rm(cwd, { recursive: true, force: true });
  });

  it('run --help lists every new flag with its mode defaults, and the new answers', async () => {
    const r = await runCli(['run', '--help']);
    expect(r.code).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).not.toContain('extension point');
    for (const flag of [
      '--deep never|ask|stuck|always',
      '--deep-sorry-budget N',
      '--deep-time-budget D',
      '--max-deep-per-cycle N',
      '--max-consecutive-deep N',
      '--max-consecutive-deep-cycles',
      '--deep-scope target|cross-file',
      '--deep-max-files N',
      '--deep-max-lines N',
      '--deep-regression-gate strict|off',
      '--deep-rollback on-regression|on-no-improvement|always|never',
      '--repair-budget-per-signature N',
      '--repair-budget-per-cycle N',
      '--batch-size N',
      '--max-delegates N',
      '--falsification salvage|negate|off',
      "--planner 'CMD …'",
    ]) {
      expect(r.stdout, flag).toContain(flag);
    }
    const line = (flag: string) => r.stdout.split('\n').find((l) => l.trimStart().startsWith(flag)) ?? '';
    expect(line('--deep-sorry-budget')).toContain('(1 / 2)');
    expect(line('--deep-time-budget')).toContain('(10m / 20m');
    expect(line('--deep-max-files')).toContain('(1 / 2)');
    expect(line('--deep-max-lines')).toContain('(120 / 200)');
    expect(line('--repair-budget-per-cycle')).toContain('(6 / 8)');
    expect(line('--repair-budget-per-signature')).toContain('(2 / 2)');
    expect(line('--max-delegates')).toContain('(2 / 2)');
    expect(r.stdout).toMatch(/deep\|salvage\|negate\|continue-with-evidence/);
    expect(r.stdout).toMatch(/off is prove-only/);
    expect(r.stdout).toMatch(/never\s+is prove-only/);
    for (const l of r.stdout.split('\n')) expect(l.length, l).toBeLessThanOrEqual(100);
  });

  const bad: readonly (readonly [string[], string])[] = [
    [['--deep', 'sometimes'], "--deep must be one of never|ask|stuck|always, got 'sometimes'"],
    [['--deep-sorry-budget', '0'], "--deep-sorry-budget must be a positive integer, got '0'"],
    [
      ['--deep-time-budget', '1.5h'],
      "--deep-time-budget must be a positive duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got '1.5h'",
    ],
    [['--max-deep-per-cycle', 'x'], "--max-deep-per-cycle must be a positive integer, got 'x'"],
    [['--max-consecutive-deep-cycles', '0'], "--max-consecutive-deep must be a positive integer, got '0'"],
    [['--deep-scope', 'repo'], "--deep-scope must be one of target|cross-file, got 'repo'"],
    [['--deep-max-files=-1'], "--deep-max-files must be a positive integer, got '-1'"],
    [['--deep-max-lines', '1e3'], "--deep-max-lines must be a positive integer, got '1e3'"],
    [['--deep-regression-gate', 'lax'], "--deep-regression-gate must be one of strict|off, got 'lax'"],
    [
      ['--deep-rollback', 'sometimes'],
      "--deep-rollback must be one of on-regression|on-no-improvement|always|never, got 'sometimes'",
    ],
    [
      ['--repair-budget-per-signature', '0'],
      "--repair-budget-per-signature must be a positive integer, got '0'",
    ],
    [
      ['--repair-budget-per-cycle', 'many'],
      "--repair-budget-per-cycle must be a positive integer, got 'many'",
    ],
    [['--batch-size', '0'], "--batch-size must be a positive integer, got '0'"],
    [['--max-delegates', '2.5'], "--max-delegates must be a positive integer, got '2.5'"],
    [['--falsification', 'yes'], "--falsification must be one of salvage|negate|off, got 'yes'"],
    [['--planner', "node 'p.js"], "--planner: unterminated ' in command: node 'p.js"],
    [
      ['--max-consecutive-deep', '1', '--max-consecutive-deep-cycles', '2'],
      "--max-consecutive-deep and its alias --max-consecutive-deep-cycles disagree ('1' vs '2'): give one of them",
    ],
  ];
  it.each(bad)('parsed and resolved in process: %o → %s', (flags, message) => {
    const usage = (() => {
      try {
        const r = resolveCycleOptions(parseRunCycleLine([...REQUIRED, ...flags]).flags);
        return r.ok ? null : r.error;
      } catch (e) {
        if (isHandoffError(e) && e.code === 'usage') return e.message;
        throw e;
      }
    })();
    expect(usage).toBe(message);
  });

  // through the real binary: one of each kind (enum, integer, duration, command, alias)
  const throughCli = bad.filter(
    ([f]) =>
      ['--deep', '--deep-max-files=-1', '--deep-time-budget', '--planner', '--batch-size'].includes(
        f[0] as string,
      ) || f.length === 4,
  );
  it.each(throughCli)('the built CLI: %o → exit 2: %s', async (flags, message) => {
    const r = await runCli(['run', ...REQUIRED, ...flags], { cwd });
    expect(r.code, r.stderr).toBe(2);
    expect(r.stdout).toBe('');
    expect(r.stderr).toBe(`handoff run: ${message} (handoff run --help shows the usage)\n`);
    // nothing was created in the (non-git) project: the refusal came before any work
    expect(await readdir(cwd)).toEqual([]);
  });

  it('an unknown spelling of a flag exits 2', async () => {
    const r = await runCli(['run', ...REQUIRED, '--deep-max-file', '2'], { cwd });
    expect(r.code).toBe(2);
    expect(r.stderr).toBe('handoff run: unknown option --deep-max-file (did you mean --deep-max-files?)\n');
  });

  it('hostile: a flag value with terminal controls comes back escaped, never raw', async () => {
    const r = await runCli(['run', ...REQUIRED, '--deep-scope', 'target\u001b]0;pwned\u0007\n\u001b[2J'], {
      cwd,
    });
    expect(r.code).toBe(2);
    expect(r.stderr.replace(/\n$/, '')).not.toMatch(/[\u0000-\u001f\u007f]/);
    expect(r.stderr).toContain(
      "handoff run: --deep-scope must be one of target|cross-file, got 'target\\u001b]0;pwned\\u0007\\u000a\\u001b[2J'",
    );
  });
});

describe('a real autoprove run: coercions are startup warnings, printed once', () => {
  it('--falsification=negate and --deep-rollback=never are coerced with their warnings, before the summary', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(
        runArgs(
          p.dir,
          `node ${TS_WORKER}`,
          '--falsification',
          'negate',
          '--deep-rollback',
          'never',
          '--deep-regression-gate',
          'off',
          '--batch-size',
          '1',
          '--max-delegates',
          '1',
        ),
        { cwd: p.dir },
      );
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.split('\n');
      const warnings = lines.filter((l) => l.startsWith('warning: '));
      expect(warnings).toEqual([
        'warning: autoprove: --deep-rollback=never coerced to on-regression (never is prove-only)',
        'warning: autoprove: --deep-regression-gate=off coerced to strict (off is prove-only)',
        'warning: autoprove: --falsification=negate coerced to salvage (autoprove follows the default policy: counterexample + salvage only)',
      ]);
      // startup: the warnings come first, before the run's progress and its summary line
      expect(lines.slice(0, 3)).toEqual(warnings);
      expect(r.stdout).toMatch(/^run unpersisted: solved$/m);
    });
  }, 120_000);

  it('--json: stdout stays the bare record, the warning goes to stderr', async () => {
    await withGitProject(EASY, async (p) => {
      const json = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, '--falsification', 'negate', '--json'), {
        cwd: p.dir,
      });
      expect(json.code, json.stderr).toBe(0);
      expect(handoffOf(json.stdout).status).toBe('solved');
      expect(json.stderr).toContain(
        'warning: autoprove: --falsification=negate coerced to salvage (autoprove follows the default policy: counterexample + salvage only)\n',
      );
    });
  }, 120_000);
});

describe('--planner through the built CLI: the command plans the run', () => {
  /** A planner in plain Node: logs each input it is given, plans every listed target. */
  const PLANNER = `import { appendFileSync } from 'node:fs';
const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
appendFileSync(process.argv[2], JSON.stringify({ kind: input.kind, targets: input.targets.map((t) => t.id) }) + '\\n');
process.stdout.write(JSON.stringify({
  steps: input.targets.map((t) => ({ target: t.id, note: 'planned by the external planner' })),
  summary: 'external plan',
}));
`;

  it("runs the --planner command (argv, no shell, paths with spaces) with the cycle's planner input; the run still solves", async () => {
    const tools = await mkdtemp(join(tmpdir(), 'handoff-planner-'));
    try {
      const script = join(tools, 'my planner.mjs');
      const log = join(tools, 'planner log.jsonl');
      await writeFile(script, PLANNER);
      await withGitProject(EASY, async (p) => {
        const planner = `node '${script}' '${log}'`;
        // the planner reports its input through a host file: sandboxed (as the worker is by
        // default) its writes would be discarded, which test/hostile/check-commands covers
        const args = runArgs(p.dir, `node ${TS_WORKER}`, '--planner', planner, '--json', '--sandbox', 'off');
        const r = await runCli(args, {
          cwd: p.dir,
        });
        expect(r.code, r.stderr).toBe(0);
        expect(handoffOf(r.stdout).status).toBe('solved');
      });
      const calls = (await readFile(log, 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { kind: string; targets: string[] });
      // trivial targets skip the first plan; every replan of the run asks the command
      expect(calls.length).toBeGreaterThanOrEqual(1);
      for (const c of calls) expect(['plan', 'replan']).toContain(c.kind);
      const seen = new Set(calls.flatMap((c) => c.targets));
      expect(seen.size).toBeGreaterThan(0);
      for (const t of seen) expect(['A.lean:2', 'B.lean:2', 'B.lean:5']).toContain(t);
    } finally {
      await rm(tools, { recursive: true, force: true });
    }
  }, 120_000);
});
