/**
 * Option resolution of the cycle (src/runtime/cycle-options.ts): every flag's default per mode
 * (lean4-contracts §8), every startup validation error (the flag named with its allowed values,
 * a structured result and never a throw), every autoprove coercion with its exact warning, and
 * flags that reach the resolver from a drafter's or worker's JSON (hostile types and text).
 */
import { describe, expect, it } from 'vitest';
import { type CycleFlags, MODE_DEFAULTS, resolveCycleOptions } from '../../src/runtime/cycle-options.js';

const BASE = { target: 'A.lean', scope: 'file' } as const;

function resolved(flags: Partial<CycleFlags> & { mode: string }) {
  const r = resolveCycleOptions({ ...BASE, ...flags });
  if (!r.ok) throw new Error(`expected ok, got: ${r.error}`);
  return r;
}

function refused(flags: Record<string, unknown>): string {
  const r = resolveCycleOptions({ ...BASE, mode: 'prove', ...flags } as CycleFlags);
  if (r.ok) throw new Error(`expected a usage error for ${JSON.stringify(flags)}`);
  return r.error;
}

describe('defaults per mode (lean4-contracts §8)', () => {
  const table = [
    // option, prove, autoprove
    ['deep', 'never', 'stuck'],
    ['deepSorryBudget', 1, 2],
    ['deepTimeBudget', '10m', '20m'],
    ['maxDeepPerCycle', 1, 1],
    ['maxConsecutiveDeep', 2, 2],
    ['deepScope', 'target', 'target'],
    ['deepMaxFiles', 1, 2],
    ['deepMaxLines', 120, 200],
    ['deepRegressionGate', 'strict', 'strict'],
    ['deepRollback', 'on-regression', 'on-regression'],
    ['repairPerSignature', 2, 2],
    ['repairPerCycle', 6, 8],
    ['batchSize', 1, 2],
    ['maxDelegates', 2, 2],
    ['falsification', 'salvage', 'salvage'],
    ['outerLoop', false, false],
    ['planning', 'ask', 'on'],
    ['commit', 'ask', 'auto'],
    ['reviewSource', 'internal', 'internal'],
    ['reviewEvery', 'checkpoint', 'checkpoint'],
    ['checkpoint', true, true],
    ['maxCycles', 20, 20],
    ['maxStuck', 3, 3],
    ['maxRuntime', '120m', '120m'],
  ] as const;
  it.each(table)('%s: prove %s, autoprove %s', (key, prove, autoprove) => {
    const p = resolved({ mode: 'prove' });
    const a = resolved({ mode: 'autoprove' });
    expect(p.options[key]).toBe(prove);
    expect(a.options[key]).toBe(autoprove);
    expect(MODE_DEFAULTS.prove[key]).toBe(prove);
    expect(MODE_DEFAULTS.autoprove[key]).toBe(autoprove);
    expect([p.warnings, a.warnings]).toEqual([[], []]);
  });

  it('the defaults need no coercion and equal MODE_DEFAULTS exactly', () => {
    for (const mode of ['prove', 'autoprove'] as const) {
      const r = resolved({ mode });
      expect(r.options).toEqual({ ...BASE, mode, ...MODE_DEFAULTS[mode] });
    }
  });
});

