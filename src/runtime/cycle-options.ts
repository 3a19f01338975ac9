/**
 * Resolution of the cycle's flags (layer 1, pure): the spec's prove/autoprove defaults and the
 * autoprove coercions, each coercion reported as a warning.
 */
import type { Scope } from '../contract/index.js';
import { ScopeSchema } from '../contract/index.js';
import type { CycleMode, CycleOptions, ReviewEvery } from '../cycle/types.js';
import { parseDuration } from '../tracker/duration.js';

/** Raw flags as the CLI (or a host) passes them; anything omitted takes the mode's default. */
export interface CycleFlags {
  readonly target: string;
  readonly scope: string;
  readonly mode: string;
  readonly planning?: string | undefined;
  readonly reviewEvery?: string | number | undefined;
  readonly reviewSource?: string | undefined;
  readonly commit?: string | undefined;
  readonly checkpoint?: boolean | undefined;
  readonly maxCycles?: string | number | undefined;
  readonly maxStuck?: string | number | undefined;
  readonly maxRuntime?: string | undefined;
  readonly stallMinutes?: string | number | undefined;
  readonly maxFailuresPerTarget?: string | number | undefined;
  readonly deep?: string | undefined;
  readonly deepRollback?: string | undefined;
  readonly deepRegressionGate?: string | undefined;
  readonly inlineFallback?: boolean | undefined;
}

/** Resolution outcome: options plus coercion warnings, or the first usage error. */
export type ResolvedOptions =
  | { readonly ok: true; readonly options: CycleOptions; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string };

/** Defaults per mode (lean4-contracts §8; deep defaults kept for the deep-mode extension). */
export const MODE_DEFAULTS: Readonly<Record<CycleMode, Omit<CycleOptions, 'target' | 'scope' | 'mode'>>> = {
  prove: {
    planning: 'ask',
    reviewEvery: 'checkpoint',
    reviewSource: 'internal',
    commit: 'ask',
    checkpoint: true,
    maxCycles: 20,
    maxStuck: 3,
    maxRuntime: '120m',
    stallMinutes: 10,
    maxFailuresPerTarget: 3,
    deep: 'never',
    deepRollback: 'on-regression',
    deepRegressionGate: 'strict',
    deepSorryBudget: 1,
    deepTimeBudget: '10m',
    maxDeepPerCycle: 1,
    maxConsecutiveDeep: 2,
    deepScope: 'target',
    deepMaxFiles: 1,
    deepMaxLines: 120,
    repairPerSignature: 2,
    repairPerCycle: 6,
    batchSize: 1,
    maxDelegates: 2,
    falsification: 'salvage',
    outerLoop: false,
    inlineFallback: false,
  },
  autoprove: {
    planning: 'on',
    reviewEvery: 'checkpoint',
    reviewSource: 'internal',
    commit: 'auto',
    checkpoint: true,
    maxCycles: 20,
    maxStuck: 3,
    maxRuntime: '120m',
    stallMinutes: 10,
    maxFailuresPerTarget: 3,
    deep: 'stuck',
    deepRollback: 'on-regression',
    deepRegressionGate: 'strict',
    deepSorryBudget: 2,
    deepTimeBudget: '20m',
    maxDeepPerCycle: 1,
    maxConsecutiveDeep: 2,
    deepScope: 'target',
    deepMaxFiles: 2,
    deepMaxLines: 200,
    repairPerSignature: 2,
    repairPerCycle: 8,
    batchSize: 2,
    maxDelegates: 2,
    falsification: 'salvage',
    outerLoop: false,
    inlineFallback: false,
  },
};

function oneOf<T extends string>(
  name: string,
  v: string | undefined,
  allowed: readonly T[],
  d: T,
): T | string {
  if (v === undefined) return d;
  return (allowed as readonly string[]).includes(v)
    ? (v as T)
    : `--${name} must be one of ${allowed.join('|')}, got '${v}'`;
}

function posInt(name: string, v: string | number | undefined, d: number): number | string {
  if (v === undefined) return d;
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1 ? n : `--${name} must be a positive integer, got '${String(v)}'`;
}

/**
 * Resolves flags into {@link CycleOptions}. In autoprove the spec's coercions apply, each with a
 * warning: commit ask→auto, review-source external|both→internal, deep ask→stuck, deep-rollback
 * never→on-regression, deep-regression-gate off→strict.
 *
 * @example
 * ```ts
 * const r = resolveCycleOptions({ target: 'Demo.lean', scope: 'file', mode: 'autoprove', commit: 'ask' });
 * r.ok && r.warnings; // ['autoprove: --commit=ask coerced to auto (no human to ask)']
 * ```
 */
