/**
 * handoff-runtime/claude-agent-sdk — Claude Agent SDK subagents as checked specialists: a chain
 * stage (`claudeStage`, whose final message must be the stage's StageDelta, judged by the seam)
 * and a worker (`claudeWorker` for `delegate`, `claudeTransport` for the cycle runtime's
 * delegating worker, whose final message must be a run-contract/v1 handoff, checked with custody).
 * The SDK (`@anthropic-ai/claude-agent-sdk`) is an optional peer: inject its `query`, or let the
 * adapters import it on first use. Guide: docs/integrations/claude-agent-sdk.md.
 *
 * Public names only, listed one by one.
 */
export { type AnswerText, parseAnswerText } from './answer-text.js';
export { CLAUDE_AGENT_SDK, type ClaudeQuery, loadClaudeQuery } from './query.js';
export { type ClaudeStageOptions, claudeStage } from './stage.js';
export { type StagePromptInput, stagePrompt } from './stage-prompt.js';
export { ClaudeSubagentError, type SubagentFailureReason } from './subagent-error.js';
export {
  DEFAULT_SUBAGENT_LIMITS,
  type RunSubagentInput,
  runSubagent,
  type SubagentLimits,
  type SubagentOutcome,
  type SubagentRun,
} from './subagent-run.js';
export { claudeTransport } from './transport.js';
export { type ClaudeWorkerOptions, claudeWorker } from './worker.js';
export { workerPrompt } from './worker-prompt.js';
