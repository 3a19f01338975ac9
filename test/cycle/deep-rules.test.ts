/**
 * The rules of deep mode (src/cycle/deep-rules.ts): the deep-managed files (a hostile planner's
 * paths refused), the budgets sent, the scope fence, the regression gate in the seed's order, the
 * rollback judgement for every policy and gate, and when deep is wanted. Reason strings exact.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  DEEP_ROLLBACK_FAILED,
  type DiagnosticsView,
  deepManagedFiles,
  deepParameters,
  deepWanted,
  improvedAfterDeep,
  judgeDeep,
  type Regression,
  regressionOf,
  scopeFence,
} from '../../src/cycle/deep-rules.js';
import type {
  CycleOptions,
  PlanStep,
  StuckCondition,
  StuckVerdict,
  TargetInfo,
} from '../../src/cycle/types.js';
import { MODE_DEFAULTS } from '../../src/runtime/cycle-options.js';

/** Autoprove's deep defaults (lean4-contracts §8). */
const OPTIONS: CycleOptions = {
  target: '.',
  scope: 'project',
  mode: 'autoprove',
  ...MODE_DEFAULTS.autoprove,
};

const T: TargetInfo = { id: 'A.lean:4', file: 'A.lean', line: 4, goal: 'sorry' };
const sorryAt = (file: string, line: number): TargetInfo => ({
  id: `${file}:${line}`,
  file,
  line,
  goal: 'sorry',
});
const step = (files?: readonly unknown[]): PlanStep =>
  ({ target: T.id, note: 'extract a helper', ...(files === undefined ? {} : { files }) }) as PlanStep;
const view = (targets: TargetInfo[], errors: string[] = []): DiagnosticsView => ({ targets, errors });

describe('deepManagedFiles', () => {
  const cross = { ...OPTIONS, deepScope: 'cross-file' as const };
  it.each<[string, CycleOptions, PlanStep | null, string[]]>([
    ['target scope: the target file only, whatever the step declares', OPTIONS, step(['B.lean']), ['A.lean']],
    ['cross-file without a step', cross, null, ['A.lean']],
    ['cross-file with a step that declares nothing', cross, step(), ['A.lean']],
    [
      'cross-file: declared files and the target file, sorted and unique',
      cross,
      step(['C.lean', 'B/X.lean', 'A.lean', 'C.lean']),
      ['A.lean', 'B/X.lean', 'C.lean'],
    ],
    [
      'cross-file: `.` segments and repeated slashes dropped',
      cross,
      step(['./B.lean', 'D//E.lean', './A.lean']),
      ['A.lean', 'B.lean', 'D/E.lean'],
    ],
  ])('%s', (_name, options, s, expected) => {
    expect(deepManagedFiles(options, T, s)).toEqual(expected);
  });

  it('a hostile planner: absolute paths, `..` segments, drive letters, backslashes, NUL and non-strings are dropped', () => {
    const hostile = step([
      '/etc/passwd',
      '../outside.lean',
      'a/../../b.lean',
      'ok/..',
      'C:/Windows/x',
      'c:evil',
      '..\\up.lean',
      '\\\\host\\share',
      'nul\0.lean',
      '',
      '.',
      42,
      null,
      { path: 'B.lean' },
      'B.lean',
    ]);
    expect(deepManagedFiles(cross, T, hostile)).toEqual(['A.lean', 'B.lean']);
  });

  it('a step whose files field is not a list declares nothing', () => {
    expect(
      deepManagedFiles(cross, T, { target: T.id, note: '', files: 'B.lean' } as unknown as PlanStep),
    ).toEqual(['A.lean']);
  });
});

describe('deepParameters', () => {
  it('carries the deep budgets and the managed files', () => {
    const files = ['A.lean', 'B.lean'];
    const p = deepParameters({ ...OPTIONS, deepScope: 'cross-file' }, files);
    expect(p).toEqual({
      deep_budget: {
        scope: 'cross-file',
        max_files: 2,
        max_lines: 200,
        sorry_budget: 2,
        time_budget: '20m',
        files: ['A.lean', 'B.lean'],
      },
    });
    files.push('C.lean');
    expect((p.deep_budget as { files: string[] }).files).toEqual(['A.lean', 'B.lean']);
  });
  it('uses the prove defaults when given them', () => {
    const prove = {
      ...OPTIONS,
      deepSorryBudget: 1,
      deepTimeBudget: '10m',
      deepMaxFiles: 1,
      deepMaxLines: 120,
    };
    expect(deepParameters(prove, ['A.lean'])).toEqual({
      deep_budget: {
        scope: 'target',
        max_files: 1,
        max_lines: 120,
        sorry_budget: 1,
        time_budget: '10m',
        files: ['A.lean'],
      },
    });
  });
});

