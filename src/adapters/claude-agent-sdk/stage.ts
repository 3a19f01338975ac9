/**
 * A Claude subagent as a chain stage (layer 3, effects): a `StageFn` that prompts the subagent
 * with the baton view, passes the stage's signal on as the SDK's abort, and returns the
 * subagent's final answer for the seam to judge.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import type { BatonView } from '../../chain/baton-view.js';
import type { StageContext, StageFn } from '../../chain/stage-call.js';
import { HandoffError } from '../../errors/index.js';
import type { ClaudeQuery } from './query.js';
import { runSubagent, type SubagentLimits, type SubagentRun, subagentLimits } from './subagent-run.js';

/**
 * Options of {@link claudeStage}.
 *
 * @example
 * ```ts
 * const o: ClaudeStageOptions = { query, prompt: (view) => `Route to ${String(view.facts.city)}`, options: { maxTurns: 3 } };
 * ```
 */
export interface ClaudeStageOptions {
  /** The SDK's `query` or a stand-in; omitted: the SDK's own, imported on first use. */
  readonly query?: ClaudeQuery;
  /** The prompt for this stage run, from its read-only baton view (see `stagePrompt`). */
  readonly prompt: (view: BatonView) => string;
  /** SDK options (model, tools, `agents`, `outputFormat`, `cwd`…); `abortController` is linked, not used as is. */
  readonly options?: Options;
  readonly limits?: SubagentLimits;
  /** Sees every run that ended with a success result, before its answer goes to the seam. */
  readonly onRun?: (run: SubagentRun, view: BatonView) => void;
}

/**
 * Adapts a Claude subagent to a chain stage. Each call prompts the subagent with
 * `prompt(view)`, aborts the SDK's AbortController when the stage's signal aborts (the chain's
 * stage time limit, the runtime stopping), and takes the subagent's final `result` message as the
 * stage's answer: its `structured_output` when present, else its text parsed as JSON, else the
 * text itself. The answer is returned as is, so the seam judges it with its own codes —
 * `invalid_stage_delta` (not JSON, not a StageDelta, extra or forged fields), `promised_fact_missing`,
 * `undeclared_fact`, `fact_type_mismatch`, `fact_evidence_missing`, `fact_semantic_violation`.
 * A run without an answer throws a `ClaudeSubagentError`, which the seam records as
 * `stage_failed` (error result subtypes, no result, a throwing or aborted query, over the limits).
 *
 * @example
 * ```ts
 * const route = claudeStage({
 *   query, // import { query } from '@anthropic-ai/claude-agent-sdk'
 *   prompt: stagePrompt({ task: 'Pick the latest departure time for the city', provides: ['depart_by'] }),
 *   options: { model: 'haiku', maxTurns: 2, tools: [] }, // no tools: it only answers
 * });
 * createChain({ ..., stages: [{ spec: { name: 'route', requires: ['city'], provides: ['depart_by'] }, run: route }] });
 * ```
 * @throws HandoffError `usage` (at creation) when `prompt` is not a function or a limit is not a
 * positive integer.
 */
export function claudeStage(o: ClaudeStageOptions): StageFn {
  if (typeof o?.prompt !== 'function') throw new HandoffError('usage', 'claudeStage needs a prompt function');
  const limits = subagentLimits(o.limits);
  return async (view: BatonView, context: StageContext): Promise<unknown> => {
    const prompt = o.prompt(view);
    const out = await runSubagent({
      query: o.query,
      prompt,
      options: o.options,
      signal: context.signal,
      limits,
    });
    if (!out.ok) throw out.error;
    o.onRun?.(out.run, view);
    return out.run.answer;
  };
}
