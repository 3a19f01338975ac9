/**
 * Resolution of the cycle's flags (layer 1, pure): the spec's prove/autoprove defaults
 * (lean4-contracts §8), the startup validation of every flag (a usage error naming the flag and
 * its allowed values, never a throw), and the autoprove coercions, each reported as a warning.
 */
import type { Scope } from '../contract/index.js';
import { ScopeSchema } from '../contract/index.js';
import type { CycleMode, CycleOptions, ReviewEvery } from '../cycle/types.js';
import { SANDBOX_MODES, SANDBOX_NETWORKS, type SandboxMode, type SandboxNetwork } from '../sandbox/mode.js';
import { parseDuration } from '../tracker/duration.js';

/**
 * Raw flags as the CLI (or a host) passes them; anything omitted takes the mode's default.
 * Numeric flags take a number or its decimal text (`'3'`); durations take the tracker syntax
 * (`^\d+[mshMSH]?$`, bare = minutes).
 */
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
  /** `--deep never|ask|stuck|always` (prove never, autoprove stuck; ask → stuck in autoprove). */
  readonly deep?: string | undefined;
  /** `--deep-rollback on-regression|on-no-improvement|always|never` (never: prove only). */
  readonly deepRollback?: string | undefined;
  /** `--deep-regression-gate strict|off` (off: prove only). */
  readonly deepRegressionGate?: string | undefined;
  /** `--deep-sorry-budget N` (prove 1, autoprove 2). */
  readonly deepSorryBudget?: string | number | undefined;
  /** `--deep-time-budget D`, advisory (prove 10m, autoprove 20m). */
  readonly deepTimeBudget?: string | undefined;
  /** `--max-deep-per-cycle N` (1). */
  readonly maxDeepPerCycle?: string | number | undefined;
  /** `--max-consecutive-deep N`, alias `--max-consecutive-deep-cycles` (2). */
  readonly maxConsecutiveDeep?: string | number | undefined;
  /** `--deep-scope target|cross-file` (target). */
  readonly deepScope?: string | undefined;
  /** `--deep-max-files N` (prove 1, autoprove 2). */
  readonly deepMaxFiles?: string | number | undefined;
  /** `--deep-max-lines N` (prove 120, autoprove 200). */
  readonly deepMaxLines?: string | number | undefined;
  /** `--repair-budget-per-signature N` (2). */
  readonly repairPerSignature?: string | number | undefined;
  /** `--repair-budget-per-cycle N` (prove 6, autoprove 8). */
  readonly repairPerCycle?: string | number | undefined;
  /** `--batch-size N`, advisory (prove 1, autoprove 2). */
  readonly batchSize?: string | number | undefined;
  /** `--max-delegates N` (2). */
  readonly maxDelegates?: string | number | undefined;
  /** `--falsification salvage|negate|off` (salvage; negate → salvage in autoprove). */
  readonly falsification?: string | undefined;
  /** Not a flag: set by the synthesis loop when it drives the cycle (default false). */
  readonly outerLoop?: boolean | undefined;
  readonly inlineFallback?: boolean | undefined;
  /** `--sandbox auto|on|off` (auto): see {@link resolveSandboxFlags}. */
  readonly sandbox?: string | undefined;
  /** `--sandbox-network deny|allow` (deny). */
  readonly sandboxNetwork?: string | undefined;
}

/** Resolution outcome: options plus coercion warnings, or the first usage error. */
export type ResolvedOptions =
  | { readonly ok: true; readonly options: CycleOptions; readonly warnings: readonly string[] }
  | { readonly ok: false; readonly error: string };

/**
 * Defaults per mode (lean4-contracts §8: deep never/stuck; sorry-budget 1/2; time-budget
 * 10m/20m; per-cycle 1/1; consecutive 2/2; scope target; max-files 1/2; max-lines 120/200;
 * rollback on-regression; gate strict; repair per signature 2/2, per cycle 6/8; batch-size 1/2;
 * max-delegates 2).
 *
 * @example
 * ```ts
 * MODE_DEFAULTS.autoprove.batchSize; // 2
 * MODE_DEFAULTS.prove.deep;          // 'never'
 * ```
 */
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

/** The allowed values of every enumerated flag, in the order the help text lists them. */
const ENUMS = {
  planning: ['on', 'off', 'ask'],
  'review-source': ['internal', 'external', 'both'],
  commit: ['never', 'ask', 'auto'],
  deep: ['never', 'ask', 'stuck', 'always'],
  'deep-rollback': ['on-regression', 'on-no-improvement', 'always', 'never'],
  'deep-regression-gate': ['strict', 'off'],
  'deep-scope': ['target', 'cross-file'],
  falsification: ['salvage', 'negate', 'off'],
} as const;

const MAX_SHOWN = 60;
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;

/**
 * A flag value as shown in an error: single-quoted text with control characters as `\uXXXX`
 * and long values cut; a non-text value by its type (never its `toString`, which a hostile
 * object could make throw).
 */
