/**
 * What the gate machine's actors hand back and receive (layer 1, types only): the shell
 * (src/gate/gate-runner.ts) provides the actors, `machines/gate.ts` declares them, and the pure
 * reducers of `./lifecycle-reducers.ts` absorb these outputs. The records themselves (packets,
 * assessments, routes, grants) are the shell's: the machine only holds their ids.
 */
import type { Slot } from './grant-schema.js';
import type { GateLifecycleContext } from './lifecycle.js';
import type { Route } from './route-schema.js';

/**
 * Output of the `collect` actor: the id of the evidence packet it stored.
 *
 * @example
 * ```ts
 * const out: CollectOutput = { packet_id: 'pkt-1' };
 * ```
 */
export interface CollectOutput {
  readonly packet_id: string;
}

/**
 * Output of the `check` actor: the exact checks' verdict (`stop` is a hard stop code).
 *
 * @example
 * ```ts
 * const out: CheckOutput = { ok: false, stop: false, codes: ['tests_failed'] };
 * ```
 */
export interface CheckOutput {
  readonly ok: boolean;
  readonly stop: boolean;
  readonly codes: readonly string[];
}

/**
 * Output of the `evaluate` and `assessBlocked` actors: the assessment's id and status.
 *
 * @example
 * ```ts
 * const out: AssessOutput = { assessment_id: 'a-1', status: 'EVALUATED' };
 * ```
 */
export interface AssessOutput {
  readonly assessment_id: string;
  readonly status: 'EVALUATED' | 'NOT_EVALUATED' | 'INVALID';
}

/**
 * Output of the `route` actor: the route record's id and the route it chose.
 *
 * @example
 * ```ts
 * const out: RouteOutput = { route_id: 'r-1', route: 'CONTINUATION_ELIGIBLE' };
 * ```
 */
export interface RouteOutput {
  readonly route_id: string;
  readonly route: Route;
}

/**
 * Output of the `reserve` actor: the ledger's answer to a reservation (a fresh grant, a replayed
 * one, or a refusal with its reason).
 *
 * @example
 * ```ts
 * const out: ReserveOutput = { outcome: 'granted', grant_id: 'g-1', slot: 'ordinary-repair', reason: null };
 * ```
 */
export interface ReserveOutput {
  readonly outcome: 'granted' | 'replayed' | 'refused';
  readonly grant_id: string | null;
  readonly slot: Slot | null;
  readonly reason: string | null;
}

/**
 * Output of the `continueWork` actor (the worker ran again under the grant): how it reported.
 *
 * @example
 * ```ts
 * const out: ContinueOutput = { worker_status: 'provisional' };
 * ```
 */
export interface ContinueOutput {
  readonly worker_status: 'provisional' | 'blocked';
}

/**
 * Output of the `validate` actor (grant consumed, result validated).
 *
 * @example
 * ```ts
 * const out: ValidateOutput = { consumed: true };
 * ```
 */
export interface ValidateOutput {
  readonly consumed: boolean;
}

/**
 * What every gate actor receives: the machine's context (ids; the shell resolves the records).
 *
 * @example
 * ```ts
 * const input: GateActorInput = { context: initialLifecycleContext({ problem_id: 'p1' }) };
 * ```
 */
export interface GateActorInput {
  readonly context: GateLifecycleContext;
}

/**
 * What the gate machine ends with (its `output`, the value `toPromise(actor)` resolves to): which
 * final state handed over to the lead, and the notes recorded on the way (actor failures, refused
 * reservations, a hard stop).
 *
 * @example
 * ```ts
 * const { outcome, notes }: GateMachineOutput = await toPromise(actor);
 * ```
 */
export interface GateMachineOutput {
  /** `lead-review` (leadReview) or `stopped` (stopped). */
  readonly outcome: 'lead-review' | 'stopped';
  readonly notes: readonly string[];
}
