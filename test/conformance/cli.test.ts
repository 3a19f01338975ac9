/**
 * `handoff conformance worker` through the built binary: exit codes 0/3/2, the JSON report and
 * the human summary, relative worker paths.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { ConformanceReport } from '../../src/conformance/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { fixture } from './helpers.js';

const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

describe('handoff conformance worker', () => {
  it('exits 0 with a conformance-report/v1 for a conforming worker (--json)', async () => {
    const r = await runCli([
      'conformance',
      'worker',
      '--runs',
      '4',
      '--seed',
      '5',
      '--json',
      '--',
      'node',
      fixture('conforming'),
    ]);
    expect(r.code).toBe(0);
    const report = stdoutJson<ConformanceReport>(r);
    expect(report).toMatchObject({ schema: 'conformance-report/v1', seed: 5, runs: 4, failed: 0 });
    expect(report.worker).toEqual(['node', fixture('conforming')]);
    expect(report.cases).toHaveLength(4);
  });

  it('exits 3 and names the failing check in the summary for a broken worker', async () => {
    const r = await runCli([
      'conformance',
      'worker',
      '--runs',
      '2',
      '--',
      'node',
      fixture('ignores-malformed'),
    ]);
    expect(r.code).toBe(3);
    expect(r.stdout).toMatch(/FAIL case-2 malformed not-json/);
    expect(r.stdout).toMatch(/✗ protocol-error: expected stopped\/protocol-error/);
    expect(r.stdout).toMatch(/verdict: the worker does NOT conform/);
  });

  it('resolves a relative worker script against the current directory', async () => {
    const r = await runCli(['conformance', 'worker', '--runs', '2', '--', 'node', 'conforming.mjs'], {
      cwd: FIXTURES,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/worker: node conforming\.mjs \(seed 0, 2 cases\)/);
    expect(r.stdout).toMatch(/verdict: the worker conforms/);
  });

  it('reports the timeout through --timeout', async () => {
    const r = await runCli([
      'conformance',
      'worker',
      '--runs',
      '1',
      '--timeout',
      '300',
      '--json',
      '--',
      'node',
      fixture('hangs'),
    ]);
    expect(r.code).toBe(3);
    expect(stdoutJson<ConformanceReport>(r).findings.at(-1)).toMatchObject({
      check: 'timeout',
      passed: false,
      detail: 'killed after exceeding 300 ms',
    });
  });

  it.each([
    [['conformance', 'worker', '--runs', '2']],
    [['conformance', '--', 'node', 'x.mjs']],
    [['conformance', 'workers', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--runs', '0', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--runs', 'many', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--seed', '1.5', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--timeout', '-1', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--defects', 'bogus', '--', 'node', 'x.mjs']],
    [['conformance', 'worker', '--bogus', '--', 'node', 'x.mjs']],
  ])('exits 2 on usage errors: %j', async (args) => {
    const r = await runCli(args);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe('');
  });

  it('prints help with --help', async () => {
    const r = await runCli(['conformance', '--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/usage: handoff conformance worker/);
  });
});
