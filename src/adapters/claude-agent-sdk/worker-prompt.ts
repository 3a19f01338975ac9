/**
 * The default prompt of a worker subagent (layer 1, pure): the dispatch, the one rule of custody
 * (edit only the owned files), and the answer the delegation accepts — one run-contract/v1
 * handoff, given as a template that already echoes the task.
 */
import type { Dispatch } from '../../contract/index.js';
import { handoffFor } from '../../contract/index.js';

/**
 * The prompt {@link claudeWorker} sends when you give none: the target, scope, mode and owned
 * files, the goal state, prior failure and evidence delta when the dispatch has them, the rules, and a template of the final answer (the dispatch's
 * `handoffFor` record) with what to change in it — `files_changed`, and for each changed file the
 * new `sha256` (lower-case hex) and `size` in `file_baseline`; a `stuck` status with the blocker
 * fields when the task cannot be done.
 *
 * @example
 * ```ts
 * const worker = claudeWorker({ query, prompt: (d) => `${workerPrompt(d)}\nUse the project's style.` });
 * ```
 */
export function workerPrompt(dispatch: Dispatch): string {
  const template = JSON.stringify(handoffFor(dispatch), null, 2);
  return [
    `Task: work on ${dispatch.target} (scope ${dispatch.scope}, mode ${dispatch.mode}).`,
    ...(dispatch.context.goal_state === null ? [] : [`Goal: ${dispatch.context.goal_state}`]),
    ...(dispatch.context.prior_failure === null
      ? []
      : [`A prior attempt failed: ${dispatch.context.prior_failure}`]),
    ...(dispatch.evidence_delta.length === 0
      ? []
      : [`New since then: ${dispatch.evidence_delta.join('; ')}`]),
    `You may change only these files: ${dispatch.owned_files.join(', ')}.`,
    'Do not create, change or delete any other file, and nothing under .git or .handoff.',
    '',
    'Your final message must be exactly one JSON object and nothing else: this handoff record, changed as follows.',
    '- files_changed: the owned files you changed (absolute paths, as listed above).',
    '- file_baseline.files: for each changed file, set "sha256" to the lower-case hex SHA-256 of its new bytes',
    '  and "size" to its byte length (e.g. run `sha256sum FILE` and `wc -c FILE`); leave the other entries as they are.',
    '- If you cannot do the task: "status": "stuck", "next_action": "stop", and "blocker_kind": "capability",',
    '  "blocker_signature" and "new_evidence_required_for_rerun" saying what is missing.',
    '',
    template,
  ].join('\n');
}
