/**
 * The input a checked sub-agent receives (layer 1 rules, no I/O): the task of the dispatch in
 * words, the rules its answer is checked against, and the dispatch record itself.
 */
import type { Dispatch } from '../../contract/index.js';

/**
 * The sub-agent's input for `dispatch`: what to work on (`target`, and `context.goal_state` when
 * the host put the caller's instruction there), the files it may change, that its final answer
 * must be one run-contract/v1 handoff JSON object echoing the task (the `handoff_draft` tool
 * writes one with the right baseline), and the dispatch record as JSON.
 *
 * @example
 * ```ts
 * await runner.run(agent, dispatchPrompt(dispatch));
 * ```
 */
export function dispatchPrompt(dispatch: Dispatch): string {
  const goal = dispatch.context.goal_state;
  return [
    `Task: ${dispatch.target} (scope ${dispatch.scope}, mode ${dispatch.mode}).`,
    ...(goal === null ? [] : [`Instruction: ${goal}`]),
    `You may change only these files: ${dispatch.owned_files.join(', ')}.`,
    'Any other change is detected and refused, and your edits are then undone.',
    'Finish with exactly one JSON object and nothing else: a run-contract/v1 handoff for this task',
    '(same target, scope, mode and files_owned; files_changed lists the files you changed;',
    'file_baseline is their advanced baseline). Call the handoff_draft tool with the files you',
    'changed to get that object, and answer with it (set status "stuck" with the blocker fields if',
    'you could not finish).',
    '',
    'The dispatch record:',
    JSON.stringify(dispatch),
  ].join('\n');
}
