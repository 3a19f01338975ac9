/**
 * The `--planner CMD` port with real child processes: a planner that answers (its plan is used,
 * with the input on its stdin); one that sleeps past a short injected time box (killed with its
 * process group, the fallback plan used with a note); one that prints garbage or an invalid plan
 * (fallback with a note); and hostile ones that name foreign targets, unsafe files and too many
 * searches (filtered).
 */
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { PlannerInput } from '../../src/cycle/types.js';
import { builtinPlanner } from '../../src/runtime/builtin-ports.js';
import { commandPlanner, PLANNER_TIME_BOX_MS } from '../../src/runtime/command-planner.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-planner-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const input: PlannerInput = {
  kind: 'plan',
  cycle: 1,
  targets: [
    { id: 'A.lean:2', file: 'A.lean', line: 2, goal: '1 = 1' },
    { id: 'B.lean:7', file: 'B.lean', line: 7, goal: '2 = 2' },
  ],
  blocked: [],
  searchBudget: 2,
  stuck: null,
  review: null,
};
const fallback = builtinPlanner();

/** Writes a planner script and returns its argv. */
async function planner(name: string, source: string): Promise<string[]> {
  const file = join(dir, name);
  await writeFile(file, source);
  return [process.execPath, file];
}

/** True while `pid` runs; a zombie (killed, not yet reaped by its new parent) is not running. */
const alive = async (pid: number): Promise<boolean> => {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
  return stat === null ? process.platform !== 'linux' : !/^\d+ \(.*\) Z /.test(stat);
};

