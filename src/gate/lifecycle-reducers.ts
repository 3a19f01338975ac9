/**
 * The gate lifecycle's guards and reducers (layer 1, pure): the predicates `machines/gate.ts`
 * routes on and the reducers its `assign` actions apply — `(context, actor output) => context
 * update`. The reservation rules themselves (`mayReserve`, `grantAcceptable`) live with the
 * context in `./lifecycle.ts`; the machine only wires all of them to states.
 */

import type { GateLifecycleContext } from './lifecycle.js';
import type {
  AssessOutput,
  CheckOutput,
  CollectOutput,
  ContinueOutput,
  GateMachineOutput,
  ReserveOutput,
  RouteOutput,
} from './lifecycle-actors.js';

/** A partial context: what one reducer changes. */
export type GateUpdate = Partial<GateLifecycleContext>;

/**
 * True when the exact checks found a hard stop code (the round ends at `stopped`).
 *
 * @example
 * ```ts
 * exactStop({ ok: false, stop: true, codes: ['forbidden_path'] }); // true
 * ```
 */
export function exactStop(out: CheckOutput): boolean {
  return out.stop;
}

/**
 * True when the exact checks failed (the round goes straight to routing, without an evaluator).
 *
 * @example
 * ```ts
 * exactFailed({ ok: false, stop: false, codes: ['tests_failed'] }); // true
 * ```
 */
export function exactFailed(out: CheckOutput): boolean {
  return !out.ok;
}

/**
 * True when the route ends the gate at `stopped`: the route is STOP, or a hard stop arrived.
 *
 * @example
 * ```ts
 * routeStops(ctx, { route_id: 'r', route: 'STOP' }); // true
 * ```
 */
export function routeStops(c: Pick<GateLifecycleContext, 'hard_stop'>, out: RouteOutput): boolean {
  return out.route === 'STOP' || c.hard_stop !== null;
}

/**
 * True when the grant just validated was the ordinary repair (the gate collects evidence again;
 * after a gate continuation the lead reviews).
 *
 * @example
 * ```ts
 * afterOrdinaryRepair({ grant: { grant_id: 'g', slot: 'ordinary-repair' } }); // true
 * ```
 */
export function afterOrdinaryRepair(c: Pick<GateLifecycleContext, 'grant'>): boolean {
  return c.grant?.slot === 'ordinary-repair';
}

/**
 * The round assesses a BLOCKED report.
 *
 * @example
 * ```ts
 * markBlocked().mode; // 'blocked'
 * ```
 */
export function markBlocked(): GateUpdate {
  return { mode: 'blocked' };
}

/**
 * Remembers the evidence packet the collector stored.
 *
 * @example
 * ```ts
 * recordPacket({ packet_id: 'pkt-1' }).packet_id; // 'pkt-1'
 * ```
 */
export function recordPacket(out: CollectOutput): GateUpdate {
  return { packet_id: out.packet_id };
}

/**
 * Remembers the exact checks' verdict (a copy: the context never aliases an actor's output).
 *
 * @example
 * ```ts
 * recordExact({ ok: true, stop: false, codes: [] }).exact; // { ok: true, stop: false, codes: [] }
 * ```
 */
export function recordExact(out: CheckOutput): GateUpdate {
  return { exact: { ok: out.ok, stop: out.stop, codes: [...out.codes] } };
}

/**
 * Remembers the assessment's id and status.
 *
 * @example
 * ```ts
 * recordAssessment({ assessment_id: 'a-1', status: 'EVALUATED' }).assessment?.status; // 'EVALUATED'
 * ```
 */
export function recordAssessment(out: AssessOutput): GateUpdate {
  return { assessment: { assessment_id: out.assessment_id, status: out.status } };
}

/**
 * The assessment actor failed: the round continues as NOT_EVALUATED (which never reserves), with a note.
 *
 * @example
 * ```ts
 * recordAssessmentFailure(ctx).assessment; // { assessment_id: 'none', status: 'NOT_EVALUATED' }
 * ```
 */
export function recordAssessmentFailure(c: Pick<GateLifecycleContext, 'notes'>): GateUpdate {
  return {
    assessment: { assessment_id: 'none', status: 'NOT_EVALUATED' },
    notes: [...c.notes, 'assessment actor failed: recorded as NOT_EVALUATED'],
  };
}

