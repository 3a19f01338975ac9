/**
 * The cycle tracker's counter logic (layer 1, pure): init, tick, can-deep, deep, knowledge-search
 * budget, claims and status. The clock is injected (`nowMs`); nothing here does I/O. The CLI
 * persists these states; the cycle machine uses them directly.
 */
import { elapsedDisplay, parseDuration } from './duration.js';
import { TRACKER_SCHEMA, type TrackerLimits, type TrackerState } from './schema.js';

/** A limit that a tick found exceeded. */
export type TrackerViolation = 'max-cycles' | 'max-stuck' | 'max-runtime';
/** Why `can-deep` denied. */
export type DeepDenial = 'max-deep-per-cycle' | 'max-consecutive-deep' | 'max-runtime';
/** Why `kw-search-can` denied. */
export type SearchDenial = 'max-knowledge-search-per-cycle' | 'max-runtime';

/** Options of {@link initTracker}; strings are accepted as the CLI gives them. */
export interface TrackerInitOptions {
  readonly maxCycles: number | string | undefined;
  readonly maxStuck: number | string | undefined;
  readonly maxRuntime?: string | number | undefined;
  readonly maxDeepPerCycle?: number | string | undefined;
  readonly maxConsecutiveDeep?: number | string | undefined;
  readonly maxKnowledgeSearchPerCycle?: number | string | undefined;
}

/** Defaults of the optional limits (seed 002 § Session Tracking, reference tracker). */
export const TRACKER_DEFAULTS = {
  maxDeepPerCycle: 1,
  maxConsecutiveDeep: 2,
  maxKnowledgeSearchPerCycle: 3,
} as const;

/** Result of a checked initialisation. */
export type InitResult = { ok: true; state: TrackerState } | { ok: false; error: string };

function positiveInt(name: string, v: number | string | undefined, fallback?: number): number | string {
  if (v === undefined) {
    if (fallback === undefined) return `missing required --${name}`;
    return fallback;
  }
  const n = typeof v === 'number' ? v : /^\d+$/.test(v) ? Number(v) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < 1) return `--${name} must be a positive integer, got '${String(v)}'`;
  return n;
}

/**
 * Creates a session. Validates every limit (positive integers; duration syntax
 * `^\d+[mshMSH]?$`, bare = minutes, empty/0 = unlimited) and never throws.
 *
 * @example
 * ```ts
 * const r = initTracker({ maxCycles: 20, maxStuck: 3, maxRuntime: '120m' }, 'sess-1', Date.now());
 * if (r.ok) r.state.limits.max_runtime_seconds; // 7200
 * ```
 */
export function initTracker(options: TrackerInitOptions, sessionId: string, nowMs: number): InitResult {
  const fields: [string, number | string][] = [
    ['max-cycles', positiveInt('max-cycles', options.maxCycles)],
    ['max-stuck', positiveInt('max-stuck', options.maxStuck)],
    ['max-deep-per-cycle', positiveInt('max-deep-per-cycle', options.maxDeepPerCycle, 1)],
    ['max-consecutive-deep', positiveInt('max-consecutive-deep', options.maxConsecutiveDeep, 2)],
    [
      'max-knowledge-search-per-cycle',
      positiveInt('max-knowledge-search-per-cycle', options.maxKnowledgeSearchPerCycle, 3),
    ],
  ];
  for (const [, v] of fields) if (typeof v === 'string') return { ok: false, error: v };
  const rt = options.maxRuntime === undefined ? 0 : parseDuration(String(options.maxRuntime));
  if (rt === null) {
    return {
      ok: false,
      error: `--max-runtime must match ^\\d+[mshMSH]?$ (bare = minutes), got '${String(options.maxRuntime)}'`,
    };
  }
  if (!/^[A-Za-z0-9._-]{1,128}$/.test(sessionId))
    return { ok: false, error: `bad session id '${sessionId}'` };
  const [c, s, d, cd, kw] = fields.map(([, v]) => v as number) as [number, number, number, number, number];
  const limits: TrackerLimits = {
    max_cycles: c,
    max_stuck: s,
    max_runtime_seconds: rt,
    max_deep_per_cycle: d,
    max_consecutive_deep: cd,
    max_knowledge_search_per_cycle: kw,
  };
  return {
    ok: true,
    state: {
      schema: TRACKER_SCHEMA,
      session_id: sessionId,
      limits,
      started_at_ms: Math.max(0, Math.floor(nowMs)),
      claim_active: false,
      cycles: 0,
      consecutive_stuck: 0,
      deep_this_cycle: 0,
      deep_used_this_cycle: false,
      consecutive_deep_cycles: 0,
      kw_search_this_cycle: 0,
      cycles_total: 0,
      stuck_cycles_total: 0,
      deep_total: 0,
      kw_search_total: 0,
      claims_attempted: 0,
    },
  };
}

