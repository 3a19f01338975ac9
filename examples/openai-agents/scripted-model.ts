/**
 * A scripted model for the OpenAI Agents SDK (offline, deterministic): it implements the SDK's
 * `Model` interface and answers each turn from a script — a tool call, or a final message — so the
 * SDK's real `Runner` runs the agent loop and calls the tools, with no network and no API key.
 * Replace it with a real model (`model: 'gpt-5.4-mini'` and `OPENAI_API_KEY`) and nothing else in
 * the example changes.
 */
import {
  type AgentOutputItem,
  type Model,
  type ModelRequest,
  type ModelResponse,
  Usage,
} from '@openai/agents';

/**
 * One turn of the script: what the model answers, given the request (the turn's input, with the
 * results of earlier tool calls).
 *
 * @example
 * ```ts
 * const turn: ScriptTurn = () => [callTool('edit_file', { file: 'src/a.ts' }, 'call-1')];
 * ```
 */
export type ScriptTurn = (request: ModelRequest) => AgentOutputItem[];

/**
 * A model that plays `turns` in order, one per request, and fails the run when asked for more.
 *
 * @example
 * ```ts
 * const agent = new Agent({ name: 'lead', model: scriptedModel([() => [say('done')]]) });
 * ```
 */
export function scriptedModel(turns: readonly ScriptTurn[]): Model {
  let next = 0;
  return {
    async getResponse(request: ModelRequest): Promise<ModelResponse> {
      const turn = turns[next];
      next += 1;
      if (turn === undefined) throw new Error(`the script has no turn ${next}`);
      return { usage: new Usage(), output: turn(request), responseId: `scripted-${next}` };
    },
    // biome-ignore lint/correctness/useYield: a scripted model does not stream
    async *getStreamedResponse() {
      throw new Error('the scripted model does not stream');
    },
  };
}

/**
 * The model's call of a function tool.
 *
 * @example
 * ```ts
 * callTool('write_owned_file', { path: 'src/a.ts', content: 'x' }, 'call-1');
 * ```
 */
export function callTool(name: string, args: unknown, callId: string): AgentOutputItem {
  const text = typeof args === 'string' ? args : JSON.stringify(args);
  return { type: 'function_call', callId, name, arguments: text, status: 'completed' };
}

/**
 * The model's final message.
 *
 * @example
 * ```ts
 * say('All done.');
 * ```
 */
export function say(text: string): AgentOutputItem {
  return {
    type: 'message',
    role: 'assistant',
    status: 'completed',
    content: [{ type: 'output_text', text }],
  };
}

/**
 * The text of the last tool result in a request's input ('' when there is none).
 *
 * @example
 * ```ts
 * const result = JSON.parse(lastToolOutput(request)); // a checked tool's result
 * ```
 */
export function lastToolOutput(request: ModelRequest): string {
  const input = Array.isArray(request.input) ? request.input : [];
  for (let i = input.length - 1; i >= 0; i--) {
    const item = input[i];
    if (item?.type !== 'function_call_result') continue;
    const out: unknown = item.output;
    if (typeof out === 'string') return out;
    if (typeof out === 'object' && out !== null && 'text' in out && typeof out.text === 'string')
      return out.text;
    return JSON.stringify(out);
  }
  return '';
}
