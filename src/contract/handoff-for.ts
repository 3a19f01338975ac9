/**
 * The starting point of a worker's answer: a handoff that echoes the dispatch's task identity and
 * custody (target/scope/mode, owned files, the parent's baseline) and is otherwise empty.
 */
import type { Dispatch } from './dispatch-schema.js';
import { emptyEvidence, type Handoff } from './handoff-schema.js';

/**
 * A `solved` handoff for `dispatch` with every list empty, `files_changed: []` and the parent's
 * baseline unchanged (the patch-only answer), with `overrides` applied on top. Callers that edit
 * files set `files_changed` and the advanced `file_baseline`; callers that stop on a blocker set
 * the blocker fields. Validate the result (`validateHandoff`) before sending it.
 *
 * @example
 * ```ts
 * const h = handoffFor(dispatch, { status: 'stuck', blocker_kind: 'proof', blocker_class: 'arithmetic',
 *   blocker_signature: 'A.lean:3:omega failed', new_evidence_required_for_rerun: 'a linear bound', next_action: 'stop' });
 * ```
 */
export function handoffFor(
  dispatch: Pick<Dispatch, 'target' | 'scope' | 'mode' | 'owned_files' | 'file_baseline'>,
  overrides: Partial<Handoff> = {},
): Handoff {
  return {
    schema: 'run-contract/v1',
    record: 'handoff',
    target: dispatch.target,
    scope: dispatch.scope,
    mode: dispatch.mode,
    status: 'solved',
    stop_reason: null,
    stop_detail: null,
    blocker_kind: null,
    blocker_class: null,
    blocker_signature: null,
    attempted_tools: [],
    best_candidates: [],
    failed_avenues: [],
    evidence: emptyEvidence(),
    files_owned: [...dispatch.owned_files],
    files_changed: [],
    file_baseline: dispatch.file_baseline,
    artifacts: [],
    next_action: 'continue',
    new_evidence_required_for_rerun: null,
    ...overrides,
  };
}
