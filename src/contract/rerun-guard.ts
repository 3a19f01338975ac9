/**
 * The rerun guard of run-contract/v1: refuses to relaunch the same blocked task without new
 * evidence, and refuses to blindly relaunch an operational or protocol stop.
 */
import type { Dispatch } from './dispatch-schema.js';
import { OPERATIONAL_STOP_REASONS } from './enums.js';
import type { Handoff } from './handoff-schema.js';

/** Which branch of the guard decided. */
export type RerunBranch = 'operational' | 'blocker' | 'unrelated-task' | 'free';

/** The guard's verdict. */
export interface RerunVerdict {
  /** True when the relaunch must not happen. */
  readonly forbidden: boolean;
  /** The branch that decided. */
  readonly branch: RerunBranch;
  /** Why, in one sentence. */
  readonly reason: string;
  /** What evidence would allow the relaunch (null when it is allowed). */
  readonly required_evidence: string | null;
}

/**
 * True when the dispatch and the prior handoff name the same (target, scope, mode).
 *
 * @example
 * ```ts
 * sameTask(dispatch, priorHandoff);
 * ```
 */
export function sameTask(
  d: Pick<Dispatch, 'target' | 'scope' | 'mode'>,
  h: Pick<Handoff, 'target' | 'scope' | 'mode'>,
): boolean {
  return d.target === h.target && d.scope === h.scope && d.mode === h.mode;
}

/**
 * Evaluates the rerun guard for `next` given the `prior` handoff.
 *
 * Operational branch first: after a protocol-error or operational-error stop, a relaunch of the
 * same task (or of any task, when the prior identity is unknown) needs a non-empty evidence_delta
 * saying how the stop_detail was resolved. Blocker branch: forbidden iff same task, the prior
 * blocker_signature is non-null, the new prior_blocker equals it, and evidence_delta is empty.
 *
 * @example
 * ```ts
 * const v = rerunGuard(relaunch, stuckHandoff);
 * if (v.forbidden) routeTo('review --mode=stuck'); // v.required_evidence says what would help
 * ```
 */
export function rerunGuard(
  next: Pick<Dispatch, 'target' | 'scope' | 'mode' | 'prior_blocker' | 'evidence_delta'>,
  prior: Pick<
    Handoff,
    | 'target'
    | 'scope'
    | 'mode'
    | 'stop_reason'
    | 'stop_detail'
    | 'blocker_signature'
    | 'new_evidence_required_for_rerun'
  >,
): RerunVerdict {
  const hasEvidence = next.evidence_delta.length > 0;
  if (prior.stop_reason !== null && OPERATIONAL_STOP_REASONS.includes(prior.stop_reason)) {
    const identityKnown = prior.target !== null && prior.scope !== null && prior.mode !== null;
    if (identityKnown && !sameTask(next, prior)) {
      return {
        forbidden: false,
        branch: 'unrelated-task',
        reason: 'a different task is not a relaunch',
        required_evidence: null,
      };
    }
    if (!hasEvidence) {
      return {
        forbidden: true,
        branch: 'operational',
        reason: `the prior ${prior.stop_reason} stop would repeat: evidence_delta is empty`,
        required_evidence: `an evidence_delta entry saying how this was resolved: ${prior.stop_detail ?? prior.stop_reason}`,
      };
    }
    return {
      forbidden: false,
      branch: 'operational',
      reason: `evidence_delta describes a resolution of the prior ${prior.stop_reason} stop`,
      required_evidence: null,
    };
  }
  if (!sameTask(next, prior)) {
    return {
      forbidden: false,
      branch: 'unrelated-task',
      reason: 'a different task is not a relaunch',
      required_evidence: null,
    };
  }
  if (prior.blocker_signature === null) {
    return {
      forbidden: false,
      branch: 'free',
      reason: 'the prior stop was not blocker-driven; such reruns are always allowed',
      required_evidence: null,
    };
  }
  if (next.prior_blocker !== prior.blocker_signature) {
    return {
      forbidden: false,
      branch: 'blocker',
      reason: 'the relaunch does not carry the prior blocker signature',
      required_evidence: null,
    };
  }
  if (!hasEvidence) {
    return {
      forbidden: true,
      branch: 'blocker',
      reason: `same task on the same blocker (${prior.blocker_signature}) with an empty evidence_delta`,
      required_evidence: prior.new_evidence_required_for_rerun ?? 'a qualifying evidence_delta entry',
    };
  }
  return {
    forbidden: false,
    branch: 'blocker',
    reason: 'the relaunch carries new evidence',
    required_evidence: null,
  };
}
