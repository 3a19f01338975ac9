/**
 * handoff-runtime/openai-agents — checked handoffs for the OpenAI Agents SDK (`@openai/agents`, an
 * optional peer dependency): `delegateTool` (a function tool whose result is a validated handoff),
 * `checkedAgentTool` (the `agent.asTool` pattern with a checked answer), `agentWorker` (a sub-agent
 * as a `delegate` worker), the sub-agent's tools (`ownedFileTools`, `handoffDraftTool`) and the
 * results' helpers. Guide: docs/integrations/openai-agents.md.
 *
 * Public names only, listed one by one.
 */

export { type AgentOutput, DEFAULT_MAX_OUTPUT_CHARS, readAgentOutput } from './agent-output.js';
export { type AgentWorkerOptions, agentWorker } from './agent-worker.js';
export { type CheckedAgentToolOptions, checkedAgentTool } from './checked-agent-tool.js';
export { currentDispatch } from './current-dispatch.js';
export {
  type CheckedToolOptions,
  type DelegateToolOptions,
  delegateTool,
  type ToolParameters,
} from './delegate-tool.js';
export { dispatchPrompt } from './dispatch-prompt.js';
export { handoffDraftTool } from './handoff-draft-tool.js';
export { MAX_READ_BYTES, ownedFileTools } from './owned-file-tools.js';
export { type Contained, containOwnedFiles, type OwnedScope } from './owned-scope.js';
export { checkedResults, isCheckedToolResult } from './run-results.js';
export type { CheckedToolResult, ToolCheck, ToolViolation } from './tool-result.js';
