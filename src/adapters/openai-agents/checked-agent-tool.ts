/**
 * The `agent.asTool` pattern with a checked answer (layer 3, adapter): a sub-agent offered to a
 * calling agent as a tool, run as a `delegate` worker on a dispatch built from the call's
 * arguments; the calling agent gets the checked handoff, not the sub-agent's words.
 */
import type { Agent, AgentOutputType, FunctionTool } from '@openai/agents';
import { type AgentWorkerOptions, agentWorker } from './agent-worker.js';
import { type CheckedToolOptions, delegateTool, type ToolParameters } from './delegate-tool.js';
import type { CheckedToolResult } from './tool-result.js';

/**
 * The options of {@link checkedAgentTool}: those of a checked tool, with the name and description
 * defaulting to the agent's, plus how the sub-agent runs.
 *
 * @example
 * ```ts
 * const o: CheckedAgentToolOptions<typeof params> = { parameters: params, dispatch, projectRoot: '/repo', maxTurns: 20 };
 * ```
 */
export interface CheckedAgentToolOptions<P extends ToolParameters>
  extends Omit<CheckedToolOptions<P>, 'name' | 'description'>,
    AgentWorkerOptions {
  /** The tool's name (default: the agent's name). */
  readonly name?: string;
  /** The tool's description (default: the agent's `handoffDescription`). */
  readonly description?: string;
}

/**
 * `agent.asTool`, checked: a function tool that runs `agent` as a worker under `delegate` and
 * answers with a {@link CheckedToolResult}. Where `asTool` returns the sub-agent's last message,
 * this returns its final output only once it is a valid run-contract/v1 handoff for the dispatched
 * task that passed every custody check — the files it edits through its own tools included;
 * otherwise the runtime's refusal (`protocol-error`) or failure (`operational-error`), with the
 * owned files put back. Give the sub-agent `ownedFileTools()` and `handoffDraftTool()` so it can
 * edit exactly its owned files and write its handoff.
 *
 * @example
 * ```ts
 * const fixer = new Agent({ name: 'fixer', handoffDescription: 'Fixes one file', instructions: '…',
 *   tools: [...ownedFileTools(), handoffDraftTool()] });
 * const fix = checkedAgentTool(fixer, {
 *   parameters: z.object({ file: z.string(), instruction: z.string() }),
 *   dispatch: (a) => ({ target: `${a.file}:1`, scope: 'file', mode: 'autoprove', ownedFiles: [a.file],
 *     context: { goal_state: a.instruction } }),
 *   projectRoot: '/repo',
 *   maxTurns: 20,
 * });
 * const lead = new Agent({ name: 'lead', instructions: '…', tools: [fix] });
 * ```
 * @throws HandoffError `usage` for invalid options, as {@link delegateTool}.
 */
export function checkedAgentTool<TContext, TOutput extends AgentOutputType, P extends ToolParameters>(
  agent: Agent<TContext, TOutput>,
  options: CheckedAgentToolOptions<P>,
): FunctionTool<unknown, P, CheckedToolResult> {
  const { runner, maxTurns, maxOutputChars, input, ...checked } = options;
  const description =
    options.description ??
    (agent.handoffDescription.trim() !== '' ? agent.handoffDescription : `Runs the ${agent.name} agent`);
  return delegateTool({
    ...checked,
    name: options.name ?? agent.name,
    description,
    worker: agentWorker(agent, {
      ...(runner === undefined ? {} : { runner }),
      ...(maxTurns === undefined ? {} : { maxTurns }),
      ...(maxOutputChars === undefined ? {} : { maxOutputChars }),
      ...(input === undefined ? {} : { input }),
    }),
  });
}
