/**
 * Shared pieces of the openai-agents adapter tests: tracing off (no exporter, nothing printed), a
 * lead agent on a scripted model that calls one tool and then repeats what the tool answered, run
 * by the SDK's real Runner.
 */
import { Agent, type FunctionTool, Runner, setTracingDisabled } from '@openai/agents';
import { type CheckedToolResult, checkedResults, type ToolParameters } from 'handoff-runtime/openai-agents';
import {
  callTool,
  lastToolOutput,
  say,
  scriptedModel,
} from '../../../examples/openai-agents/scripted-model.js';

setTracingDisabled(true);

/** What a lead agent's run with one tool call gave. */
export interface LeadRun {
  /** The checked results among the run's items. */
  readonly results: readonly CheckedToolResult[];
  /** The tool result's text as the lead model read it on its next turn. */
  readonly seen: string;
  /** The lead's final output. */
  readonly final: unknown;
}

/**
 * Runs a lead agent whose model calls `tool` with `args` (an object, or raw argument text) once,
 * then ends by repeating the tool's output.
 *
 * @example
 * ```ts
 * const { results } = await leadCalls(editFile, { file: 'src/greeting.ts' });
 * ```
 */
export async function leadCalls<P extends ToolParameters>(
  tool: FunctionTool<unknown, P, CheckedToolResult>,
  args: unknown,
): Promise<LeadRun> {
  let seen = '';
  const model = scriptedModel([
    () => [callTool(tool.name, args, 'call-1')],
    (request) => {
      seen = lastToolOutput(request);
      return [say(seen)];
    },
  ]);
  const lead = new Agent({
    name: 'lead',
    instructions: 'Delegate.',
    tools: [tool as unknown as FunctionTool],
    model,
  });
  const result = await new Runner({ tracingDisabled: true }).run(lead, 'go');
  return { results: checkedResults(result.newItems), seen, final: result.finalOutput };
}