describe('flags given explicitly', () => {
  it('every new flag takes its value, as text (the CLI) or as a number (a host)', () => {
    const asText = resolved({
      mode: 'prove',
      deep: 'always',
      deepSorryBudget: '3',
      deepTimeBudget: '90s',
      maxDeepPerCycle: '2',
      maxConsecutiveDeep: '4',
      deepScope: 'cross-file',
      deepMaxFiles: '5',
      deepMaxLines: '400',
      deepRegressionGate: 'off',
      deepRollback: 'never',
      batchSize: '3',
      maxDelegates: '4',
      falsification: 'negate',
      repairPerSignature: '1',
      repairPerCycle: '9',
      outerLoop: true,
    });
    expect(asText.warnings).toEqual([]);
    expect(asText.options).toMatchObject({
      deep: 'always',
      deepSorryBudget: 3,
      deepTimeBudget: '90s',
      maxDeepPerCycle: 2,
      maxConsecutiveDeep: 4,
      deepScope: 'cross-file',
      deepMaxFiles: 5,
      deepMaxLines: 400,
      deepRegressionGate: 'off',
      deepRollback: 'never',
      batchSize: 3,
      maxDelegates: 4,
      falsification: 'negate',
      repairPerSignature: 1,
      repairPerCycle: 9,
      outerLoop: true,
    });
    const asNumbers = resolved({ mode: 'autoprove', deepMaxLines: 7, batchSize: 1, repairPerCycle: 3 });
    expect(asNumbers.options).toMatchObject({ deepMaxLines: 7, batchSize: 1, repairPerCycle: 3 });
  });

  it.each(['1', '10m', '2h', '30S', '5M', '1H', '45s'])('--deep-time-budget accepts %s', (d) => {
    expect(resolved({ mode: 'prove', deepTimeBudget: d }).options.deepTimeBudget).toBe(d);
  });

  it('the enumerations accept each of their values in prove', () => {
    for (const deep of ['never', 'ask', 'stuck', 'always'])
      expect(resolved({ mode: 'prove', deep }).options.deep).toBe(deep);
    for (const deepRollback of ['on-regression', 'on-no-improvement', 'always', 'never'])
      expect(resolved({ mode: 'prove', deepRollback }).options.deepRollback).toBe(deepRollback);
    for (const deepScope of ['target', 'cross-file'])
      expect(resolved({ mode: 'prove', deepScope }).options.deepScope).toBe(deepScope);
    for (const falsification of ['salvage', 'negate', 'off'])
      expect(resolved({ mode: 'prove', falsification }).options.falsification).toBe(falsification);
  });
});