/**
 * Remembers the route chosen.
 *
 * @example
 * ```ts
 * recordRoute({ route_id: 'r-1', route: 'LEAD_REVIEW' }).route; // 'LEAD_REVIEW'
 * ```
 */
export function recordRoute(out: RouteOutput): GateUpdate {
  return { route: out.route };
}

/**
 * Records an acceptable grant: the current grant, the list of grants, and one more use of its
 * slot. Taken only after `grantAcceptable`, which requires an id and a slot; without them nothing
 * is recorded.
 *
 * @example
 * ```ts
 * recordGrant(ctx, { outcome: 'granted', grant_id: 'g-1', slot: 'ordinary-repair', reason: null }).ordinary_repairs_used; // 1
 * ```
 */
export function recordGrant(
  c: Pick<GateLifecycleContext, 'grants' | 'ordinary_repairs_used' | 'gate_continuations_used'>,
  out: ReserveOutput,
): GateUpdate {
  if (out.grant_id === null || out.slot === null) return {};
  const grant = { grant_id: out.grant_id, slot: out.slot };
  return {
    grant,
    grants: [...c.grants, grant],
    ordinary_repairs_used: c.ordinary_repairs_used + (grant.slot === 'ordinary-repair' ? 1 : 0),
    gate_continuations_used: c.gate_continuations_used + (grant.slot === 'gate-continuation' ? 1 : 0),
  };
}

/**
 * A reservation not acted on: a note naming the refusal, or the grant beyond the profile.
 *
 * @example
 * ```ts
 * recordRefusal(ctx, { outcome: 'refused', grant_id: null, slot: null, reason: 'spent' }).notes?.at(-1);
 * // 'reservation refused: spent'
 * ```
 */
export function recordRefusal(c: Pick<GateLifecycleContext, 'notes'>, out: ReserveOutput): GateUpdate {
  return {
    notes: [
      ...c.notes,
      out.outcome === 'refused'
        ? `reservation refused: ${out.reason ?? 'no reason given'}`
        : `reservation ${out.outcome} grant ${out.grant_id ?? '?'} (${out.slot ?? '?'}): not acted on again, beyond the profile`,
    ],
  };
}

/**
 * The worker ran again under the grant: a new round in the mode it reported, nothing of the old
 * round's evidence kept.
 *
 * @example
 * ```ts
 * nextRound(ctx, { worker_status: 'provisional' }).round; // ctx.round + 1
 * ```
 */
export function nextRound(c: Pick<GateLifecycleContext, 'round'>, out: ContinueOutput): GateUpdate {
  return {
    mode: out.worker_status,
    round: c.round + 1,
    packet_id: null,
    exact: null,
    assessment: null,
    route: null,
  };
}

/**
 * An actor failed: a note naming what failed (the machine hands over to the lead).
 *
 * @example
 * ```ts
 * recordFailure(ctx, 'routing failed').notes?.at(-1); // 'routing failed'
 * ```
 */
export function recordFailure(c: Pick<GateLifecycleContext, 'notes'>, note: string): GateUpdate {
  return { notes: [...c.notes, note] };
}

/**
 * A hard stop arrived: its reason, and a note.
 *
 * @example
 * ```ts
 * recordHardStop(ctx, 'budget').hard_stop; // 'budget'
 * ```
 */
export function recordHardStop(c: Pick<GateLifecycleContext, 'notes'>, reason: string): GateUpdate {
  return { hard_stop: reason, notes: [...c.notes, `hard stop: ${reason}`] };
}

/**
 * The gate hands over to the lead (`leadReview`, or `stopped` after a stop): one more lead handoff
 * and the outcome.
 *
 * @example
 * ```ts
 * handOver(ctx, 'stopped'); // { lead_handoffs: 1, outcome: 'stopped' }
 * ```
 */
export function handOver(
  c: Pick<GateLifecycleContext, 'lead_handoffs'>,
  outcome: 'lead-review' | 'stopped',
): GateUpdate {
  return { lead_handoffs: c.lead_handoffs + 1, outcome };
}

/**
 * The gate machine's output from a final context.
 *
 * @example
 * ```ts
 * gateOutput(actor.getSnapshot().context).outcome; // 'lead-review'
 * ```
 */
export function gateOutput(c: Pick<GateLifecycleContext, 'outcome' | 'notes'>): GateMachineOutput {
  return { outcome: c.outcome ?? 'lead-review', notes: c.notes };
}
