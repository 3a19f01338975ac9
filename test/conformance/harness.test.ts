/**
 * The worker conformance harness against real child-process workers: the conforming test worker
 * passes every check; each broken worker fails exactly the check that names its flaw.
 */
import { describe, expect, it } from 'vitest';
import {
  CHECKS,
  ConformanceReportSchema,
  DEFECTS,
  NOT_APPLICABLE,
  ROLE_CHECKS,
  runConformance,
} from '../../src/conformance/index.js';
import { failedChecks, nodeWorker, PY_EXAMPLE, TS_EXAMPLE } from './helpers.js';

describe('runConformance with the conforming worker', () => {
  it('passes every check over the whole defect catalogue and both edit and patch-only outcomes', async () => {
    const r = await runConformance({
      command: nodeWorker('conforming'),
      runs: 18,
      seed: 1,
      timeoutMs: 15_000,
    });
    expect(failedChecks(r)).toEqual([]);
    expect(r.failed).toBe(0);
    expect(r.passed).toBe(r.findings.length);
    expect(ConformanceReportSchema.safeParse(r).success).toBe(true);
    expect(r.runs).toBe(18);
    expect(r.cases.every((c) => c.passed)).toBe(true);
    // every malformed defect was sent and answered with a protocol-error handoff
    expect(new Set(r.cases.flatMap((c) => (c.defect ? [c.defect] : [])))).toEqual(new Set(DEFECTS));
    for (const c of r.cases.filter((x) => x.kind === 'malformed'))
      expect(c.stop_reason).toBe('protocol-error');
    // valid cases exercised both an edit (solved) and a patch-only answer (stuck)
    const statuses = new Set(r.cases.filter((c) => c.kind === 'valid').map((c) => c.status));
    expect(statuses).toEqual(new Set(['solved', 'stuck']));
    // every check but the in-process worker's, which are listed as not applicable
    const inProcessOnly = NOT_APPLICABLE.command.map((n) => n.check);
    expect(r.not_applicable?.map((n) => n.check)).toEqual(inProcessOnly);
    const applied = new Set(r.findings.map((f) => f.check));
    // (a fill run: the repair and falsify roles' checks have no finding)
    const roleOnly = [...ROLE_CHECKS.repair, ...ROLE_CHECKS.falsify];
    expect(applied).toEqual(
      new Set(CHECKS.filter((c) => !inProcessOnly.includes(c) && !roleOnly.includes(c))),
    );
    // temp paths never leak into the report
    expect(JSON.stringify(r)).not.toMatch(/handoff-conformance-/);
  }, 120_000);
});

describe('runConformance with broken workers', () => {
  const cases: [worker: string, failing: string[]][] = [
    ['writes-non-owned', ['unowned-unchanged']],
    ['invalid-handoff', ['handoff-valid']],
    ['ignores-malformed', ['protocol-error']],
    ['garbage', ['framing']],
    ['stale-baseline', ['baseline-matches-disk']],
    ['bad-progress', ['progress-valid']],
    ['over-search', ['search-budget']],
  ];
  it.each(cases)('%s fails exactly %j', async (worker, failing) => {
    const r = await runConformance({ command: nodeWorker(worker), runs: 4, seed: 3, timeoutMs: 15_000 });
    expect(failedChecks(r)).toEqual(failing);
    expect(r.failed).toBeGreaterThan(0);
    expect(ConformanceReportSchema.safeParse(r).success).toBe(true);
  });

  it('names the stray file and the drifted owned file in the details', async () => {
    const stray = await runConformance({
      command: nodeWorker('writes-non-owned'),
      runs: 1,
      seed: 3,
      timeoutMs: 15_000,
    });
    expect(stray.findings.find((f) => !f.passed)?.detail).toBe(
      'changed outside the owned set: <project>/stray.txt',
    );
    const stale = await runConformance({
      command: nodeWorker('stale-baseline'),
      runs: 1,
      seed: 3,
      timeoutMs: 15_000,
    });
    const f = stale.findings.find((x) => !x.passed);
    expect(f).toMatchObject({
      case_id: 'case-1',
      kind: 'valid',
      check: 'baseline-matches-disk',
      passed: false,
    });
    expect(f?.detail).toMatch(/^file_baseline drift: <project>\/f0\/.*: modified$/);
  });

  it('kills a worker that exceeds the timeout and reports it', async () => {
    const started = performance.now();
    const r = await runConformance({ command: nodeWorker('hangs'), runs: 2, seed: 3, timeoutMs: 400 });
    expect(performance.now() - started).toBeLessThan(15_000);
    expect(failedChecks(r)).toEqual(['timeout']);
    expect(r.findings.filter((f) => f.check === 'timeout')).toEqual([
      {
        case_id: 'case-1',
        kind: 'valid',
        check: 'timeout',
        passed: false,
        detail: 'killed after exceeding 400 ms',
      },
      {
        case_id: 'case-2',
        kind: 'malformed',
        defect: 'not-json',
        check: 'timeout',
        passed: false,
        detail: 'killed after exceeding 400 ms',
      },
    ]);
    expect(r.cases.map((c) => c.exit_code)).toEqual([null, null]);
  });

  it('reports a command that cannot start', async () => {
    const r = await runConformance({
      command: ['/nonexistent/worker-binary'],
      runs: 1,
      seed: 0,
      timeoutMs: 5_000,
    });
    expect(r.findings).toEqual([
      expect.objectContaining({
        check: 'spawn',
        passed: false,
        detail: expect.stringMatching(/^cannot start: /),
      }),
    ]);
  });
});

describe('runConformance on the example workers (valid dispatches)', () => {
  // The examples run the worker-side entry check, so they conform on valid and malformed dispatches alike.
  it.each([
    ['TypeScript', [process.execPath, TS_EXAMPLE]],
    ['Python', ['python3', PY_EXAMPLE]],
  ])(
    '%s example conforms over the whole defect catalogue',
    async (_name, command) => {
      const r = await runConformance({ command, runs: 18, seed: 1, timeoutMs: 15_000 });
      expect(new Set(r.cases.flatMap((c) => (c.defect ? [c.defect] : [])))).toEqual(new Set(DEFECTS));
      for (const c of r.cases.filter((x) => x.kind === 'malformed'))
        expect(c.stop_reason).toBe('protocol-error');
      expect(failedChecks(r)).toEqual([]);
    },
    120_000,
  );
});