/**
 * Whole seconds elapsed since the session started.
 *
 * @example
 * ```ts
 * elapsedSeconds(state, state.started_at_ms + 61_000); // 61
 * ```
 */
export function elapsedSeconds(state: TrackerState, nowMs: number): number {
  return Math.max(0, Math.floor((nowMs - state.started_at_ms) / 1000));
}

function runtimeExceeded(state: TrackerState, nowMs: number): boolean {
  const max = state.limits.max_runtime_seconds;
  return max > 0 && elapsedSeconds(state, nowMs) >= max;
}

/** Result of a {@link tick}. */
export interface TickResult {
  readonly state: TrackerState;
  readonly result: 'ok' | 'LIMIT_REACHED';
  readonly violations: readonly TrackerViolation[];
}

/**
 * The cycle-boundary update, as one atomic step: cycles +1 (and the session total), the
 * consecutive-stuck counter +1 or reset, the consecutive-deep counter +1 if deep was used this
 * cycle else reset, the per-cycle deep and search counters reset, then every limit checked
 * (violations in the order max-cycles, max-stuck, max-runtime).
 *
 * @example
 * ```ts
 * const t = tick(state, true, now);
 * if (t.result === 'LIMIT_REACHED') stop(t.violations); // e.g. ['max-stuck']
 * ```
 */
export function tick(state: TrackerState, stuck: boolean, nowMs: number): TickResult {
  const next: TrackerState = {
    ...state,
    cycles: state.cycles + 1,
    cycles_total: state.cycles_total + 1,
    consecutive_stuck: stuck ? state.consecutive_stuck + 1 : 0,
    stuck_cycles_total: state.stuck_cycles_total + (stuck ? 1 : 0),
    consecutive_deep_cycles: state.deep_used_this_cycle ? state.consecutive_deep_cycles + 1 : 0,
    deep_this_cycle: 0,
    deep_used_this_cycle: false,
    kw_search_this_cycle: 0,
  };
  const violations: TrackerViolation[] = [];
  if (next.cycles >= next.limits.max_cycles) violations.push('max-cycles');
  if (next.consecutive_stuck >= next.limits.max_stuck) violations.push('max-stuck');
  if (runtimeExceeded(next, nowMs)) violations.push('max-runtime');
  return { state: next, result: violations.length === 0 ? 'ok' : 'LIMIT_REACHED', violations };
}

/** A permission verdict of {@link canDeep} / {@link kwSearchCan}. */
export type Permission<R> = { readonly ok: true } | { readonly ok: false; readonly reason: R };

/**
 * Whether one more deep invocation is allowed; reasons checked in the spec's order:
 * max-deep-per-cycle, max-consecutive-deep, max-runtime.
 *
 * @example
 * ```ts
 * const p = canDeep(state, now);
 * if (!p.ok && p.reason !== 'max-runtime') skipDeepWithoutMarkingStuck();
 * ```
 */
export function canDeep(state: TrackerState, nowMs: number): Permission<DeepDenial> {
  if (state.deep_this_cycle >= state.limits.max_deep_per_cycle)
    return { ok: false, reason: 'max-deep-per-cycle' };
  if (state.consecutive_deep_cycles >= state.limits.max_consecutive_deep)
    return { ok: false, reason: 'max-consecutive-deep' };
  if (runtimeExceeded(state, nowMs)) return { ok: false, reason: 'max-runtime' };
  return { ok: true };
}

/**
 * Records one deep invocation (per-cycle and session totals).
 *
 * @example
 * ```ts
 * if (canDeep(s, now).ok) s = recordDeep(s);
 * ```
 */