describe('startup validation: one usage error naming the flag and its allowed values', () => {
  const cases: readonly (readonly [Record<string, unknown>, string])[] = [
    [{ deep: 'sometimes' }, "--deep must be one of never|ask|stuck|always, got 'sometimes'"],
    [{ deepSorryBudget: '0' }, "--deep-sorry-budget must be a positive integer, got '0'"],
    [
      { deepTimeBudget: '1.5h' },
      "--deep-time-budget must be a positive duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got '1.5h'",
    ],
    [
      { deepTimeBudget: '0' },
      "--deep-time-budget must be a positive duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got '0'",
    ],
    [
      { deepTimeBudget: '' },
      "--deep-time-budget must be a positive duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got ''",
    ],
    [
      { deepTimeBudget: '10d' },
      "--deep-time-budget must be a positive duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got '10d'",
    ],
    [{ maxDeepPerCycle: '-1' }, "--max-deep-per-cycle must be a positive integer, got '-1'"],
    [{ maxConsecutiveDeep: 'two' }, "--max-consecutive-deep must be a positive integer, got 'two'"],
    [{ deepScope: 'repo' }, "--deep-scope must be one of target|cross-file, got 'repo'"],
    [{ deepMaxFiles: '1.5' }, "--deep-max-files must be a positive integer, got '1.5'"],
    [{ deepMaxLines: '' }, "--deep-max-lines must be a positive integer, got ''"],
    [{ deepRegressionGate: 'loose' }, "--deep-regression-gate must be one of strict|off, got 'loose'"],
    [
      { deepRollback: 'sometimes' },
      "--deep-rollback must be one of on-regression|on-no-improvement|always|never, got 'sometimes'",
    ],
    [{ batchSize: '0' }, "--batch-size must be a positive integer, got '0'"],
    [{ maxDelegates: '1e3' }, "--max-delegates must be a positive integer, got '1e3'"],
    [
      { falsification: 'prove-negation' },
      "--falsification must be one of salvage|negate|off, got 'prove-negation'",
    ],
    [{ repairPerSignature: ' 2' }, "--repair-budget-per-signature must be a positive integer, got ' 2'"],
    [
      { repairPerCycle: '99999999999999999999' },
      "--repair-budget-per-cycle must be a positive integer, got '99999999999999999999'",
    ],
    [{ mode: 'golf' }, "--mode must be prove|autoprove, got 'golf'"],
    [{ scope: 'everything' }, "--scope must be one of sorry|deps|file|changed|project, got 'everything'"],
    [{ target: '' }, 'missing --target'],
    [{ planning: 'maybe' }, "--planning must be one of on|off|ask, got 'maybe'"],
    [{ commit: 'sometimes' }, "--commit must be one of never|ask|auto, got 'sometimes'"],
    [{ reviewSource: 'peer' }, "--review-source must be one of internal|external|both, got 'peer'"],
    [{ reviewEvery: 'often' }, "--review-every must be checkpoint|never|N, got 'often'"],
    [{ reviewEvery: '0' }, "--review-every must be checkpoint|never|N, got '0'"],
    [{ maxCycles: '0' }, "--max-cycles must be a positive integer, got '0'"],
    [{ maxStuck: 'x' }, "--max-stuck-cycles must be a positive integer, got 'x'"],
    [
      { maxRuntime: '2d' },
      "--max-total-runtime must be a duration matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got '2d'",
    ],
    [{ stallMinutes: '0' }, "--stall-minutes must be a positive integer, got '0'"],
  ];
  it.each(cases)('%o → %s', (flags, message) => {
    expect(refused(flags)).toBe(message);
  });

  it('the first bad flag in help order is the one reported', () => {
    expect(refused({ deep: 'x', batchSize: '0', falsification: 'y' })).toMatch(/^--deep /);
    expect(refused({ batchSize: '0', falsification: 'y' })).toMatch(/^--batch-size /);
  });

  it('max-total-runtime keeps accepting 0 and the empty text (unlimited)', () => {
    expect(resolved({ mode: 'prove', maxRuntime: '0' }).options.maxRuntime).toBe('0');
    expect(resolved({ mode: 'prove', maxRuntime: '' }).options.maxRuntime).toBe('');
  });
});

describe('autoprove coercions: each one a startup warning with its exact text', () => {
  const cases = [
    [{ commit: 'ask' }, 'commit', 'auto', 'autoprove: --commit=ask coerced to auto (no human to ask)'],
    [
      { reviewSource: 'external' },
      'reviewSource',
      'internal',
      'autoprove: --review-source=external coerced to internal',
    ],
    [
      { reviewSource: 'both' },
      'reviewSource',
      'internal',
      'autoprove: --review-source=both coerced to internal',
    ],
    [{ deep: 'ask' }, 'deep', 'stuck', 'autoprove: --deep=ask coerced to stuck (no human to ask)'],
    [
      { deepRollback: 'never' },
      'deepRollback',
      'on-regression',
      'autoprove: --deep-rollback=never coerced to on-regression (never is prove-only)',
    ],
    [
      { deepRegressionGate: 'off' },
      'deepRegressionGate',
      'strict',
      'autoprove: --deep-regression-gate=off coerced to strict (off is prove-only)',
    ],
    [
      { falsification: 'negate' },
      'falsification',
      'salvage',
      'autoprove: --falsification=negate coerced to salvage (autoprove follows the default policy: counterexample + salvage only)',
    ],
  ] as const;
  it.each(cases)('%o → %s=%s', (flags, key, to, warning) => {
    const a = resolved({ mode: 'autoprove', ...flags });
    expect(a.options[key]).toBe(to);
    expect(a.warnings).toEqual([warning]);
    // prove keeps the value as given, without a warning
    const p = resolved({ mode: 'prove', ...flags });
    expect(p.options[key]).toBe(Object.values(flags)[0]);
    expect(p.warnings).toEqual([]);
  });

  it('all at once: one warning each, in a stable order', () => {
    const a = resolved({
      mode: 'autoprove',
      falsification: 'negate',
      deepRegressionGate: 'off',
      deepRollback: 'never',
      deep: 'ask',
      reviewSource: 'both',
      commit: 'ask',
    });
    expect(a.warnings).toEqual(
      cases.filter(([f]) => !('reviewSource' in f && f.reviewSource === 'external')).map((c) => c[3]),
    );
  });

  it('values autoprove accepts as they are pass without a warning', () => {
    const a = resolved({
      mode: 'autoprove',
      deep: 'always',
      deepRollback: 'always',
      deepRegressionGate: 'strict',
      falsification: 'off',
      commit: 'never',
    });
    expect(a.warnings).toEqual([]);
    expect(a.options).toMatchObject({
      deep: 'always',
      deepRollback: 'always',
      falsification: 'off',
      commit: 'never',
    });
  });
});

