/**
 * How a delegation ends (layer 1, pure): from the findings — the violations, the worker's validated
 * handoff, a worker failure — whether the owned files must be put back, and the outcome with the
 * one handoff the host receives.
 */
import { type Handoff, OPERATIONAL_STOP_REASONS } from '../contract/index.js';
import { withFixHint } from './fix-hints.js';
import {
  type DispatchEcho,
  fenceStuckHandoff,
  operationalErrorHandoff,
  stoppedHandoff,
  userStopHandoff,
} from './refusal-handoff.js';
import type { DelegateViolation, ReadHandoff } from './violations.js';

/**
 * How a delegation ended:
 * - `accepted` — the worker's own handoff passed every check (it may be `solved`, `stuck` or a
 *   budget stop);
 * - `refused` — a check failed: the handoff is the runtime's (a protocol-error stop, or `stuck` on
 *   the statement fence) and the owned files hold their pre-dispatch bytes again;
 * - `failed` — the worker gave no answer to check: it threw, timed out, was aborted, or stopped
 *   itself with a protocol or operational error (an operational-error, protocol-error or
 *   `user-stop` handoff) — or the run store refused to record an accepted handoff (`delegate`'s
 *   write-ahead: its owned files are put back).
 *
 * @example
 * ```ts
 * if (r.outcome === 'accepted') commit(r.handoff.files_changed);
 * ```
 */
export type DelegateOutcome = 'accepted' | 'refused' | 'failed';

/**
 * Why a worker gave no answer.
 *
 * @example
 * ```ts
 * const f: WorkerFailure = { stop: 'operational-error', detail: 'the worker did not return within 50 ms' };
 * ```
 */
export interface WorkerFailure {
  /** `user-stop` when the host aborted, else `operational-error`. */
  readonly stop: 'operational-error' | 'user-stop';
  readonly detail: string;
}

/**
 * What running a worker gave: its answer read as a handoff (read once, the moment it arrived), or
 * a failure.
 *
 * @example
 * ```ts
 * const a: Attempt = { kind: 'returned', read: readHandoff(answer) };
 * ```
 */
export type Attempt =
  | {
      readonly kind: 'returned';
      readonly read: ReadHandoff;
      /** A sandboxed command worker's discarded writes (src/delegate/command-worker.ts), or null. */
      readonly discarded?: string | null;
    }
  | { readonly kind: 'failed'; readonly failure: WorkerFailure };

/**
 * What a check of a worker's answer ends with: the outcome, the one handoff, the violations.
 *
 * @example
 * ```ts
 * const r: CheckResult = await checkHandoff(dispatch, answer, before);
 * ```
 */
export interface CheckResult {
  readonly outcome: DelegateOutcome;
  /** A valid run-contract/v1 handoff: the worker's own when `accepted`, else the runtime's. */
  readonly handoff: Handoff;
  /** The failed checks, in check order (empty when accepted, and when the worker merely failed). */
  readonly violations: readonly DelegateViolation[];
}

/**
 * What the checks found.
 *
 * @example
 * ```ts
 * const f: Findings = { violations: [], handoff: solved, failure: null }; // accepted
 * ```
 */
export interface Findings {
  readonly violations: readonly DelegateViolation[];
  /** The worker's validated handoff (null: none, or not valid). */
  readonly handoff: Handoff | null;
  /** Set when the worker gave no answer. */
  readonly failure: WorkerFailure | null;
}

function isOperationalStop(h: Handoff): boolean {
  return h.stop_reason !== null && OPERATIONAL_STOP_REASONS.includes(h.stop_reason);
}

/**
 * True when the worker's handoff is accepted as it is: no violation, no failure, and not a
 * protocol or operational stop of its own.
 *
 * @example
 * ```ts
 * isAccepted({ violations: [], handoff: solved, failure: null }); // true
 * ```
 */
export function isAccepted(f: Findings): boolean {
  return (
    f.violations.length === 0 && f.failure === null && f.handoff !== null && !isOperationalStop(f.handoff)
  );
}

/**
 * The outcome and the handoff of a delegation. `notes` say what was put back ("owned files
 * restored to their pre-dispatch bytes", "could not restore …") and end the stop detail (or the
 * failed avenue of a fence stop). Violations take precedence over a worker failure (a worker that
 * threw after writing outside its files is refused, not merely failed); violations of the
 * statement fence alone make the target stuck (`redraft`), as in the cycle runtime.
 *
 * @example
 * ```ts
 * settleHandoff(dispatch, { violations: [{ check: 'baseline', detail: 'files_changed names non-owned file(s): /r/x' }], handoff: h, failure: null }, []);
 * // { outcome: 'refused', handoff: { status: 'stopped', stop_reason: 'protocol-error', stop_detail: 'files_changed names …', … }, violations: [...] }
 * ```
 */
export function settleHandoff(dispatch: DispatchEcho, f: Findings, notes: readonly string[]): CheckResult {
  const violations = f.violations.map(withFixHint);
  const join = (parts: readonly string[]) => parts.filter((p) => p !== '').join('; ');
  if (violations.length > 0) {
    const details = violations.map((v) => v.detail);
    if (f.failure === null && f.violations.every((v) => v.check === 'statement_fence')) {
      return {
        outcome: 'refused',
        handoff: fenceStuckHandoff(dispatch, join([...details, ...notes])),
        violations,
      };
    }
    const found = join([...details, ...notes]);
    const detail = f.failure === null ? found : `${f.failure.detail}; and ${found}`;
    return { outcome: 'refused', handoff: stoppedHandoff(dispatch, 'protocol-error', detail), violations };
  }
  if (f.failure !== null) {
    if (f.failure.stop === 'user-stop')
      return { outcome: 'failed', handoff: userStopHandoff(dispatch), violations };
    return {
      outcome: 'failed',
      handoff: operationalErrorHandoff(dispatch, join([f.failure.detail, ...notes])),
      violations,
    };
  }
  const h = f.handoff;
  if (h === null) {
    return {
      outcome: 'refused',
      handoff: stoppedHandoff(dispatch, 'protocol-error', join(['the worker returned no handoff', ...notes])),
      violations,
    };
  }
  if (isOperationalStop(h)) {
    const reason = h.stop_reason === 'protocol-error' ? 'protocol-error' : 'operational-error';
    return {
      outcome: 'failed',
      handoff: stoppedHandoff(
        dispatch,
        reason,
        join([`the worker stopped: ${h.stop_detail ?? reason}`, ...notes]),
      ),
      violations,
    };
  }
  return { outcome: 'accepted', handoff: h, violations };
}
