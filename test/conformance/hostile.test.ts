/**
 * The hostile workers of the "untrusted workers" threat model (test/hostile/fixtures/hostile.mjs)
 * against `handoff conformance worker` through the built binary: each attack fails exactly the
 * named check on the valid case (the malformed case, answered honestly, passes), a planted hook or
 * fsmonitor never runs, nothing the worker started outlives the run, a stdout holder or a hung
 * worker cannot stretch the run toward its descendant's 60 s, and the honest worker conforms. In
 * the repair and falsify roles (`--role`), a repair worker that edits, returns two diffs or a diff
 * of a bystander file, and a falsify worker proving ¬P while P's sorry stays, each fail exactly
 * their role check; the conforming repair worker and an honest falsify pass conform.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CHECKS, type ConformanceReport, ConformanceReportSchema } from '../../src/conformance/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { failedChecks } from './helpers.js';

const HOSTILE = fileURLToPath(new URL('../hostile/fixtures/hostile.mjs', import.meta.url));

let dir = '';
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-conformance-hostile-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});
const marker = () => join(dir, 'marker');

async function conformance(attack: string, ...options: string[]) {
  const t0 = performance.now();
  const r = await runCli(
    // custody only: the sandboxed run of these attacks is test/conformance/sandbox-hostile.test.ts
    [
      'conformance',
      'worker',
      '--runs',
      '2',
      '--json',
      '--sandbox',
      'off',
      ...options,
      '--',
      'node',
      HOSTILE,
      attack,
      marker(),
    ],
    { timeoutMs: 90_000 },
  );
  const elapsedMs = performance.now() - t0;
  const report = stdoutJson<ConformanceReport>(r);
  expect(ConformanceReportSchema.safeParse(report).success).toBe(true);
  return { code: r.code, report, elapsedMs, stdout: r.stdout };
}

/** Running (a killed, unreaped process is a zombie: not running). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const leftoverPid = () => Number(readFileSync(`${marker()}.pid`, 'utf8'));

/** The one failed finding, asserting it is the valid case's and that the malformed case passed. */
function onlyFailure(report: ConformanceReport) {
  const failed = report.findings.filter((f) => !f.passed);
  expect(failed).toHaveLength(1);
  expect(report.cases.map((c) => [c.case_id, c.kind, c.passed])).toEqual([
    ['case-1', 'valid', false],
    ['case-2', 'malformed', true],
  ]);
  return failed[0];
}