describe('scopeFence', () => {
  it.each<[string, string[], number, string | null]>([
    ['within both limits', ['A.lean'], 10, null],
    ['exactly at both limits', ['A.lean', 'B.lean'], 200, null],
    ['one file too many', ['A.lean', 'B.lean', 'C.lean'], 10, 'deep: scope exceeded — 3 files / 10 lines'],
    ['one line too many', ['A.lean'], 201, 'deep: scope exceeded — 1 files / 201 lines'],
    ['both exceeded', ['A', 'B', 'C'], 900, 'deep: scope exceeded — 3 files / 900 lines'],
    ['a file listed twice counts once', ['A.lean', 'A.lean', 'B.lean'], 5, null],
    ['no change at all', [], 0, null],
    [
      'a line count that is not a number fails closed',
      ['A.lean'],
      Number.NaN,
      'deep: scope exceeded — 1 files / NaN lines',
    ],
    ['a negative line count fails closed', ['A.lean'], -1, 'deep: scope exceeded — 1 files / -1 lines'],
    [
      'an infinite line count fails closed',
      ['A.lean'],
      Number.POSITIVE_INFINITY,
      'deep: scope exceeded — 1 files / Infinity lines',
    ],
  ])('%s', (_name, files, lines, expected) => {
    expect(scopeFence(files, lines, OPTIONS)).toBe(expected);
  });
});

describe('regressionOf', () => {
  const files = ['A.lean'];
  it.each<[string, DiagnosticsView, DiagnosticsView, Regression | null]>([
    ['nothing changed', view([T], ['A.lean:9:type mismatch']), view([T], ['A.lean:9:type mismatch']), null],
    ['a sorry closed', view([T, sorryAt('A.lean', 8)]), view([T]), null],
    [
      'sorry count up by 2',
      view([T]),
      view([T, sorryAt('A.lean', 8), sorryAt('A.lean', 12)]),
      { kind: 'sorry-count', reason: 'deep: regression — sorry count +2' },
    ],
    [
      'a new error',
      view([T]),
      view([T], ['A.lean:9:unknown identifier foo']),
      { kind: 'new-errors', reason: 'deep: regression — new errors' },
    ],
    [
      'the same error on another line is a new blocker, not a new error',
      view([T], ['A.lean:9:type mismatch']),
      view([T], ['A.lean:19:type mismatch']),
      { kind: 'new-blockers', reason: 'deep: regression — new blockers' },
    ],
    [
      'sorry count is checked before errors',
      view([T]),
      view([T, sorryAt('A.lean', 8)], ['A.lean:1:boom']),
      { kind: 'sorry-count', reason: 'deep: regression — sorry count +1' },
    ],
    [
      'a sorry and an error in a file outside the set are ignored',
      view([T]),
      view([T, sorryAt('Z.lean', 1)], ['Z.lean:1:boom']),
      null,
    ],
    ['an error that went away is no regression', view([T], ['A.lean:9:type mismatch']), view([T]), null],
    [
      'volatile metavariable numbers do not make an error new',
      view([T], ['A.lean:9:cannot unify ?m.12']),
      view([T], ['A.lean:9:cannot unify ?m.57']),
      null,
    ],
    [
      'sorry count down but a new error: still a regression',
      view([T, sorryAt('A.lean', 8)]),
      view([T], ['A.lean:9:x']),
      { kind: 'new-errors', reason: 'deep: regression — new errors' },
    ],
  ])('%s', (_name, pre, post, expected) => {
    expect(regressionOf(pre, post, files)).toEqual(expected);
  });

  it('compares over every file of the set (cross-file)', () => {
    expect(regressionOf(view([T]), view([T, sorryAt('B.lean', 3)]), ['A.lean', 'B.lean'])?.reason).toBe(
      'deep: regression — sorry count +1',
    );
    expect(regressionOf(view([T]), view([T, sorryAt('B.lean', 3)]), ['A.lean'])).toBeNull();
  });

  it('hostile diagnostics text: an error without a file:line prefix cannot hide outside the set', () => {
    expect(regressionOf(view([T]), view([T], ['no location at all']), files)?.kind).toBe('new-errors');
    expect(
      regressionOf(view([T], ['no location at all']), view([T], ['no location at all']), files),
    ).toBeNull();
  });

  it('is null for any view compared with itself', () => {
    const target = fc
      .record({ file: fc.constantFrom('A.lean', 'B.lean', 'Z.lean'), line: fc.nat(50) })
      .map(({ file, line }) => sorryAt(file, line));
    const error = fc.oneof(
      fc
        .tuple(fc.constantFrom('A.lean', 'B.lean'), fc.nat(50), fc.string())
        .map(([f, l, t]) => `${f}:${l}:${t}`),
      fc.string(),
    );
    fc.assert(
      fc.property(fc.array(target), fc.array(error), (targets, errors) => {
        const v = view(targets, errors);
        expect(regressionOf(v, v, ['A.lean', 'B.lean'])).toBeNull();
        expect(
          regressionOf(v, { targets: [...targets], errors: [...errors].reverse() }, ['A.lean']),
        ).toBeNull();
      }),
      { seed: 20_261_202, numRuns: 200 },
    );
  });
});

