/**
 * Scripted Claude Agent SDK message streams for the adapter tests, typed with the SDK's own
 * message types: a `query` stand-in that yields the given messages and runs the given actions
 * (write a file as a tool would, throw, hang) in order, and records how it was called and closed.
 * No network, no binary.
 */
import type { UUID } from 'node:crypto';
import type {
  NonNullableUsage,
  Options,
  SDKAssistantMessage,
  SDKMessage,
  SDKResultError,
  SDKResultSuccess,
  SDKSystemMessage,
  SDKUserMessage,
} from '@anthropic-ai/claude-agent-sdk';
import type { ClaudeQuery } from '../../../src/adapters/claude-agent-sdk/index.js';

export const SESSION = 'session-0001';

let counter = 0;
function uuid(): UUID {
  counter += 1;
  return `00000000-0000-4000-8000-${counter.toString(16).padStart(12, '0')}`;
}

const usage: NonNullableUsage = {
  cache_creation: { ephemeral_1h_input_tokens: 0, ephemeral_5m_input_tokens: 0 },
  cache_creation_input_tokens: 0,
  cache_read_input_tokens: 0,
  fallback_credit: null,
  inference_geo: 'us',
  input_tokens: 10,
  iterations: [],
  output_tokens: 20,
  output_tokens_details: { thinking_tokens: 0 },
  server_tool_use: { web_fetch_requests: 0, web_search_requests: 0 },
  service_tier: 'standard',
  speed: 'standard',
};

/** The `system`/`init` message a session starts with. */
export function initMessage(cwd = '/project'): SDKSystemMessage {
  return {
    type: 'system',
    subtype: 'init',
    apiKeySource: 'none',
    claude_code_version: '2.1.328',
    cwd,
    tools: ['Read', 'Edit', 'Bash'],
    mcp_servers: [],
    model: 'claude-haiku',
    permissionMode: 'acceptEdits',
    slash_commands: [],
    output_style: 'default',
    skills: [],
    plugins: [],
    uuid: uuid(),
    session_id: SESSION,
  };
}

/** An assistant message holding one text block. */
export function assistantText(text: string): SDKAssistantMessage {
  return {
    type: 'assistant',
    message: {
      id: `msg_${counter}`,
      container: null,
      content: [{ type: 'text', text, citations: null }],
      context_management: null,
      diagnostics: null,
      model: 'claude-haiku',
      role: 'assistant',
      stop_details: null,
      stop_reason: 'end_turn',
      stop_sequence: null,
      type: 'message',
      usage,
    },
    parent_tool_use_id: null,
    uuid: uuid(),
    session_id: SESSION,
  };
}

/** An assistant message calling a tool. */
export function toolUse(name: string, input: unknown, id = 'toolu_1'): SDKAssistantMessage {
  const m = assistantText('');
  return {
    ...m,
    message: { ...m.message, content: [{ type: 'tool_use', id, name, input }], stop_reason: 'tool_use' },
  };
}

/** The user message carrying a tool's result. */
export function toolResult(content: string, id = 'toolu_1'): SDKUserMessage {
  return {
    type: 'user',
    message: { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content }] },
    parent_tool_use_id: null,
    session_id: SESSION,
  };
}

/** The final `result` message of a successful turn. */
export function successResult(result: string, over: Partial<SDKResultSuccess> = {}): SDKResultSuccess {
  return {
    type: 'result',
    subtype: 'success',
    duration_ms: 1200,
    duration_api_ms: 900,
    is_error: false,
    num_turns: 2,
    result,
    stop_reason: 'end_turn',
    total_cost_usd: 0.0123,
    usage,
    modelUsage: {},
    permission_denials: [],
    uuid: uuid(),
    session_id: SESSION,
    ...over,
  };
}

/** The final `result` message of a turn that stopped early. */
export function errorResult(subtype: SDKResultError['subtype'], errors: string[] = []): SDKResultError {
  return {
    type: 'result',
    subtype,
    duration_ms: 1200,
    duration_api_ms: 900,
    is_error: true,
    num_turns: 5,
    stop_reason: null,
    total_cost_usd: 0.05,
    usage,
    modelUsage: {},
    permission_denials: [],
    errors,
    uuid: uuid(),
    session_id: SESSION,
  };
}

/**
 * What a scripted step may do besides yielding a fixed message (write a file as a tool would,
 * throw, hang): it gets the query's options and prompt; a message it returns is yielded.
 */
export type ScriptAction = (
  options: Options,
  prompt: string,
) => undefined | SDKMessage | Promise<undefined | SDKMessage>;
/** One step of a script: a message to yield, or an action to run. */
export type ScriptStep = SDKMessage | ScriptAction;

/** A scripted query and what happened to it. */
export interface Script {
  readonly query: ClaudeQuery;
  /** Each call's prompt and options. */
  readonly calls: { prompt: string; options: Options | undefined }[];
  /** Messages yielded so far. */
  yielded: number;
  /** True once the generator's `finally` ran (the consumer closed it, or it ended). */
  closed: boolean;
  /** The AbortController the adapter passed (last call). */
  controller(): AbortController | undefined;
}

/** A query that runs `steps` in order on every call. */
export function scriptedQuery(steps: readonly ScriptStep[]): Script {
  const s: Script = {
    calls: [],
    yielded: 0,
    closed: false,
    controller: () => s.calls.at(-1)?.options?.abortController,
    query: (params) => {
      s.calls.push({ prompt: params.prompt, options: params.options });
      const options = params.options ?? {};
      return (async function* () {
        try {
          for (const step of steps) {
            const m = typeof step === 'function' ? await step(options, params.prompt) : step;
            if (m !== undefined) {
              s.yielded += 1;
              yield m;
            }
          }
        } finally {
          s.closed = true;
        }
      })();
    },
  };
  return s;
}

/** An action that never settles (a query that never ends). */
export const hang: ScriptAction = () => new Promise<undefined>(() => {});

/** An action that waits until the SDK's AbortController aborts, then rejects like the SDK does. */
export const hangUntilAborted: ScriptAction = (options) =>
  new Promise<undefined>((_, reject) => {
    const signal = options.abortController?.signal;
    signal?.addEventListener('abort', () => reject(new Error('Claude Code process aborted by user')), {
      once: true,
    });
  });
