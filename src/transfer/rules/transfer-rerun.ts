/**
 * The rerun guard of a re-handoff (layer 1, pure): handing the session again to an agent that
 * already received it on the same blocker, with nothing new, is refused — the run-contract/v1
 * rerun guard (`src/contract/rerun-guard.ts`) decides, with the receiving agent as the task.
 */
import { type RerunVerdict, rerunGuard } from '../../contract/index.js';
import type { TransferRequest } from '../request-schema.js';
import type { GrantRecord } from './session-state.js';

/**
 * The rerun guard's verdict for `request` against the last grant to the same agent that carried a
 * blocker; null when no such grant exists (a first handoff is never a rerun).
 *
 * @example
 * ```ts
 * transferRerun(state.grants, { ...request, blocker: 'refund-policy-unclear', evidence_delta: [] });
 * // { forbidden: true, branch: 'blocker', … }
 * ```
 */
export function transferRerun(
  grants: readonly GrantRecord[],
  request: Pick<TransferRequest, 'to' | 'blocker' | 'evidence_delta'>,
): RerunVerdict | null {
  const to = request.to;
  if (to === undefined) return null;
  const prior = [...grants].reverse().find((g) => g.to === to && g.blocker !== null);
  if (prior === undefined) return null;
  // the task is the receiving agent; scope and mode are fixed (the guard compares them only for equality)
  return rerunGuard(
    {
      target: to,
      scope: 'project',
      mode: 'prove',
      prior_blocker: request.blocker,
      evidence_delta: request.evidence_delta,
    },
    {
      target: to,
      scope: 'project',
      mode: 'prove',
      stop_reason: null,
      stop_detail: null,
      blocker_signature: prior.blocker,
      new_evidence_required_for_rerun: `what is new since ${prior.request_id} handed ${to} this blocker`,
    },
  );
}