function shown(v: unknown): string {
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (typeof v !== 'string') return `(${v === null ? 'null' : typeof v})`;
  const cut = v.length > MAX_SHOWN ? `${v.slice(0, MAX_SHOWN)}…` : v;
  const safe = cut.replace(CONTROLS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return `'${safe}'`;
}

/** A usage error (a value, never thrown). */
class Usage {
  constructor(readonly message: string) {}
}

function oneOf<K extends keyof typeof ENUMS>(
  name: K,
  v: unknown,
  d: (typeof ENUMS)[K][number],
): (typeof ENUMS)[K][number] | Usage {
  if (v === undefined) return d;
  const allowed: readonly string[] = ENUMS[name];
  return typeof v === 'string' && allowed.includes(v)
    ? (v as (typeof ENUMS)[K][number])
    : new Usage(`--${name} must be one of ${allowed.join('|')}, got ${shown(v)}`);
}

function posInt(name: string, v: unknown, d: number): number | Usage {
  if (v === undefined) return d;
  const n = typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : Number.NaN;
  return Number.isSafeInteger(n) && n >= 1
    ? n
    : new Usage(`--${name} must be a positive integer, got ${shown(v)}`);
}

function bool(name: string, v: unknown, d: boolean): boolean | Usage {
  if (v === undefined) return d;
  return typeof v === 'boolean' ? v : new Usage(`${name} must be a boolean, got ${shown(v)}`);
}

/** A tracker duration; `positive`: zero (unlimited) and the empty text are refused. */
function duration(name: string, v: unknown, d: string, positive: boolean): string | Usage {
  if (v === undefined) return d;
  const seconds = typeof v === 'string' ? parseDuration(v) : null;
  if (seconds === null || (positive && (seconds === 0 || v === ''))) {
    return new Usage(
      `--${name} must be ${positive ? 'a positive duration' : 'a duration'} matching ^\\d+[mshMSH]?$ (s|m|h, bare = minutes), got ${shown(v)}`,
    );
  }
  return v as string;
}

/** `--review-every checkpoint|never|N`. */
function reviewEveryOf(v: unknown, d: ReviewEvery): ReviewEvery | Usage {
  if (v === undefined) return d;
  if (v === 'checkpoint' || v === 'never') return v;
  const n = posInt('review-every', v, 1);
  return n instanceof Usage ? new Usage(`--review-every must be checkpoint|never|N, got ${shown(v)}`) : n;
}

/**
 * The autoprove coercions (lean4-contracts §8), in the order they are reported: each is the
 * option, the value autoprove refuses, the value it becomes and the warning printed at startup.
 */
const COERCIONS = [
  ['commit', 'ask', 'auto', 'autoprove: --commit=ask coerced to auto (no human to ask)'],
  ['reviewSource', 'external', 'internal', 'autoprove: --review-source=external coerced to internal'],
  ['reviewSource', 'both', 'internal', 'autoprove: --review-source=both coerced to internal'],
  ['deep', 'ask', 'stuck', 'autoprove: --deep=ask coerced to stuck (no human to ask)'],
  [
    'deepRollback',
    'never',
    'on-regression',
    'autoprove: --deep-rollback=never coerced to on-regression (never is prove-only)',
  ],
  [
    'deepRegressionGate',
    'off',
    'strict',
    'autoprove: --deep-regression-gate=off coerced to strict (off is prove-only)',
  ],
  [
    'falsification',
    'negate',
    'salvage',
    'autoprove: --falsification=negate coerced to salvage (autoprove follows the default policy: counterexample + salvage only)',
  ],
] as const;

/**
 * Resolves flags into {@link CycleOptions}: every flag is validated at startup (the first bad
 * one is returned as a usage error naming the flag and its allowed values — never thrown), the
 * mode's defaults fill the rest, and in autoprove the spec's coercions apply, each with a
 * warning: commit ask→auto, review-source external|both→internal, deep ask→stuck, deep-rollback
 * never→on-regression and deep-regression-gate off→strict (both prove-only), falsification
 * negate→salvage.
 *
 * @example
 * ```ts
 * const r = resolveCycleOptions({ target: 'Demo.lean', scope: 'file', mode: 'autoprove', commit: 'ask' });
 * r.ok && r.warnings; // ['autoprove: --commit=ask coerced to auto (no human to ask)']
 * const bad = resolveCycleOptions({ target: 'Demo.lean', scope: 'file', mode: 'prove', deepScope: 'repo' });
 * bad.ok || bad.error; // "--deep-scope must be one of target|cross-file, got 'repo'"
 * ```
 */
export function resolveCycleOptions(flags: CycleFlags): ResolvedOptions {
  const f = flags as unknown as Readonly<Record<keyof CycleFlags, unknown>>;
  if (f.mode !== 'prove' && f.mode !== 'autoprove') {
    return { ok: false, error: `--mode must be prove|autoprove, got ${shown(f.mode)}` };
  }
  const mode: CycleMode = f.mode;
  const scope = ScopeSchema.safeParse(f.scope);
  if (!scope.success) {
    return {
      ok: false,
      error: `--scope must be one of ${ScopeSchema.options.join('|')}, got ${shown(f.scope)}`,
    };
  }
  if (typeof f.target !== 'string' || f.target === '') return { ok: false, error: 'missing --target' };
  const d = MODE_DEFAULTS[mode];
  const reviewEvery = reviewEveryOf(f.reviewEvery, d.reviewEvery);
  // in the order of the help text: the first bad flag is the one reported
  const fields = {
    planning: oneOf('planning', f.planning, d.planning),
    reviewEvery,
    reviewSource: oneOf('review-source', f.reviewSource, d.reviewSource),
    commit: oneOf('commit', f.commit, d.commit),
    checkpoint: bool('checkpoint', f.checkpoint, d.checkpoint),
    maxCycles: posInt('max-cycles', f.maxCycles, d.maxCycles),
    maxStuck: posInt('max-stuck-cycles', f.maxStuck, d.maxStuck),
    maxRuntime: duration('max-total-runtime', f.maxRuntime, d.maxRuntime, false),
    stallMinutes: posInt('stall-minutes', f.stallMinutes, d.stallMinutes),
    maxFailuresPerTarget: posInt('max-failures-per-target', f.maxFailuresPerTarget, d.maxFailuresPerTarget),
    deep: oneOf('deep', f.deep, d.deep),
    deepSorryBudget: posInt('deep-sorry-budget', f.deepSorryBudget, d.deepSorryBudget),
    deepTimeBudget: duration('deep-time-budget', f.deepTimeBudget, d.deepTimeBudget, true),
    maxDeepPerCycle: posInt('max-deep-per-cycle', f.maxDeepPerCycle, d.maxDeepPerCycle),
    maxConsecutiveDeep: posInt('max-consecutive-deep', f.maxConsecutiveDeep, d.maxConsecutiveDeep),
    deepScope: oneOf('deep-scope', f.deepScope, d.deepScope),
    deepMaxFiles: posInt('deep-max-files', f.deepMaxFiles, d.deepMaxFiles),
    deepMaxLines: posInt('deep-max-lines', f.deepMaxLines, d.deepMaxLines),
    deepRegressionGate: oneOf('deep-regression-gate', f.deepRegressionGate, d.deepRegressionGate),
    deepRollback: oneOf('deep-rollback', f.deepRollback, d.deepRollback),
    batchSize: posInt('batch-size', f.batchSize, d.batchSize),
    maxDelegates: posInt('max-delegates', f.maxDelegates, d.maxDelegates),
    falsification: oneOf('falsification', f.falsification, d.falsification),
    repairPerSignature: posInt('repair-budget-per-signature', f.repairPerSignature, d.repairPerSignature),
    repairPerCycle: posInt('repair-budget-per-cycle', f.repairPerCycle, d.repairPerCycle),
    outerLoop: bool('outerLoop', f.outerLoop, d.outerLoop),
    inlineFallback: bool('inlineFallback', f.inlineFallback, d.inlineFallback),
  };
  for (const v of Object.values(fields)) {
    if (v instanceof Usage) return { ok: false, error: v.message };
  }
  const resolved = { ...fields } as unknown as Omit<CycleOptions, 'target' | 'scope' | 'mode'>;
  const options: Record<string, unknown> = {
    target: f.target,
    scope: scope.data as Scope,
    mode,
    ...resolved,
  };
  const warnings: string[] = [];
  if (mode === 'autoprove') {
    for (const [key, from, to, warning] of COERCIONS) {
      if (options[key] === from) {
        options[key] = to;
        warnings.push(warning);
      }
    }
  }
  return { ok: true, warnings, options: options as unknown as CycleOptions };
}

/** The sandbox flags resolved, or the usage error. */
export type ResolvedSandbox =
  | { readonly ok: true; readonly sandbox: SandboxMode; readonly network: SandboxNetwork }
  | { readonly ok: false; readonly error: string };

/**
 * Validates `--sandbox auto|on|off` (default auto) and `--sandbox-network deny|allow` (default
 * deny) (pure; never throws).
 *
 * @example
 * ```ts
 * resolveSandboxFlags({ sandbox: 'on' }); // { ok: true, sandbox: 'on', network: 'deny' }
 * resolveSandboxFlags({ sandbox: 'yes' }); // { ok: false, error: "--sandbox must be auto|on|off, got 'yes'" }
 * ```
 */
export function resolveSandboxFlags(flags: {
  readonly sandbox?: unknown;
  readonly sandboxNetwork?: unknown;
}): ResolvedSandbox {
  const sandbox = SANDBOX_MODES.find((m) => m === (flags.sandbox ?? 'auto'));
  if (sandbox === undefined)
    return { ok: false, error: `--sandbox must be ${SANDBOX_MODES.join('|')}, got ${shown(flags.sandbox)}` };
  const network = SANDBOX_NETWORKS.find((m) => m === (flags.sandboxNetwork ?? 'deny'));
  if (network === undefined) {
    return {
      ok: false,
      error: `--sandbox-network must be ${SANDBOX_NETWORKS.join('|')}, got ${shown(flags.sandboxNetwork)}`,
    };
  }
  return { ok: true, sandbox, network };
}