describe('improvedAfterDeep', () => {
  it.each<[string, DiagnosticsView, DiagnosticsView, boolean]>([
    ['a sorry closed', view([T, sorryAt('A.lean', 8)]), view([T]), true],
    ['an error fixed', view([T], ['A.lean:9:x']), view([T]), true],
    ['nothing changed', view([T], ['A.lean:9:x']), view([T], ['A.lean:9:x']), false],
    ['an error changed but the count did not', view([T], ['A.lean:9:x']), view([T], ['A.lean:9:y']), false],
    ['a sorry closed in a file outside the set', view([T, sorryAt('Z.lean', 1)]), view([T]), false],
  ])('%s', (_name, pre, post, expected) => {
    expect(improvedAfterDeep(pre, post, ['A.lean'])).toBe(expected);
  });
});

describe('judgeDeep', () => {
  const reg: Regression = { kind: 'new-errors', reason: 'deep: regression — new errors' };
  const NO_IMPROVEMENT = 'deep: no improvement — sorry count and diagnostics unchanged';
  const ALWAYS = 'deep: always — rollback after every deep call';
  type Row = [
    string,
    Partial<CycleOptions>,
    { fence?: string; scope?: string; regression?: Regression; improved?: boolean },
    { rollback: boolean; reason: string | null; logged: string | null },
  ];
  it.each<Row>([
    ['kept: no trigger', {}, { improved: true }, { rollback: false, reason: null, logged: null }],
    [
      'on-regression keeps a call without improvement',
      {},
      { improved: false },
      { rollback: false, reason: null, logged: null },
    ],
    [
      'header fence',
      {},
      { fence: 'A.lean: t statement changed', improved: true },
      { rollback: true, reason: 'deep: header changed — A.lean: t statement changed', logged: null },
    ],
    [
      'header fence even under policy never and gate off',
      { deepRollback: 'never', deepRegressionGate: 'off' },
      { fence: 'A.lean: t removed' },
      { rollback: true, reason: 'deep: header changed — A.lean: t removed', logged: null },
    ],
    [
      'header fence before scope',
      {},
      { fence: 'x', scope: 'deep: scope exceeded — 3 files / 9 lines' },
      { rollback: true, reason: 'deep: header changed — x', logged: null },
    ],
    [
      'scope fence',
      {},
      { scope: 'deep: scope exceeded — 3 files / 9 lines', improved: true },
      { rollback: true, reason: 'deep: scope exceeded — 3 files / 9 lines', logged: null },
    ],
    [
      'scope fence even under policy never',
      { deepRollback: 'never' },
      { scope: 'deep: scope exceeded — 1 files / 999 lines' },
      { rollback: true, reason: 'deep: scope exceeded — 1 files / 999 lines', logged: null },
    ],
    [
      'scope before regression',
      {},
      { scope: 's', regression: reg },
      { rollback: true, reason: 's', logged: null },
    ],
    [
      'on-regression, strict: regression rolls back',
      {},
      { regression: reg, improved: true },
      { rollback: true, reason: reg.reason, logged: null },
    ],
    [
      'on-no-improvement, strict: regression rolls back',
      { deepRollback: 'on-no-improvement' },
      { regression: reg, improved: true },
      { rollback: true, reason: reg.reason, logged: null },
    ],
    [
      'always, strict: the regression is the reason',
      { deepRollback: 'always' },
      { regression: reg },
      { rollback: true, reason: reg.reason, logged: null },
    ],
    [
      'gate off: a regression is only logged',
      { deepRegressionGate: 'off' },
      { regression: reg, improved: true },
      { rollback: false, reason: null, logged: reg.reason },
    ],
    [
      'policy never: a regression is only logged',
      { deepRollback: 'never' },
      { regression: reg, improved: false },
      { rollback: false, reason: null, logged: reg.reason },
    ],
    [
      'on-no-improvement: no improvement rolls back',
      { deepRollback: 'on-no-improvement' },
      { improved: false },
      { rollback: true, reason: NO_IMPROVEMENT, logged: null },
    ],
    [
      'on-no-improvement: an improvement is kept',
      { deepRollback: 'on-no-improvement' },
      { improved: true },
      { rollback: false, reason: null, logged: null },
    ],
    [
      'on-no-improvement, gate off: the regression is logged and no improvement rolls back',
      { deepRollback: 'on-no-improvement', deepRegressionGate: 'off' },
      { regression: reg, improved: false },
      { rollback: true, reason: NO_IMPROVEMENT, logged: reg.reason },
    ],
    [
      'always: rolls back an improvement too',
      { deepRollback: 'always' },
      { improved: true },
      { rollback: true, reason: ALWAYS, logged: null },
    ],
    [
      'always, gate off: rolls back and logs the regression',
      { deepRollback: 'always', deepRegressionGate: 'off' },
      { regression: reg, improved: true },
      { rollback: true, reason: ALWAYS, logged: reg.reason },
    ],
    [
      'never: nothing rolls back',
      { deepRollback: 'never' },
      { improved: false },
      { rollback: false, reason: null, logged: null },
    ],
  ])('%s', (_name, over, j, expected) => {
    const judged = judgeDeep({
      options: { ...OPTIONS, ...over },
      fence: j.fence ?? null,
      scope: j.scope ?? null,
      regression: j.regression ?? null,
      improved: j.improved ?? false,
    });
    expect(judged).toEqual(expected);
  });

  it('every rollback reason reads "deep: <trigger> — <detail>", and so does the rollback failure', () => {
    const reasons = [
      judgeDeep({ options: OPTIONS, fence: 'd', scope: null, regression: null, improved: true }).reason,
      judgeDeep({
        options: { ...OPTIONS, deepRollback: 'on-no-improvement' },
        fence: null,
        scope: null,
        regression: null,
        improved: false,
      }).reason,
      judgeDeep({
        options: { ...OPTIONS, deepRollback: 'always' },
        fence: null,
        scope: null,
        regression: null,
        improved: true,
      }).reason,
      scopeFence(['a', 'b', 'c'], 1, OPTIONS),
      regressionOf(view([]), view([T]), ['A.lean'])?.reason,
    ];
    for (const r of reasons) expect(r).toMatch(/^deep: [a-z ]+ — .+$/);
    expect(DEEP_ROLLBACK_FAILED).toBe('deep: rollback failed');
  });
});

