/**
 * The handoffs the runtime writes itself when a worker's answer is not accepted (layer 1, pure).
 * Each echoes the dispatch's task and custody — `files_owned` the owned set, `files_changed`
 * empty, `file_baseline` the dispatch's baseline (the owned files are put back to those bytes) —
 * and validates as run-contract/v1.
 */
import { blockerSignature, type Dispatch, type Handoff, handoffFor } from '../contract/index.js';

/**
 * The part of a dispatch a runtime-written handoff echoes.
 *
 * @example
 * ```ts
 * const echo: DispatchEcho = dispatch; operationalErrorHandoff(echo, 'timeout');
 * ```
 */
export type DispatchEcho = Pick<Dispatch, 'target' | 'scope' | 'mode' | 'owned_files' | 'file_baseline'>;

function nonBlank(detail: string, fallback: string): string {
  return typeof detail === 'string' && detail.trim() !== '' ? detail : fallback;
}

/**
 * A `stopped` handoff for `dispatch` with an operational or protocol stop reason and its detail:
 * nothing changed, the dispatch's baseline, `next_action: stop`. A blank detail is replaced by
 * the stop reason, so the record always validates.
 *
 * @example
 * ```ts
 * stoppedHandoff(dispatch, 'protocol-error', 'files_owned does not echo the dispatch owned_files').status; // 'stopped'
 * ```
 */
export function stoppedHandoff(
  dispatch: DispatchEcho,
  reason: 'protocol-error' | 'operational-error',
  detail: string,
): Handoff {
  return handoffFor(dispatch, {
    status: 'stopped',
    stop_reason: reason,
    stop_detail: nonBlank(detail, reason),
    next_action: 'stop',
  });
}

/**
 * The operational-error handoff of a dispatch: what a host reports when the worker could not
 * answer — it threw, timed out, the model provider failed. A valid run-contract/v1 record; the
 * rerun guard then forbids relaunching the same task until an `evidence_delta` entry says how the
 * failure was resolved.
 *
 * @example
 * ```ts
 * const h = operationalErrorHandoff(dispatch, 'the model provider answered 503');
 * h.stop_reason; // 'operational-error'
 * canRelaunch(dispatch, h).allowed; // false: evidence_delta is empty
 * ```
 */
export function operationalErrorHandoff(dispatch: DispatchEcho, detail: string): Handoff {
  return stoppedHandoff(dispatch, 'operational-error', detail);
}

/**
 * The `user-stop` handoff of a dispatch the host aborted (its `AbortSignal`): a stop the rerun
 * guard always lets relaunch.
 *
 * @example
 * ```ts
 * userStopHandoff(dispatch).stop_reason; // 'user-stop'
 * ```
 */
export function userStopHandoff(dispatch: DispatchEcho): Handoff {
  return handoffFor(dispatch, { status: 'stopped', stop_reason: 'user-stop', next_action: 'stop' });
}

/**
 * The `stuck` handoff of a statement-fence violation, as the cycle runtime declares it: a safety
 * guard fired (`blocker_kind: safety-guard`, no proof class), the signature is the target's
 * `(file, line, "header fence")` (line 0 when the target is not `file:line`), the statement goes
 * back to its author (`next_action: redraft`) and the detail is the failed avenue.
 *
 * @example
 * ```ts
 * fenceStuckHandoff(dispatch, 'header fence: A.lean: theorem t: statement changed (…)').blocker_kind; // 'safety-guard'
 * ```
 */
export function fenceStuckHandoff(dispatch: DispatchEcho, detail: string): Handoff {
  const m = /^(.+):([0-9]{1,9})$/.exec(dispatch.target);
  const signature = m
    ? blockerSignature(m[1]!, Number(m[2]), 'header fence')
    : blockerSignature(dispatch.target, 0, 'header fence');
  return handoffFor(dispatch, {
    status: 'stuck',
    blocker_kind: 'safety-guard',
    blocker_signature: signature,
    failed_avenues: [`fence-violation: ${nonBlank(detail, 'a declaration header changed')}`],
    next_action: 'redraft',
    new_evidence_required_for_rerun: `a redrafted statement for ${dispatch.target}, or an edit that keeps every declaration header`,
  });
}
