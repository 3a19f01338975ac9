/**
 * Lifecycle rules of the gate machine (pure): the small context the machine carries (ids and
 * statuses — full records live in the shell's store and are linked by id), and the guards that
 * decide when a reservation may even be asked for and when a grant may be acted on.
 */

import type { Slot } from './grant-schema.js';
import type { Route } from './route-schema.js';

/** What the gate machine remembers. */
export interface GateLifecycleContext {
  readonly problem_id: string;
  readonly profile: { readonly ordinary_repairs: number; readonly gate_continuations: number };
  /** Whether the current round assesses a provisional result or a BLOCKED report. */
  readonly mode: 'provisional' | 'blocked';
  readonly round: number;
  readonly packet_id: string | null;
  readonly exact: { readonly ok: boolean; readonly stop: boolean; readonly codes: readonly string[] } | null;
  readonly assessment: { readonly assessment_id: string; readonly status: string } | null;
  readonly route: Route | null;
  readonly grant: { readonly grant_id: string; readonly slot: Slot } | null;
  readonly grants: readonly { readonly grant_id: string; readonly slot: Slot }[];
  readonly ordinary_repairs_used: number;
  readonly gate_continuations_used: number;
  readonly lead_handoffs: number;
  readonly hard_stop: string | null;
  readonly notes: readonly string[];
  readonly outcome: 'lead-review' | 'stopped' | null;
}

/** Input of the gate machine. */
export interface GateLifecycleInput {
  readonly problem_id: string;
  readonly profile?: { readonly ordinary_repairs: number; readonly gate_continuations: number };
  /** Slots already used according to the ledger (a restart resumes from the ledger, not from zero). */
  readonly used?: { readonly ordinary_repairs: number; readonly gate_continuations: number };
}

/**
 * The initial context (deterministic: no ids or clocks).
 *
 * @example
 * ```ts
 * initialLifecycleContext({ problem_id: 'p1' }).round; // 1
 * ```
 */
export function initialLifecycleContext(input: GateLifecycleInput): GateLifecycleContext {
  return {
    problem_id: input.problem_id,
    profile: input.profile ?? { ordinary_repairs: 1, gate_continuations: 1 },
    mode: 'provisional',
    round: 1,
    packet_id: null,
    exact: null,
    assessment: null,
    route: null,
    grant: null,
    grants: [],
    ordinary_repairs_used: input.used?.ordinary_repairs ?? 0,
    gate_continuations_used: input.used?.gate_continuations ?? 0,
    lead_handoffs: 0,
    hard_stop: null,
    notes: [],
    outcome: null,
  };
}

/**
 * True when the machine may ask the enforcer for a slot: the route is CONTINUATION_ELIGIBLE, the
 * evaluator actually ran (never on a failure path), no hard stop, no gate continuation used yet,
 * and some slot is left by the machine's own count (defence in depth beside the ledger).
 *
 * @example
 * ```ts
 * mayReserve({ ...ctx, route: 'CONTINUATION_ELIGIBLE', assessment: { assessment_id: 'a', status: 'EVALUATED' } });
 * ```
 */
export function mayReserve(ctx: GateLifecycleContext): boolean {
  return (
    ctx.route === 'CONTINUATION_ELIGIBLE' &&
    ctx.assessment?.status === 'EVALUATED' &&
    ctx.hard_stop === null &&
    ctx.lead_handoffs === 0 &&
    ctx.gate_continuations_used < ctx.profile.gate_continuations &&
    (ctx.ordinary_repairs_used < ctx.profile.ordinary_repairs ||
      ctx.gate_continuations_used < ctx.profile.gate_continuations)
  );
}

/**
 * True when a reservation outcome may be acted on: granted (or replayed), for the slot the
 * profile order expects (ordinary repair first), within the machine's count.
 *
 * @example
 * ```ts
 * grantAcceptable(ctx, { outcome: 'granted', grant_id: 'g', slot: 'ordinary-repair', reason: null });
 * ```
 */
export function grantAcceptable(
  ctx: GateLifecycleContext,
  out: { readonly outcome: string; readonly grant_id: string | null; readonly slot: Slot | null },
): boolean {
  if ((out.outcome !== 'granted' && out.outcome !== 'replayed') || out.grant_id === null) return false;
  if (out.slot === 'ordinary-repair') return ctx.ordinary_repairs_used < ctx.profile.ordinary_repairs;
  if (out.slot === 'gate-continuation') {
    return (
      ctx.ordinary_repairs_used >= ctx.profile.ordinary_repairs &&
      ctx.gate_continuations_used < ctx.profile.gate_continuations
    );
  }
  return false;
}
