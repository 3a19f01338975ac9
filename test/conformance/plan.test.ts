/**
 * The pure parts of the harness: the seeded case plan, the malformed-dispatch catalogue, the
 * check evaluation over synthetic process results, tree snapshots, and report determinism.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { recordBaseline } from '../../src/baseline/index.js';
import { FENCED_HEADER, planCases } from '../../src/conformance/case-plan.js';
import { type ContainmentObservation, evaluateCase } from '../../src/conformance/checks.js';
import { malformedInput } from '../../src/conformance/defects.js';
import {
  arbDispatch,
  ConformanceReportSchema,
  DEFECTS,
  runConformance,
} from '../../src/conformance/index.js';
import { changedPaths, layOutProject, snapshotTree } from '../../src/conformance/project.js';
import { protocolErrorHandoff, validateDispatch, validateHandoff } from '../../src/contract/index.js';
import { extractLeanHeaders } from '../../src/fence/index.js';
import type { ContainedResult } from '../../src/process/index.js';
import { nodeWorker } from './helpers.js';

const proc = (over: Partial<ContainedResult>): ContainedResult => ({
  code: 0,
  signal: null,
  timedOut: false,
  spawnError: null,
  stdout: '',
  stderr: '',
  truncated: false,
  pipesHeld: false,
  swept: 0,
  elapsedMs: 5,
  ...over,
});

describe('planCases', () => {
  it('is a function of the seed', () => {
    expect(planCases({ runs: 6, seed: 9 })).toEqual(planCases({ runs: 6, seed: 9 }));
    expect(planCases({ runs: 6, seed: 9 })).not.toEqual(planCases({ runs: 6, seed: 10 }));
  });

  it('alternates valid and malformed cases and cycles through the defects in order', () => {
    const plan = planCases({ runs: 20, seed: 2 });
    expect(plan.map((c) => c.kind)).toEqual(
      Array.from({ length: 20 }, (_, i) => (i % 2 ? 'malformed' : 'valid')),
    );
    expect(plan.filter((c) => c.kind === 'malformed').map((c) => c.defect)).toEqual([...DEFECTS, DEFECTS[0]]);
    expect(plan[0]?.case_id).toBe('case-01');
    expect(planCases({ runs: 4, seed: 2, defects: [] }).every((c) => c.kind === 'valid')).toBe(true);
  });

  it('targets an existing line of an existing first owned file', () => {
    for (const c of planCases({ runs: 30, seed: 5 })) {
      const first = c.files[0];
      expect(first?.exists).toBe(true);
      expect(c.targetLine).toBeGreaterThanOrEqual(1);
      expect(c.targetLine).toBeLessThanOrEqual((first?.content.split('\n').length ?? 0) - 1);
      expect(new Set(c.files.map((f) => f.rel)).size).toBe(c.files.length);
    }
  });

  it('starts every first owned file with the fenced theorem, and every file has readable headers', () => {
    for (const c of planCases({ runs: 40, seed: 6 })) {
      expect(c.files[0]?.content.startsWith(`${FENCED_HEADER}\n`)).toBe(true);
      for (const f of c.files) {
        const x = extractLeanHeaders(f.content);
        expect(x.ok).toBe(true);
        if (f === c.files[0] && x.ok)
          expect(x.headers[0]).toMatchObject({ name: 't', kind: 'theorem', line: 1 });
      }
    }
  });

  it('refuses bad runs and seeds as usage errors', () => {
    expect(() => planCases({ runs: 0, seed: 1 })).toThrow(/runs must be a positive integer/);
    expect(() => planCases({ runs: 1.5, seed: 1 })).toThrow(/runs/);
    expect(() => planCases({ runs: 1, seed: 2 ** 31 })).toThrow(/seed must be a 32-bit integer/);
  });
});

describe('malformedInput', () => {
  const foreignBaseline = {
    schema: 'file-baseline/v1' as const,
    files: [{ path: '/elsewhere/x', realpath: '/elsewhere/x', exists: false, sha256: null, size: null }],
  };

  it('returns the dispatch itself for no defect', () => {
    fc.assert(
      fc.property(arbDispatch(), (d) => {
        expect(validateDispatch(JSON.parse(malformedInput(null, d, { foreignBaseline }))).ok).toBe(true);
      }),
      { numRuns: 30 },
    );
  });

  it('makes every generated dispatch invalid with every defect, and protocolErrorHandoff of it validates', () => {
    fc.assert(
      fc.property(arbDispatch(), fc.constantFrom(...DEFECTS), (d, defect) => {
        const text = malformedInput(defect, d, { foreignBaseline });
        let parsed: unknown;
        let isJson = true;
        try {
          parsed = JSON.parse(text);
        } catch {
          isJson = false;
        }
        if (isJson) expect(validateDispatch(parsed).ok).toBe(false);
        else expect(['not-json', 'truncated-json', 'empty-stdin']).toContain(defect);
        expect(validateHandoff(protocolErrorHandoff(text, defect)).ok).toBe(true);
      }),
      { numRuns: 120 },
    );
  });
});

describe('evaluateCase', () => {
  const [dispatch] = fc.sample(arbDispatch(), { seed: 4, numRuns: 1 });
  if (dispatch === undefined) throw new Error('no sample');
  const containment: ContainmentObservation = {
    lingering: 0,
    gitChanged: [],
    storeChanged: [],
    ownedSwap: null,
    headersBefore: new Map(),
    headersAfter: new Map(),
  };
  const base = { case_id: 'c', kind: 'valid' as const, dispatch, timeoutMs: 1000, changed: [], containment };

  it('stops at the first failed gate check', () => {
    expect(
      evaluateCase({ ...base, process: proc({ timedOut: true, code: null }) }).findings.map((f) => f.check),
    ).toEqual(['spawn', 'timeout']);
    const garbage = evaluateCase({ ...base, process: proc({ stdout: 'hello\n' }) }).findings;
    expect(garbage.map((f) => [f.check, f.passed])).toEqual([
      ['spawn', true],
      ['timeout', true],
      ['no-lingering-process', true],
      ['git-unchanged', true],
      ['store-untouched', true],
      ['no-symlink-swap', true],
      ['headers-unchanged', true],
      ['framing', false],
    ]);
    const invalid = evaluateCase({
      ...base,
      process: proc({ stdout: '{"schema":"run-contract/v1"}\n' }),
    }).findings;
    expect(invalid.at(-1)).toMatchObject({ check: 'handoff-valid', passed: false });
  });

  it('accepts an echoing patch-only handoff whose baseline matches, and flags each deviation', () => {
    const handoff = protocolErrorHandoff(dispatch, 'x');
    const echo = {
      ...handoff,
      target: dispatch.target,
      scope: dispatch.scope,
      mode: dispatch.mode,
      stop_reason: null,
      stop_detail: null,
      status: 'solved',
      next_action: 'continue',
      file_baseline: dispatch.file_baseline,
    };
    const ok = evaluateCase({
      ...base,
      process: proc({ stdout: `${JSON.stringify(echo)}\n` }),
      baselineCheck: { result: 'match', detail: '' },
    });
    expect(ok.findings.filter((f) => !f.passed)).toEqual([]);
    expect(ok.findings.map((f) => f.check)).toContain('patch-only-baseline');

    const moved = {
      ...echo,
      target: `${dispatch.target}!`,
      files_changed: ['/not/owned'],
    };
    const bad = evaluateCase({
      ...base,
      changed: ['/p/stray'],
      process: proc({ stdout: `${JSON.stringify(moved)}\n` }),
      baselineCheck: { result: 'drift', detail: '/p/a: modified' },
    });
    expect(bad.findings.filter((f) => !f.passed).map((f) => f.check)).toEqual([
      'identity-echoed',
      'files-changed-owned',
      'unowned-unchanged',
      'baseline-matches-disk',
    ]);
  });

  it('flags a baseline that advances an entry files_changed does not name, and foreign progress paths', () => {
    const [two] = fc.sample(
      arbDispatch().filter((d) => d.owned_files.length >= 2),
      { seed: 4, numRuns: 1 },
    );
    if (two === undefined) throw new Error('no sample');
    const [a, b] = two.owned_files as [string, string];
    const files = two.file_baseline.files.map((e) =>
      e.path === b ? { ...e, realpath: e.path, exists: true, sha256: 'f'.repeat(64), size: 1 } : e,
    );
    const h = {
      ...protocolErrorHandoff(two, 'x'),
      stop_reason: null,
      stop_detail: null,
      status: 'solved',
      next_action: 'continue',
      files_changed: [a],
      file_baseline: { ...two.file_baseline, files },
    };
    const progress = { schema: 'run-persist-progress/v1', files_changed: ['/elsewhere'] };
    const r = evaluateCase({
      ...base,
      dispatch: two,
      process: proc({ stdout: `${JSON.stringify(progress)}\n${JSON.stringify(h)}\n` }),
      baselineCheck: { result: 'match', detail: '' },
    });
    expect(r.findings.filter((f) => !f.passed).map((f) => [f.check, f.detail])).toEqual([
      ['progress-valid', 'invalid progress: line 1: files_changed outside owned_files /elsewhere'],
      ['baseline-advances-reported', `baseline advances files not in files_changed: ${b}`],
    ]);
  });

  it('requires a protocol-error stop and no file change for malformed input', () => {
    const answer = protocolErrorHandoff('nope', 'not JSON');
    const r = evaluateCase({
      ...base,
      kind: 'malformed',
      defect: 'not-json',
      changed: ['/p/f0/a'],
      process: proc({ stdout: `${JSON.stringify(answer)}\n` }),
    });
    expect(r.findings.slice(-2).map((f) => [f.check, f.passed])).toEqual([
      ['protocol-error', true],
      ['no-file-changed', false],
    ]);
  });
});

describe('project layout and snapshots', () => {
  it('detects created, modified and removed files', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'handoff-conformance-test-'));
    try {
      const plan = planCases({ runs: 1, seed: 8 })[0];
      if (!plan) throw new Error('no plan');
      const owned = await layOutProject(dir, plan.files);
      const baseline = await recordBaseline(owned);
      expect(baseline.files.map((f) => f.exists)).toEqual(plan.files.map((f) => f.exists));
      const before = await snapshotTree(dir);
      expect(changedPaths(before, await snapshotTree(dir))).toEqual([]);
      await writeFile(join(dir, 'README.md'), 'changed');
      await writeFile(join(dir, 'new.txt'), 'new');
      await rm(join(dir, 'notes', 'other.lean'));
      expect(changedPaths(before, await snapshotTree(dir))).toEqual(
        [join(dir, 'README.md'), join(dir, 'new.txt'), join(dir, 'notes', 'other.lean')].sort(),
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('ConformanceReportSchema', () => {
  it('converts to JSON Schema (for schemas/conformance-report.v1.json)', () => {
    const js = z.toJSONSchema(ConformanceReportSchema) as { required?: string[] };
    expect(js.required).toEqual([
      'schema',
      'worker',
      'seed',
      'runs',
      'cases',
      'passed',
      'failed',
      'findings',
    ]);
  });
});

describe('report determinism', () => {
  it('the same seed gives the same report, a different seed a different one', async () => {
    const run = (seed: number) =>
      runConformance({ command: nodeWorker('stale-baseline'), runs: 3, seed, timeoutMs: 15_000 });
    const a = await run(11);
    const b = await run(11);
    expect(b).toEqual(a);
    expect(JSON.stringify(b)).toBe(JSON.stringify(a));
    const c = await run(12);
    expect(c.cases.map((x) => x.target)).not.toEqual(a.cases.map((x) => x.target));
  }, 60_000);
});
