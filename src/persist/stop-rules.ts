/**
 * Recording a stop (layer 1, pure): the state a stopped run is saved as, and the result the
 * helper returns for it. A stop is enforced when it was saved, or when an in-flight record saved
 * earlier is still on disk (a later call finds it unresolved and stops); otherwise the result
 * tells the command to retire the invocation.
 */

import type { Knowledge } from './knowledge.js';
import { operationalErrorHandoff } from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { PersistState, Unpersisted } from './state-schema.js';

/** A stop to record: what is lost, why, and whether an in-flight record already enforces it. */
export interface StopPlan {
  readonly verb: string;
  /** The state before the stop (its in-flight record, if any, is cleared by the stop). */
  readonly state: PersistState;
  /** Parent knowledge including the submission that was not stored (null before the first dispatch). */
  readonly knowledge: Knowledge | null;
  readonly unpersisted: Unpersisted;
  /** The result's `outcome` and the stop marker's outcome. */
  readonly outcome: string;
  /** The operational-error handoff's stop_detail and the stop marker's detail. */
  readonly detail: string;
  /** A finish: the result is `done` (not stored) and the run is marked `finished: not-stored`. */
  readonly finish: boolean;
  /** An in-flight record was saved before the store call and is still on disk. */
  readonly inflightSaved: boolean;
}

/** The warning of a stop that could not be saved while an in-flight record still enforces it. */
export const STOP_ENFORCED_BY_INFLIGHT =
  'the stop could not be recorded; the unresolved in-flight record still enforces it';

/** The warning of a stop that nothing on disk enforces. */
export const STOP_NOT_ENFORCED =
  'no control-state write succeeded: retire this invocation; a later helper process may not remember the stop';

/**
 * The state a stop is saved as: knowledge kept, in-flight cleared, the unpersisted item added,
 * the stop marker set (and `finished: not-stored` for a finish).
 *
 * @example
 * ```ts
 * stoppedState(plan, '2026-11-30T10:00:00Z').stopped; // { outcome: plan.outcome, detail: plan.detail, at: … }
 * ```
 */
export function stoppedState(p: StopPlan, at: string): PersistState {
  const { state } = p;
  return {
    ...state,
    knowledge: p.knowledge,
    inflight: null,
    unpersisted: [...state.unpersisted, p.unpersisted],
    stopped: { outcome: p.outcome, detail: p.detail, at },
    ...(p.finish ? { finished: 'not-stored' as const } : {}),
  };
}

/**
 * The result of a stop, given whether its state was saved: `stop` with an operational-error
 * handoff, or for a finish `done` with `stored: false` and a fallback handoff.
 *
 * @example
 * ```ts
 * stopResult(plan, false); // { action: 'stop', terminal_enforced: plan.inflightSaved, warning: …, handoff: … }
 * ```
 */
export function stopResult(p: StopPlan, saved: boolean): PersistResult {
  const { state, unpersisted: u } = p;
  const warning = saved ? undefined : p.inflightSaved ? STOP_ENFORCED_BY_INFLIGHT : STOP_NOT_ENFORCED;
  const common = {
    outcome: p.outcome,
    run_id: state.run_id,
    unpersisted: u,
    terminal_enforced: saved || p.inflightSaved,
    ...(warning === undefined ? {} : { warning }),
  };
  const h = operationalErrorHandoff(p.knowledge, p.detail);
  if (p.finish) {
    return persistResult(p.verb, 'done', {
      ...common,
      stored: false,
      persistence: u.status === 'unconfirmed' ? 'unconfirmed' : 'not-stored',
      fallback_handoff: h,
    });
  }
  return persistResult(p.verb, 'stop', { ...common, handoff: h });
}