export function recordDeep(state: TrackerState): TrackerState {
  return {
    ...state,
    deep_this_cycle: state.deep_this_cycle + 1,
    deep_used_this_cycle: true,
    deep_total: state.deep_total + 1,
  };
}

/**
 * Whether one more knowledge search is allowed this cycle; reasons in order:
 * max-knowledge-search-per-cycle, max-runtime.
 *
 * @example
 * ```ts
 * kwSearchCan(state, now); // { ok: false, reason: 'max-knowledge-search-per-cycle' } after 3
 * ```
 */
export function kwSearchCan(state: TrackerState, nowMs: number): Permission<SearchDenial> {
  if (state.kw_search_this_cycle >= state.limits.max_knowledge_search_per_cycle)
    return { ok: false, reason: 'max-knowledge-search-per-cycle' };
  if (runtimeExceeded(state, nowMs)) return { ok: false, reason: 'max-runtime' };
  return { ok: true };
}

/**
 * Records one knowledge search.
 *
 * @example
 * ```ts
 * s = recordKwSearch(s);
 * ```
 */
export function recordKwSearch(state: TrackerState): TrackerState {
  return {
    ...state,
    kw_search_this_cycle: state.kw_search_this_cycle + 1,
    kw_search_total: state.kw_search_total + 1,
  };
}

/**
 * Remaining knowledge searches this cycle (0 when the runtime is exhausted).
 *
 * @example
 * ```ts
 * kwSearchRemaining(state, now); // 3 at the start of a cycle with the default limit
 * ```
 */
export function kwSearchRemaining(state: TrackerState, nowMs: number): number {
  if (runtimeExceeded(state, nowMs)) return 0;
  return Math.max(0, state.limits.max_knowledge_search_per_cycle - state.kw_search_this_cycle);
}

/** A refusal of a claim operation. */
export type ClaimResult = { ok: true; state: TrackerState } | { ok: false; error: string };

/**
 * Starts a claim (autoformalize): refused when one is already active.
 *
 * @example
 * ```ts
 * const r = startClaim(state); // { ok: false, error: 'a claim is already active' } twice in a row
 * ```
 */
export function startClaim(state: TrackerState): ClaimResult {
  if (state.claim_active) return { ok: false, error: 'a claim is already active' };
  return { ok: true, state: { ...state, claim_active: true } };
}

/**
 * Ends the active claim: claims_attempted +1 and the per-claim counters reset (session totals
 * are kept). Refused when no claim is active.
 *
 * @example
 * ```ts
 * const r = resetClaim(state);
 * ```
 */
export function resetClaim(state: TrackerState): ClaimResult {
  if (!state.claim_active) return { ok: false, error: 'no claim is active' };
  return {
    ok: true,
    state: {
      ...state,
      claim_active: false,
      claims_attempted: state.claims_attempted + 1,
      cycles: 0,
      consecutive_stuck: 0,
      deep_this_cycle: 0,
      deep_used_this_cycle: false,
      consecutive_deep_cycles: 0,
      kw_search_this_cycle: 0,
    },
  };
}

/** The ordered `key=value` pairs of a status report. */
export type StatusPairs = ReadonlyArray<readonly [string, string]>;

/**
 * The full status: every counter, elapsed seconds and `elapsed_display`; claims_attempted
 * includes the claim in progress.
 *
 * @example
 * ```ts
 * formatPairs(trackerStatus(state, now)); // 'session_id=…\nclaim_active=false\ncycles=2/20\n…'
 * ```
 */
export function trackerStatus(state: TrackerState, nowMs: number): StatusPairs {
  const l = state.limits;
  const el = elapsedSeconds(state, nowMs);
  return [
    ['session_id', state.session_id],
    ['claim_active', String(state.claim_active)],
    ['cycles', `${state.cycles}/${l.max_cycles}`],
    ['consecutive_stuck', `${state.consecutive_stuck}/${l.max_stuck}`],
    ['elapsed_seconds', String(el)],
    ['elapsed_display', elapsedDisplay(el, l.max_runtime_seconds)],
    ['deep_this_cycle', `${state.deep_this_cycle}/${l.max_deep_per_cycle}`],
    ['consecutive_deep_cycles', `${state.consecutive_deep_cycles}/${l.max_consecutive_deep}`],
    ['kw_search_this_cycle', `${state.kw_search_this_cycle}/${l.max_knowledge_search_per_cycle}`],
    ['cycles_total', String(state.cycles_total)],
    ['stuck_cycles_total', String(state.stuck_cycles_total)],
    ['deep_total', String(state.deep_total)],
    ['kw_search_total', String(state.kw_search_total)],
    ['claims_attempted', String(state.claims_attempted + (state.claim_active ? 1 : 0))],
  ];
}

