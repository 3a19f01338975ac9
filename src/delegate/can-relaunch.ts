/**
 * The rerun guard for a host's relaunch (layer 1, pure): src/contract `rerunGuard`, with the
 * answer a host branches on.
 */
import { type RerunVerdict, rerunGuard } from '../contract/index.js';

/**
 * The rerun guard's verdict, plus `allowed` (= not `forbidden`).
 *
 * @example
 * ```ts
 * const v: RelaunchVerdict = canRelaunch(next, prior); // { allowed: false, branch: 'blocker', … }
 * ```
 */
export interface RelaunchVerdict extends RerunVerdict {
  readonly allowed: boolean;
}

/**
 * May `next` be launched after `prior` (the handoff of the last attempt; null for a first launch)?
 * The run-contract/v1 rerun guard: after a protocol or operational stop, the same task needs an
 * `evidence_delta` entry saying how it was resolved; after a blocker, the same task on the same
 * blocker (`prior_blocker` = the prior `blocker_signature`) needs new evidence; anything else is
 * allowed. `required_evidence` says what would unlock a forbidden relaunch.
 *
 * @example
 * ```ts
 * const v = canRelaunch(next, last.handoff);
 * if (!v.allowed) console.log(v.reason, '— needs:', v.required_evidence);
 * ```
 */
export function canRelaunch(
  next: Parameters<typeof rerunGuard>[0],
  prior: Parameters<typeof rerunGuard>[1] | null,
): RelaunchVerdict {
  if (prior === null) {
    return {
      allowed: true,
      forbidden: false,
      branch: 'free',
      reason: 'a first launch has no prior handoff',
      required_evidence: null,
    };
  }
  const v = rerunGuard(next, prior);
  return { allowed: !v.forbidden, ...v };
}