describe('handoff conformance against hostile workers', () => {
  it('the honest worker conforms, with every containment check applied', async () => {
    const { code, report } = await conformance('honest');
    expect(code).toBe(0);
    expect(report.failed).toBe(0);
    const applied = new Set(report.findings.map((f) => f.check));
    for (const c of [
      'no-lingering-process',
      'git-unchanged',
      'store-untouched',
      'no-symlink-swap',
      'headers-unchanged',
      'terminal-safe',
    ] as const) {
      expect(CHECKS).toContain(c);
      expect(report.findings.filter((f) => f.check === c).map((f) => f.case_id)).toEqual([
        'case-1',
        'case-2',
      ]);
    }
    expect(applied.has('unowned-unchanged')).toBe(true);
  });

  const attacks: [attack: string, check: string, detail: RegExp][] = [
    [
      'late-writer',
      'no-lingering-process',
      /^1 process\(es\) still ran after the worker exited \(killed by the session sweep\)$/,
    ],
    [
      'late-writer-no-env',
      'no-lingering-process',
      /^1 process\(es\) outside the worker's session still ran in the project \(killed by the harness\)$/,
    ],
    [
      'hold-stdout',
      'no-lingering-process',
      /^a descendant held stdout\/stderr open after the worker exited \(the pipes were cut\)$/,
    ],
    ['hook', 'git-unchanged', /^git control files changed: <project>\/\.git\/hooks\/pre-commit$/],
    ['fsmonitor', 'git-unchanged', /^git control files changed: <project>\/\.git\/config$/],
    [
      'symlink',
      'no-symlink-swap',
      /^owned file <project>\/f0\/.+ was replaced by a symbolic link to \/etc\/passwd$/,
    ],
    [
      'store-forge',
      'store-untouched',
      /^the worker wrote into the run store: runs\/20000101T000000Z-c0ffee00\/events\.jsonl$/,
    ],
    [
      'store-lock',
      'store-untouched',
      /^the worker wrote into the run store: runs\/20000101T000000Z-c0ffee00\/\.lock$/,
    ],
    [
      'weaken',
      'headers-unchanged',
      /^header fence: <project>\/f0\/.+: theorem t: statement changed \(`\(n : Nat\) : n \+ 0 = n` → `\(n : Nat\) : True`\)$/,
    ],
    ['rename', 'headers-unchanged', /^header fence: <project>\/f0\/.+: theorem t: renamed to t_easy /],
    [
      'add-hypothesis',
      'headers-unchanged',
      /^header fence: <project>\/f0\/.+: theorem t: hypothesis added `\(h : n \+ 0 = n\)`/,
    ],
    [
      'delete',
      'headers-unchanged',
      /^header fence: <project>\/f0\/.+: theorem t: declaration deleted \(was `\(n : Nat\) : n \+ 0 = n`\)/,
    ],
    ['add-axiom', 'headers-unchanged', /^header fence: <project>\/f0\/.+: axiom cheat: axiom added /],
    [
      'terminal-escape',
      'terminal-safe',
      /^terminal control characters in progress\[0\]\.attempted_tools\[0\] \(U\+001B\), handoff\.attempted_tools\[0\] \(U\+009B\), handoff\.failed_avenues\[0\] \(U\+000D\)$/,
    ],
  ];

  it.each(attacks)('%s fails exactly %s', async (attack, check, detail) => {
    const { code, report, elapsedMs } = await conformance(attack, '--timeout', '3000');
    expect(code).toBe(3);
    expect(failedChecks(report)).toEqual([check]);
    const f = onlyFailure(report);
    expect(f).toMatchObject({ case_id: 'case-1', kind: 'valid', check, passed: false });
    expect(f?.detail).toMatch(detail);
    if (attack === 'hook' || attack === 'fsmonitor') {
      expect(existsSync(marker())).toBe(false); // the planted command never ran
    }
    if (attack === 'late-writer' || attack === 'late-writer-no-env' || attack === 'hold-stdout') {
      expect(running(leftoverPid())).toBe(false); // nothing the worker started outlived the run
    }
    if (attack === 'hold-stdout') {
      // the descendant holds stdout for 60 s; before containment the issue measured 31 s
      expect(elapsedMs).toBeLessThan(15_000);
    }
  });

  // the role attacks: the dispatch is sent in the repair or falsify role (`--role`)
  const roleAttacks: [role: 'repair' | 'falsify', attack: string, check: string, detail: RegExp][] = [
    [
      'repair',
      'repair-edits',
      'repair-patch-only',
      /^the repair worker is patch-only but edited <project>\/f0\/.+ \(its diff belongs in artifacts\)$/,
    ],
    [
      'repair',
      'honest',
      'repair-patch-only',
      /^the repair worker is patch-only but edited <project>\/f0\/.+ \(its diff belongs in artifacts\)$/,
    ],
    [
      'repair',
      'repair-two-diffs',
      'repair-one-diff',
      /^a repair handoff carries files_changed: \[\] and exactly one unified-diff artifact \(got 0 changed file\(s\), 2 diff\(s\)\)$/,
    ],
    [
      'repair',
      'repair-diff-elsewhere',
      'repair-diff-owned',
      /^repair diff refused: README\.md: not a file this patch may touch \(out_of_scope\)$/,
    ],
    [
      'falsify',
      'falsify-negation',
      'falsify-no-negation',
      /^falsification: t_false proves the negation of t while t is still sorry \(policy salvage\)$/,
    ],
  ];

  it.each(roleAttacks)('--role %s: %s fails exactly %s', async (role, attack, check, detail) => {
    const { code, report } = await conformance(attack, '--role', role);
    expect(code).toBe(3);
    expect(report.role).toBe(role);
    expect(failedChecks(report)).toEqual([check]);
    const f = onlyFailure(report);
    expect(f).toMatchObject({ case_id: 'case-1', kind: 'valid', check, passed: false });
    expect(f?.detail).toMatch(detail);
  });

  it.each([
    ['repair', 'repair-honest', ['repair-patch-only', 'repair-one-diff', 'repair-diff-owned']],
    ['falsify', 'honest', ['falsify-no-negation']],
  ] as const)('--role %s: %s conforms, with the role checks applied', async (role, attack, checks) => {
    const { code, report } = await conformance(attack, '--role', role);
    expect(code).toBe(0);
    expect(report.failed).toBe(0);
    const roleChecks = report.findings.filter(
      (f) => f.check.startsWith('repair-') || f.check.startsWith('falsify-'),
    );
    expect(roleChecks.map((f) => [f.case_id, f.check, f.passed])).toEqual(
      checks.map((c) => ['case-1', c, true]),
    );
  });

  it('a hung worker whose descendant holds stdout fails timeout on each case, within the budgets', async () => {
    const { code, report, elapsedMs } = await conformance('hang-hold-stdout', '--timeout', '3000');
    expect(code).toBe(3);
    expect(failedChecks(report)).toEqual(['timeout']);
    expect(report.findings.map((f) => [f.case_id, f.check, f.passed, f.detail])).toEqual([
      ['case-1', 'spawn', true, 'started'],
      ['case-1', 'timeout', false, 'killed after exceeding 3000 ms'],
      ['case-2', 'spawn', true, 'started'],
      ['case-2', 'timeout', false, 'killed after exceeding 3000 ms'],
    ]);
    // two cases × (3 s budget + 2 s SIGKILL grace), far below the descendant's 60 s
    expect(elapsedMs).toBeLessThan(30_000);
    expect(running(leftoverPid())).toBe(false);
  });

  it('the summary names the failed check and shows no raw control character', async () => {
    const r = await runCli(
      ['conformance', 'worker', '--runs', '2', '--', 'node', HOSTILE, 'terminal-escape', marker()],
      { timeoutMs: 90_000 },
    );
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/✗ terminal-safe: terminal control characters in progress\[0\]/);
    expect(r.stdout).toMatch(/failing checks: terminal-safe\n/);
    expect(r.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });
});