/**
 * The counter lines printed after a tick, in the reference tracker's order and with its keys:
 * `cycles`, `consecutive_stuck`, `elapsed_seconds`, `elapsed_display`, `deep_this_cycle`,
 * `consecutive_deep_cycles`, `kw_search_this_cycle` (`n/max` forms; the per-cycle counters are
 * the fresh cycle's, so `0/max`).
 *
 * @example
 * ```ts
 * tickPairs(t.state, now); // [['cycles','3/20'], ['consecutive_stuck','0/3'], ['elapsed_seconds','42'], …]
 * ```
 */
export function tickPairs(state: TrackerState, nowMs: number): StatusPairs {
  const l = state.limits;
  const el = elapsedSeconds(state, nowMs);
  return [
    ['cycles', `${state.cycles}/${l.max_cycles}`],
    ['consecutive_stuck', `${state.consecutive_stuck}/${l.max_stuck}`],
    ['elapsed_seconds', String(el)],
    ['elapsed_display', elapsedDisplay(el, l.max_runtime_seconds)],
    ['deep_this_cycle', `${state.deep_this_cycle}/${l.max_deep_per_cycle}`],
    ['consecutive_deep_cycles', `${state.consecutive_deep_cycles}/${l.max_consecutive_deep}`],
    ['kw_search_this_cycle', `${state.kw_search_this_cycle}/${l.max_knowledge_search_per_cycle}`],
  ];
}

/**
 * The lines of a `can-deep` answer, as the reference prints them: `result=ok|denied`, `reason=…`
 * when denied, then `deep_this_cycle`, `consecutive_deep_cycles` (`n/max`) and `elapsed_seconds`.
 *
 * @example
 * ```ts
 * canDeepPairs(state, now); // [['result','ok'], ['deep_this_cycle','0/1'], ['consecutive_deep_cycles','0/2'], ['elapsed_seconds','5']]
 * ```
 */
export function canDeepPairs(state: TrackerState, nowMs: number): StatusPairs {
  const l = state.limits;
  return [
    ...permissionPairs(canDeep(state, nowMs)),
    ['deep_this_cycle', `${state.deep_this_cycle}/${l.max_deep_per_cycle}`],
    ['consecutive_deep_cycles', `${state.consecutive_deep_cycles}/${l.max_consecutive_deep}`],
    ['elapsed_seconds', String(elapsedSeconds(state, nowMs))],
  ];
}

/**
 * The lines of a `kw-search-can` answer, as the reference prints them: `result=ok|denied`,
 * `reason=…` when denied, then `kw_search_this_cycle` (`n/max`) and `elapsed_seconds`.
 *
 * @example
 * ```ts
 * kwSearchCanPairs(state, now); // [['result','ok'], ['kw_search_this_cycle','0/3'], ['elapsed_seconds','5']]
 * ```
 */
export function kwSearchCanPairs(state: TrackerState, nowMs: number): StatusPairs {
  return [
    ...permissionPairs(kwSearchCan(state, nowMs)),
    ['kw_search_this_cycle', `${state.kw_search_this_cycle}/${state.limits.max_knowledge_search_per_cycle}`],
    ['elapsed_seconds', String(elapsedSeconds(state, nowMs))],
  ];
}

function permissionPairs(p: Permission<string>): StatusPairs {
  return p.ok
    ? [['result', 'ok']]
    : [
        ['result', 'denied'],
        ['reason', p.reason],
      ];
}

/**
 * Formats pairs as `key=value` lines (with a trailing newline).
 *
 * @example
 * ```ts
 * formatPairs([['result', 'ok']]); // 'result=ok\n'
 * ```
 */
export function formatPairs(pairs: StatusPairs): string {
  return pairs.map(([k, v]) => `${k}=${v}\n`).join('');
}
