/**
 * An offline stand-in for the Claude Agent SDK's `query`: it yields SDK messages (typed with the
 * SDK's own types) and runs actions — what a subagent's tools would do — in order. The example
 * runs on it without a binary, a key or the network. To run real subagents, pass the SDK's
 * `query` instead (`import { query } from '@anthropic-ai/claude-agent-sdk'`); nothing else changes.
 */
import type { UUID } from 'node:crypto';
import type {
  NonNullableUsage,
  Options,
  SDKMessage,
  SDKResultSuccess,
  SDKSystemMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery } from 'handoff-runtime/claude-agent-sdk';

const SESSION = 'example-session';
let n = 0;
function uuid(): UUID {
  n += 1;
  return `00000000-0000-4000-8000-${n.toString(16).padStart(12, '0')}`;
}

const usage: NonNullableUsage = {
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  fallback_credit: null,
  inference_geo: 'us',
  input_tokens: 0,
  iterations: [],
  output_tokens: 0,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
  service_tier: 'standard',
  speed: 'standard',
};

/**
 * The `system`/`init` message a session opens with.
 *
 * @example
 * ```ts
 * initMessage('/app').subtype; // 'init'
 * ```
 */
export function initMessage(cwd: string): SDKSystemMessage {
  return {
    type: 'system',
    subtype: 'init',
    apiKeySource: 'none',
    claude_code_version: 'scripted',
    cwd,
    tools: ['Read', 'Edit', 'Bash'],
    mcp_servers: [],
    model: 'scripted',
    permissionMode: 'acceptEdits',
    slash_commands: [],
    output_style: 'default',
    skills: [],
    plugins: [],
    uuid: uuid(),
    session_id: SESSION,
  };
}

/**
 * The `result` message that ends a successful turn; `text` is the subagent's final answer.
 *
 * @example
 * ```ts
 * resultMessage('{"facts":[],"artifact_refs":[]}').subtype; // 'success'
 * ```
 */
export function resultMessage(text: string): SDKResultSuccess {
  return {
    type: 'result',
    subtype: 'success',
    duration_ms: 0,
    duration_api_ms: 0,
    is_error: false,
    num_turns: 1,
    result: text,
    stop_reason: 'end_turn',
    total_cost_usd: 0,
    usage,
    modelUsage: {},
    permission_denials: [],
    uuid: uuid(),
    session_id: SESSION,
  };
}

/**
 * One step of a scripted session: a message, or an action (a tool's effect) that may return the
 * next message; it sees the prompt and the options the adapter passed.
 *
 * @example
 * ```ts
 * const step: ScriptStep = async (prompt) => resultMessage(prompt.length > 0 ? '{}' : '[]');
 * ```
 */
export type ScriptStep =
  | SDKMessage
  | ((prompt: string, options: Options) => Promise<SDKMessage | undefined> | SDKMessage | undefined);

/**
 * A `query` that plays `steps` on every call.
 *
 * @example
 * ```ts
 * const query = scriptedQuery([initMessage('/app'), resultMessage('{"ok":true}')]);
 * ```
 */
export function scriptedQuery(steps: readonly ScriptStep[]): ClaudeQuery {
  return ({ prompt, options }) =>
    (async function* () {
      for (const step of steps) {
        const m = typeof step === 'function' ? await step(prompt, options ?? {}) : step;
        if (m !== undefined) yield m;
      }
    })();
}
