/**
 * The default prompt of a chain stage's subagent (layer 1, pure): the task, the baton's identity
 * and committed facts, and the exact answer the seam accepts — one StageDelta JSON object.
 */
import type { BatonView } from '../../chain/baton-view.js';

/**
 * What {@link stagePrompt} needs: the stage's task in words and the keys the stage provides.
 *
 * @example
 * ```ts
 * const p: StagePromptInput = { task: 'Pick the latest departure time', provides: ['depart_by'] };
 * ```
 */
export interface StagePromptInput {
  readonly task: string;
  readonly provides: readonly string[];
}

/**
 * Builds a prompt function for {@link claudeStage}: the task, the stage name, its `stage_run_id`,
 * the intent and the committed facts as JSON, then the answer format — one JSON object
 * `{"facts":[{"key","value","evidence_refs"}],"artifact_refs":[]}` holding exactly the provided
 * keys, and nothing else in the final message.
 *
 * @example
 * ```ts
 * const prompt = stagePrompt({ task: 'Pick the latest departure time', provides: ['depart_by'] });
 * prompt(view); // 'Pick the latest departure time\n\nStage: route …'
 * ```
 */
export function stagePrompt(input: StagePromptInput): (view: BatonView) => string {
  const keys = input.provides.map((k) => JSON.stringify(k)).join(', ');
  return (view) =>
    [
      input.task,
      '',
      `Stage: ${view.stage_name} (stage_run_id ${view.stage_run_id})`,
      `Intent: ${view.intent}`,
      `Committed facts (JSON): ${JSON.stringify({ ...view.facts })}`,
      '',
      'Your final message must be exactly one JSON object and nothing else:',
      '{"facts": [{"key": <key>, "value": <value>, "evidence_refs": [<where the value comes from>]}], "artifact_refs": []}',
      `Deliver exactly these keys, each once: ${keys}. No other keys, no other fields.`,
    ].join('\n');
}