describe('hostile flags: values from a drafter or worker JSON never make the resolver throw', () => {
  const throwing = {
    toString() {
      throw new Error('hostile toString');
    },
  };
  const hostile: readonly Record<string, unknown>[] = [
    { deep: 42 },
    { deep: throwing },
    { deepScope: ['target'] },
    { falsification: null },
    { falsification: Symbol('negate') },
    { batchSize: -2 },
    { batchSize: 1.5 },
    { batchSize: Number.NaN },
    { maxDelegates: Number.POSITIVE_INFINITY },
    { deepMaxLines: throwing },
    { deepTimeBudget: 10 },
    { deepTimeBudget: throwing },
    { outerLoop: 'yes' },
    { checkpoint: 'false' },
    { inlineFallback: 1 },
    { deep: '__proto__' },
    { deepScope: 'constructor' },
    { mode: throwing },
    { scope: 7 },
    { reviewEvery: 1.5 },
  ];
  it.each(hostile)('%o → a structured usage error', (flags) => {
    let r: ReturnType<typeof resolveCycleOptions> | undefined;
    expect(() => {
      r = resolveCycleOptions({ ...BASE, mode: 'prove', ...flags } as CycleFlags);
    }).not.toThrow();
    expect(r?.ok).toBe(false);
    expect(r?.ok === false && r.error).toMatch(/^(--[a-z-]+|outerLoop|checkpoint|inlineFallback) /);
  });

  it('a non-text value is shown by its type, never by calling it', () => {
    expect(refused({ deep: throwing })).toBe('--deep must be one of never|ask|stuck|always, got (object)');
    expect(refused({ falsification: null })).toBe(
      '--falsification must be one of salvage|negate|off, got (null)',
    );
    expect(refused({ batchSize: -2 })).toBe('--batch-size must be a positive integer, got -2');
    expect(refused({ outerLoop: 'yes' })).toBe("outerLoop must be a boolean, got 'yes'");
  });

  it('control characters are escaped and a long value is cut in the message', () => {
    const e = refused({ deep: 'always\n\u001b[2J\u0007' });
    expect(e).toBe("--deep must be one of never|ask|stuck|always, got 'always\\u000a\\u001b[2J\\u0007'");
    expect(e).not.toMatch(/[\u0000-\u001f]/);
    const long = refused({ deepScope: `x${'y'.repeat(10_000)}` });
    expect(long.length).toBeLessThan(200);
    expect(long).toMatch(/…'$/);
  });

  it('the object passed in is not modified', () => {
    const flags = Object.freeze({ ...BASE, mode: 'autoprove', commit: 'ask', falsification: 'negate' });
    const r = resolveCycleOptions(flags);
    expect(r.ok).toBe(true);
    expect(flags).toEqual({ ...BASE, mode: 'autoprove', commit: 'ask', falsification: 'negate' });
  });
});