export function resolveCycleOptions(flags: CycleFlags): ResolvedOptions {
  if (flags.mode !== 'prove' && flags.mode !== 'autoprove') {
    return { ok: false, error: `--mode must be prove|autoprove, got '${flags.mode}'` };
  }
  const mode: CycleMode = flags.mode;
  const scope = ScopeSchema.safeParse(flags.scope);
  if (!scope.success) return { ok: false, error: `--scope must be one of ${ScopeSchema.options.join('|')}` };
  if (typeof flags.target !== 'string' || flags.target === '')
    return { ok: false, error: 'missing --target' };
  const d = MODE_DEFAULTS[mode];
  const warnings: string[] = [];
  let reviewEvery: ReviewEvery | string = d.reviewEvery;
  if (flags.reviewEvery !== undefined) {
    const v = String(flags.reviewEvery);
    reviewEvery =
      v === 'checkpoint' || v === 'never'
        ? v
        : /^\d+$/.test(v) && Number(v) >= 1
          ? Number(v)
          : `--review-every must be checkpoint|never|N, got '${v}'`;
  }
  const fields = {
    planning: oneOf('planning', flags.planning, ['on', 'off', 'ask'] as const, d.planning),
    reviewSource: oneOf(
      'review-source',
      flags.reviewSource,
      ['internal', 'external', 'both'] as const,
      d.reviewSource,
    ),
    commit: oneOf('commit', flags.commit, ['never', 'ask', 'auto'] as const, d.commit),
    deep: oneOf('deep', flags.deep, ['never', 'ask', 'stuck', 'always'] as const, d.deep),
    deepRollback: oneOf(
      'deep-rollback',
      flags.deepRollback,
      ['on-regression', 'on-no-improvement', 'always', 'never'] as const,
      d.deepRollback,
    ),
    deepRegressionGate: oneOf(
      'deep-regression-gate',
      flags.deepRegressionGate,
      ['strict', 'off'] as const,
      d.deepRegressionGate,
    ),
    maxCycles: posInt('max-cycles', flags.maxCycles, d.maxCycles),
    maxStuck: posInt('max-stuck-cycles', flags.maxStuck, d.maxStuck),
    stallMinutes: posInt('stall-minutes', flags.stallMinutes, d.stallMinutes),
    maxFailuresPerTarget: posInt(
      'max-failures-per-target',
      flags.maxFailuresPerTarget,
      d.maxFailuresPerTarget,
    ),
  };
  for (const v of [reviewEvery, ...Object.values(fields)]) {
    if (typeof v === 'string' && v.startsWith('--')) return { ok: false, error: v };
  }
  const maxRuntime = flags.maxRuntime ?? d.maxRuntime;
  if (parseDuration(maxRuntime) === null) {
    return { ok: false, error: `--max-total-runtime must match ^\\d+[mshMSH]?$, got '${maxRuntime}'` };
  }
  let { commit, reviewSource, deep, deepRollback, deepRegressionGate } = fields as {
    commit: CycleOptions['commit'];
    reviewSource: CycleOptions['reviewSource'];
    deep: CycleOptions['deep'];
    deepRollback: CycleOptions['deepRollback'];
    deepRegressionGate: CycleOptions['deepRegressionGate'];
  };
  if (mode === 'autoprove') {
    if (commit === 'ask') {
      commit = 'auto';
      warnings.push('autoprove: --commit=ask coerced to auto (no human to ask)');
    }
    if (reviewSource !== 'internal') {
      warnings.push(`autoprove: --review-source=${reviewSource} coerced to internal`);
      reviewSource = 'internal';
    }
    if (deep === 'ask') {
      deep = 'stuck';
      warnings.push('autoprove: --deep=ask coerced to stuck');
    }
    if (deepRollback === 'never') {
      deepRollback = 'on-regression';
      warnings.push('autoprove: --deep-rollback=never coerced to on-regression');
    }
    if (deepRegressionGate === 'off') {
      deepRegressionGate = 'strict';
      warnings.push('autoprove: --deep-regression-gate=off coerced to strict');
    }
  }
  return {
    ok: true,
    warnings,
    options: {
      target: flags.target,
      scope: scope.data as Scope,
      mode,
      planning: fields.planning as CycleOptions['planning'],
      reviewEvery: reviewEvery as ReviewEvery,
      reviewSource,
      commit,
      checkpoint: flags.checkpoint ?? d.checkpoint,
      maxCycles: fields.maxCycles as number,
      maxStuck: fields.maxStuck as number,
      maxRuntime,
      stallMinutes: fields.stallMinutes as number,
      maxFailuresPerTarget: fields.maxFailuresPerTarget as number,
      deep,
      deepRollback,
      deepRegressionGate,
      inlineFallback: flags.inlineFallback ?? d.inlineFallback,
      deepSorryBudget: d.deepSorryBudget,
      deepTimeBudget: d.deepTimeBudget,
      maxDeepPerCycle: d.maxDeepPerCycle,
      maxConsecutiveDeep: d.maxConsecutiveDeep,
      deepScope: d.deepScope,
      deepMaxFiles: d.deepMaxFiles,
      deepMaxLines: d.deepMaxLines,
      repairPerSignature: d.repairPerSignature,
      repairPerCycle: d.repairPerCycle,
      batchSize: d.batchSize,
      maxDelegates: d.maxDelegates,
      falsification: d.falsification,
      outerLoop: false,
    },
  };
}