describe('commandPlanner', () => {
  it('uses the plan a planner prints, after reading the input and the project root on stdin', async () => {
    const argv = await planner(
      'answer.mjs',
      `let s = ''; process.stdin.on('data', (d) => (s += d)).on('end', () => {
        const i = JSON.parse(s);
        require_ok: {
          if (i.project_root !== ${JSON.stringify(dir)} || i.searchBudget !== 2) { process.stdout.write('{}'); break require_ok; }
          process.stdout.write(JSON.stringify({
            now: 999,
            steps: [{ target: 'B.lean:7', note: 'B first: ' + i.targets.length + ' targets', files: ['B.lean', 'src/C.lean'] }, { target: 'A.lean:2', note: 'then A' }],
            searches: [{ tool: 'lean_leanfinder', query: 'two eq two', top: ['rfl'] }],
            evidence: { 'B.lean:7': ['found Nat.two_eq'] },
            summary: 'B before A',
          }));
        }
      });`,
    );
    const p = await commandPlanner(argv, dir, { fallback }).plan(input);
    expect(p).toEqual({
      steps: [
        { target: 'B.lean:7', note: 'B first: 2 targets', files: ['B.lean', 'src/C.lean'] },
        { target: 'A.lean:2', note: 'then A' },
      ],
      searches: [{ tool: 'lean_leanfinder', query: 'two eq two', top: ['rfl'] }],
      evidence: { 'B.lean:7': ['found Nat.two_eq'] },
      summary: 'B before A',
    });
    expect(p).not.toHaveProperty('now');
  });

  /** A planner that records its pid and a child's, then sleeps past any time box. */
  async function sleeper(pids: string): Promise<string[]> {
    return planner(
      'sleep.mjs',
      `import { spawn } from 'node:child_process';
      import { writeFileSync } from 'node:fs';
      const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)'], { stdio: 'ignore' });
      writeFileSync(${JSON.stringify(pids)}, JSON.stringify([process.pid, child.pid]));
      setTimeout(() => process.stdout.write('{"steps":[],"summary":"too late"}'), 60000);`,
    );
  }

  it('uses the fallback plan, with a note, when the planner exceeds the time box', async () => {
    const pids = join(dir, 'pids.json');
    const argv = await sleeper(pids);
    const started = Date.now();
    const p = await commandPlanner(argv, dir, { fallback, timeoutMs: 300 }).plan(input);
    expect(Date.now() - started).toBeLessThan(10_000);
    const expected = await fallback.plan(input);
    expect(p.steps).toEqual(expected.steps);
    expect(p.summary).toBe(
      `${expected.summary} [planner ${process.execPath}: the planning time box of 300 ms expired and the planner was stopped; fallback plan used]`,
    );
    // on a loaded machine the planner may be stopped before it starts; if it got as far as
    // recording its pids, it and its child are gone
    const recorded = await readFile(pids, 'utf8').catch(() => null);
    if (recorded !== null)
      for (const pid of JSON.parse(recorded) as number[]) expect(await alive(pid)).toBe(false);
  });

  it('kills the planner and its process group at the end of the time box', async () => {
    const pids = join(dir, 'pids.json');
    const argv = await sleeper(pids);
    const p = await commandPlanner(argv, dir, { fallback, timeoutMs: 5000 }).plan(input);
    expect(p.summary).toMatch(/the planning time box of 5 s expired/);
    const recorded = JSON.parse(await readFile(pids, 'utf8')) as number[];
    expect(recorded).toHaveLength(2);
    for (const pid of recorded) expect(await alive(pid)).toBe(false);
  });

  it('defaults to the seed\u2019s 30 s planning time box', () => {
    expect(PLANNER_TIME_BOX_MS).toBe(30_000);
  });

  it.each([
    [
      'garbage',
      `process.stdout.write('the plan is: do it');`,
      /did not print one JSON object; fallback plan used\]$/,
    ],
    [
      'an invalid plan',
      `process.stdout.write(JSON.stringify({ steps: [{ target: 3 }] }));`,
      /printed an invalid plan \(steps\.0\.target: .*\); fallback plan used\]$/,
    ],
    [
      'a missing steps list',
      `process.stdout.write(JSON.stringify({ summary: 'no steps' }));`,
      /printed an invalid plan \(steps: /,
    ],
    ['a crash', `process.stderr.write('boom'); process.exit(3);`, /exited with 3; fallback plan used\]$/],
    ['too much output', `process.stdout.write('x'.repeat(5000));`, /output too large; fallback plan used\]$/],
  ])('falls back, with a note, on %s', async (_name, source, note) => {
    const argv = await planner('bad.cjs', source);
    const p = await commandPlanner(argv, dir, { fallback, maxOutputBytes: 4096 }).plan(input);
    const expected = await fallback.plan(input);
    expect(p.steps).toEqual(expected.steps);
    expect(p.searches).toEqual([]);
    expect(p.summary.startsWith(expected.summary)).toBe(true);
    expect(p.summary).toMatch(note);
  });

  it('hostile: deeply nested JSON falls back instead of breaking the run', async () => {
    const argv = await planner('deep.cjs', `process.stdout.write('['.repeat(200000) + ']'.repeat(200000));`);
    const p = await commandPlanner(argv, dir, { fallback }).plan(input);
    expect(p.steps).toEqual((await fallback.plan(input)).steps);
    expect(p.summary).toMatch(/; fallback plan used\]$/);
  });

  it('falls back when the command cannot start', async () => {
    const p = await commandPlanner([join(dir, 'no-such-planner')], dir, { fallback }).plan(input);
    expect(p.summary).toMatch(/could not start: .*fallback plan used\]$/);
    expect(p.steps).toEqual((await fallback.plan(input)).steps);
  });

  it('hostile: drops steps and evidence for targets the input did not list, unsafe files, excess searches', async () => {
    const argv = await planner(
      'hostile.cjs',
      `process.stdout.write(JSON.stringify({
        steps: [
          { target: '../../etc/passwd:1', note: 'pwn' },
          { target: 'A.lean:2', note: 'ok \\u001b[2J', files: ['/etc/passwd', '../outside.lean', 'sub/../../x', 'A.lean', 'C:\\\\x', 'ok/D.lean'] },
          { target: 'A.lean:2', note: 'a second step for A is ignored' },
          { target: 'Z.lean:1', note: 'not open' },
        ],
        searches: [1, 2, 3, 4].map((n) => ({ tool: 't', query: 'q' + n, top: [] })),
        evidence: { 'Z.lean:1': ['forged evidence to unlock a relaunch'], 'A.lean:2': ['real'], ['__proto__']: ['x'] },
        summary: 'hostile \\u0007',
      }));`,
    );
    const p = await commandPlanner(argv, dir, { fallback }).plan(input);
    expect(p.steps).toEqual([{ target: 'A.lean:2', note: 'ok \\u001b[2J', files: ['A.lean', 'ok/D.lean'] }]);
    expect(p.evidence).toEqual({ 'A.lean:2': ['real'] });
    expect(Object.getPrototypeOf(p.evidence)).toBe(Object.prototype);
    expect(p.searches.map((s) => s.query)).toEqual(['q1', 'q2']);
    expect(p.summary).toMatch(
      /^hostile \\u0007 \[planner: 2 step\(s\) naming targets not in the input ignored; /,
    );
    expect(p.summary).toMatch(/evidence for \d unknown target\(s\) ignored/);
    expect(p.summary).toMatch(/4 unsafe file entries dropped/);
    expect(p.summary).toMatch(/2 search\(es\) beyond the budget of 2 dropped\]$/);
  });

  it('runs the command in the project root without a shell (metacharacters are data)', async () => {
    const marker = join(dir, 'pwned');
    const argv = await planner(
      'argv.cjs',
      `process.stdout.write(JSON.stringify({ steps: [], summary: 'cwd=' + process.cwd() + ' argv=' + JSON.stringify(process.argv.slice(2)) }));`,
    );
    const p = await commandPlanner([...argv, `; touch ${marker}`, '$(id)'], dir, { fallback }).plan(input);
    expect(p.summary).toBe(`cwd=${dir} argv=${JSON.stringify([`; touch ${marker}`, '$(id)'])}`);
    await expect(readFile(marker)).rejects.toThrow();
  });
});
