/**
 * An OpenAI Agents SDK agent as a delegate worker (layer 3, adapter): the `agent.asTool` pattern
 * with a checked answer — the sub-agent runs on the dispatch, edits the owned files through its
 * own tools, and its final output must be a run-contract/v1 handoff, which `delegate` then checks
 * like any worker's.
 */
import type { Agent, AgentInputItem, AgentOutputType, Runner } from '@openai/agents';
import { advanceBaseline } from '../../baseline/index.js';
import { canonicalJson } from '../../canonical/index.js';
import type { Dispatch, Handoff } from '../../contract/index.js';
import { stoppedHandoff } from '../../delegate/refusal-handoff.js';
import type { DelegateFn } from '../../delegate/run-worker.js';
import { DEFAULT_MAX_OUTPUT_CHARS, readAgentOutput } from './agent-output.js';
import { withDispatch } from './current-dispatch.js';
import { dispatchPrompt } from './dispatch-prompt.js';
import { lastDraftRefusal } from './handoff-draft-tool.js';
import { openaiAgents } from './sdk.js';

/**
 * How a sub-agent is run as a worker.
 *
 * @example
 * ```ts
 * const o: AgentWorkerOptions = { runner: new Runner({ modelProvider }), maxTurns: 20 };
 * ```
 */
export interface AgentWorkerOptions {
  /** The runner of the sub-agent's run (default: a new `Runner()` with the SDK's defaults). */
  readonly runner?: Runner;
  /** The sub-agent's turn limit (default: the SDK's); past it the attempt is an operational error. */
  readonly maxTurns?: number;
  /** The longest final output text read (default {@link DEFAULT_MAX_OUTPUT_CHARS}). */
  readonly maxOutputChars?: number;
  /** The sub-agent's input for a dispatch (default {@link dispatchPrompt}). */
  readonly input?: (dispatch: Dispatch) => string | AgentInputItem[];
}

/**
 * The protocol-error stop the adapter writes for a sub-agent whose answer cannot be read, with the
 * custody the disk shows: the owned files whose bytes changed are reported as changed (advanced
 * from the disk), so the checks judge the stop itself — and an edit elsewhere is still refused.
 * When the owned files cannot be read (a link in place of one), the stop keeps the dispatch's
 * baseline and the checks refuse it.
 */
async function protocolStop(d: Dispatch, detail: string): Promise<Handoff> {
  const stop = stoppedHandoff(d, 'protocol-error', detail);
  try {
    const now = await advanceBaseline(d.file_baseline, d.owned_files);
    const before = new Map(d.file_baseline.files.map((f) => [f.path, canonicalJson(f)]));
    const changed = now.files.filter((f) => before.get(f.path) !== canonicalJson(f)).map((f) => f.path);
    if (changed.length === 0) return stop;
    return { ...stop, files_changed: changed, file_baseline: now };
  } catch {
    return stop;
  }
}

/**
 * A delegate worker that runs `agent` on the dispatch: the input is {@link dispatchPrompt} (or
 * `options.input`), the dispatch is current for the run (so `ownedFileTools` and
 * `handoffDraftTool` act on its owned files), the worker's signal aborts the run, and the final
 * output is read as the answer — an object from a structured `outputType`, or a text holding one
 * JSON object. A final output that is none of these (prose, malformed or truncated JSON, longer
 * than `maxOutputChars`) is refused (a `schema` finding whose detail names the defect and, when
 * `handoff_draft` refused the sub-agent's call, its reason); none at all because a tool asked for
 * approval makes the answer a `protocol-error` stop; a run that throws (turn limit, model error)
 * is an operational error. Either way the owned files are put back.
 *
 * @example
 * ```ts
 * const fixer = new Agent({ name: 'fixer', instructions: '…', tools: [...ownedFileTools(), handoffDraftTool()] });
 * const r = await delegate(dispatch, agentWorker(fixer, { maxTurns: 20 }), { store });
 * ```
 */
export function agentWorker<TContext, TOutput extends AgentOutputType>(
  agent: Agent<TContext, TOutput>,
  options: AgentWorkerOptions = {},
): DelegateFn {
  const maxChars = options.maxOutputChars ?? DEFAULT_MAX_OUTPUT_CHARS;
  return async (d, { signal }) => {
    const runner = options.runner ?? new openaiAgents.Runner();
    const input = options.input === undefined ? dispatchPrompt(d) : options.input(d);
    const result = await withDispatch(d, () =>
      runner.run(agent, input, {
        signal,
        ...(options.maxTurns === undefined ? {} : { maxTurns: options.maxTurns }),
      }),
    );
    if (result.interruptions.length > 0) {
      return protocolStop(
        d,
        'the sub-agent stopped for a tool approval; a checked sub-agent must finish on its own',
      );
    }
    const read = readAgentOutput(result.finalOutput, maxChars);
    if (!read.ok) {
      // not a record: the answer is refused (a schema finding, like the other adapters' prose),
      // with why — and why handoff_draft refused, when it did
      const refusal = lastDraftRefusal(d);
      const why = `the sub-agent's final output ${read.detail}`;
      return refusal === undefined ? why : `${why}; handoff_draft answered: ${refusal}`;
    }
    return read.value;
  };
}
