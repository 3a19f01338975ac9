/**
 * A Claude subagent as a delegation worker (layer 3, effects): a `DelegateFn` for `delegate`
 * whose answer is the subagent's final message, checked there like any worker's.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import type { Dispatch } from '../../contract/index.js';
import type { DelegateContext, DelegateFn } from '../../delegate/run-worker.js';
import { HandoffError } from '../../errors/index.js';
import type { ClaudeQuery } from './query.js';
import { runSubagent, type SubagentLimits, type SubagentRun, subagentLimits } from './subagent-run.js';
import { workerPrompt } from './worker-prompt.js';

/**
 * Options of {@link claudeWorker} and {@link claudeTransport}.
 *
 * @example
 * ```ts
 * const o: ClaudeWorkerOptions = { query, options: { cwd: projectRoot, tools: ['Read', 'Edit', 'Bash'], maxTurns: 20 } };
 * ```
 */
export interface ClaudeWorkerOptions {
  /** The SDK's `query` or a stand-in; omitted: the SDK's own, imported on first use. */
  readonly query?: ClaudeQuery;
  /** The prompt for one dispatch (default: `workerPrompt`). */
  readonly prompt?: (dispatch: Dispatch) => string;
  /**
   * SDK options. Set `cwd` to the project root (the subagent's tools resolve paths there);
   * `abortController` is linked, not used as is.
   */
  readonly options?: Options;
  readonly limits?: SubagentLimits;
  /** Sees every run that ended with a success result, before its answer is checked. */
  readonly onRun?: (run: SubagentRun, dispatch: Dispatch) => void;
}

/**
 * Checks the options shared by the worker adapters.
 *
 * @example
 * ```ts
 * const limits = workerOptions(o);
 * ```
 * @throws HandoffError `usage` for a `prompt` that is not a function or a bad limit.
 */
export function workerOptions(o: ClaudeWorkerOptions): Required<SubagentLimits> {
  if (typeof o !== 'object' || o === null)
    throw new HandoffError('usage', 'worker options must be an object');
  if (o.prompt !== undefined && typeof o.prompt !== 'function')
    throw new HandoffError('usage', 'prompt must be a function of the dispatch');
  return subagentLimits(o.limits);
}

/**
 * Adapts a Claude subagent to a `delegate` worker. Each call prompts the subagent with
 * `prompt(dispatch)`, aborts the SDK's AbortController when the delegation's signal aborts (its
 * `timeoutMs`, your `signal`), and returns the subagent's final answer — `structured_output`, else
 * the result text parsed as JSON, else the text — for `delegate` to check like any worker's: a
 * valid run-contract/v1 handoff echoing the task and owned set (else `refused`, `protocol-error`),
 * custody of every owned file and of everything else the subagent's tools could touch (project
 * files, git control files, the run store). A run without an answer (error result subtypes, no
 * result, a throwing query, over the limits) throws a `ClaudeSubagentError`: the delegation
 * `failed` with an `operational-error` stop, the owned files put back.
 *
 * @example
 * ```ts
 * const dispatch = await createDispatch({ target: 'src/greeting.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/greeting.ts'] });
 * const r = await delegate(dispatch, claudeWorker({ query, options: { cwd: process.cwd(), permissionMode: 'acceptEdits' } }), { timeoutMs: 600_000 });
 * console.log(r.outcome, r.handoff.status);
 * ```
 * @throws HandoffError `usage` (at creation) for a bad `prompt` or limit.
 */
export function claudeWorker(o: ClaudeWorkerOptions = {}): DelegateFn {
  const limits = workerOptions(o);
  const prompt = o.prompt ?? workerPrompt;
  return async (dispatch: Dispatch, context: DelegateContext): Promise<unknown> => {
    const out = await runSubagent({
      query: o.query,
      prompt: prompt(dispatch),
      options: o.options,
      signal: context.signal,
      limits,
    });
    if (!out.ok) throw out.error;
    o.onRun?.(out.run, dispatch);
    return out.run.answer;
  };
}