describe('deepWanted', () => {
  const verdict = (condition: StuckCondition): StuckVerdict => ({
    target: T.id,
    condition,
    signature: 'A.lean:4:x',
    detail: 'd',
  });
  const stuck = verdict('repeated-failure');
  it.each<[string, CycleOptions['deep'], StuckVerdict | null, boolean, 'deep' | 'ask' | 'no']>([
    ['never, stuck', 'never', stuck, true, 'no'],
    ['never, open', 'never', null, true, 'no'],
    ['ask, stuck', 'ask', stuck, true, 'ask'],
    ['ask, not stuck', 'ask', null, true, 'no'],
    ['stuck, stuck', 'stuck', stuck, true, 'deep'],
    ['stuck, not stuck', 'stuck', null, true, 'no'],
    ['stuck, stuck on no progress', 'stuck', verdict('no-progress'), true, 'deep'],
    ['stuck, after a header change: never deep', 'stuck', verdict('fence-violation'), true, 'no'],
    ['stuck, after a deep rollback: never deep again', 'stuck', verdict('deep-rollback'), true, 'no'],
    ['ask, after a header change: not even asked', 'ask', verdict('fence-violation'), true, 'no'],
    ['ask, after a deep rollback: not asked', 'ask', verdict('deep-rollback'), true, 'no'],
    ['always, open', 'always', null, true, 'deep'],
    ['always, closed', 'always', null, false, 'no'],
    ['always, stuck and open', 'always', stuck, true, 'deep'],
    ['always, after a deep rollback', 'always', verdict('deep-rollback'), true, 'no'],
  ])('%s', (_name, deep, s, open, expected) => {
    expect(deepWanted({ ...OPTIONS, deep }, s, open)).toBe(expected);
  });
});
