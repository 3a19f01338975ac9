/**
 * The review router of the outer loop (layer 1, pure; seed 002 § Review Router, lean4-contracts
 * §8): how a claim goes on after an inner-cycle run, read from the run's final handoff —
 * solved → proved; stuck (or stopped on max-stuck) → its `next_action`: `continue`/`deep`/`repair`
 * run the inner cycle again within the claim's budgets, `redraft` re-drafts the statement,
 * `golf` runs a golf pass, `stop` ends the claim; any other stop (a budget, an error) ends it.
 */
import type { Handoff } from '../../contract/index.js';
import type { SynthesisContext } from './types.js';

/** Where the router sends a claim after an inner-cycle run. */
export type Route =
  | { readonly to: 'proved' }
  | { readonly to: 'again'; readonly action: 'continue' | 'deep' | 'repair' }
  | { readonly to: 'redraft' }
  | { readonly to: 'golf' }
  | { readonly to: 'stop'; readonly reason: string }
  /** The run stopped without a blocker (a budget): the statement stays drafted, unproved. */
  | { readonly to: 'unproved'; readonly reason: string }
  /** The run stopped on an error (protocol, operational, custody). */
  | { readonly to: 'failed'; readonly reason: string };

function blockerText(h: Handoff): string {
  const what = h.blocker_class ?? h.blocker_kind ?? 'blocker';
  return `stuck at ${h.target}: ${what}${h.blocker_signature ? ` (${h.blocker_signature})` : ''}`;
}

/**
 * The route for an inner-cycle run's final handoff.
 *
 * @example
 * ```ts
 * routeOf({ ...stuckHandoff, next_action: 'redraft' }); // { to: 'redraft' }
 * routeOf({ ...solvedHandoff }); // { to: 'proved' }
 * ```
 */
export function routeOf(h: Handoff): Route {
  if (h.status === 'solved') return { to: 'proved' };
  const driven = h.status === 'stuck' || h.stop_reason === 'max-stuck';
  if (!driven) {
    const why = `inner cycle stopped: ${h.stop_reason ?? 'stopped'}${h.stop_detail ? ` — ${h.stop_detail}` : ''}`;
    return h.stop_reason === 'protocol-error' || h.stop_reason === 'operational-error'
      ? { to: 'failed', reason: why }
      : { to: 'unproved', reason: why };
  }
  switch (h.next_action) {
    case 'continue':
    case 'deep':
    case 'repair':
      return { to: 'again', action: h.next_action };
    case 'redraft':
      return { to: 'redraft' };
    case 'golf':
      return { to: 'golf' };
    default:
      return { to: 'stop', reason: `${blockerText(h)}; next_action stop` };
  }
}

/**
 * True when the session budget (`--max-total-runtime`) is spent at the context's latest `now`.
 *
 * @example
 * ```ts
 * runtimeExhausted(ctx); // false with maxRuntimeMs 0 (unlimited)
 * ```
 */
export function runtimeExhausted(ctx: Pick<SynthesisContext, 'input' | 'now'>): boolean {
  const max = ctx.input.maxRuntimeMs;
  return max > 0 && ctx.now - ctx.input.startedAt >= max;
}

/**
 * Session time left in ms (0 means unlimited; at least 1 ms while the budget is not spent).
 *
 * @example
 * ```ts
 * runtimeLeftMs({ input: { maxRuntimeMs: 60_000, startedAt: 0 }, now: 59_000 } as never); // 1000
 * ```
 */
export function runtimeLeftMs(ctx: Pick<SynthesisContext, 'input' | 'now'>): number {
  const max = ctx.input.maxRuntimeMs;
  if (max === 0) return 0;
  return Math.max(1, max - (ctx.now - ctx.input.startedAt));
}

/**
 * True while the active claim may run the inner cycle again: per-claim cycles and stuck cycles
 * left (`--max-cycles`, `--max-stuck-cycles`) and session time left.
 *
 * @example
 * ```ts
 * claimBudgetLeft(ctx); // false once the claim used --max-cycles cycles
 * ```
 */
export function claimBudgetLeft(ctx: SynthesisContext): boolean {
  const a = ctx.active;
  if (a === null) return false;
  return a.cyclesUsed < ctx.input.maxCycles && a.stuckUsed < ctx.input.maxStuck && !runtimeExhausted(ctx);
}

/**
 * Why the claim may not run again (for its report).
 *
 * @example
 * ```ts
 * budgetReason(ctx); // 'per-claim budget spent: cycles 3/3, stuck 1/3'
 * ```
 */
export function budgetReason(ctx: SynthesisContext): string {
  const a = ctx.active;
  if (runtimeExhausted(ctx)) return 'session runtime budget (--max-total-runtime) spent';
  return `per-claim budget spent: cycles ${a?.cyclesUsed ?? 0}/${ctx.input.maxCycles}, stuck ${a?.stuckUsed ?? 0}/${ctx.input.maxStuck}`;
}

/**
 * The route of the active claim's last inner-cycle run (a `stop` route when there is none).
 *
 * @example
 * ```ts
 * currentRoute(ctx).to; // 'redraft'
 * ```
 */
export function currentRoute(ctx: SynthesisContext): Route {
  const h = ctx.active?.lastHandoff ?? null;
  return h === null ? { to: 'stop', reason: 'no inner-cycle result' } : routeOf(h);
}
