/**
 * `delegateNode` (layer 3, effects): a LangGraph node that runs a worker under `delegate` — the
 * dispatch recorded right before the call, every check applied to the answer, the attempt journaled
 * — after asking the rerun guard about the graph's previous delegation, and writes the result into
 * the state's `delegation` channel for a conditional edge to route on.
 */
import type { LangGraphRunnableConfig } from '@langchain/langgraph';
import { deepFreeze } from '../../canonical/index.js';
import { type Dispatch, type Handoff, sameTask } from '../../contract/index.js';
import { canRelaunch } from '../../delegate/can-relaunch.js';
import { createDispatch } from '../../delegate/create-dispatch.js';
import { type DelegateOptions, delegate } from '../../delegate/delegate.js';
import type { CreateDispatchInput } from '../../delegate/dispatch-record.js';
import type { DelegateContext } from '../../delegate/run-worker.js';
import { HandoffError } from '../../errors/index.js';
import { type DelegationRecord, readDelegation, verdictOf } from './delegation-record.js';
import type { DelegationState } from './delegation-state.js';

/**
 * What the worker of a delegation node receives besides the dispatch: the delegation's signal
 * (aborted on timeout, or when the graph run is aborted) and the graph state the node was given
 * (a frozen shallow copy: the worker cannot reassign a channel; nested values are LangGraph's).
 *
 * @example
 * ```ts
 * const worker: NodeWorker<typeof State.State> = async (d, { state, signal }) => myAgent(d, state.notes, signal);
 * ```
 */
export interface NodeWorkerContext<S> extends DelegateContext {
  readonly state: S;
}

/**
 * The worker a delegation node runs: the dispatch and the node's context in, a run-contract/v1
 * handoff out. Its answer is untrusted (read once, then checked).
 *
 * @example
 * ```ts
 * const worker: NodeWorker<DelegationState> = async (d) => handoffFor(d); // "solved, changed nothing"
 * ```
 */
export type NodeWorker<S> = (dispatch: Dispatch, context: NodeWorkerContext<S>) => unknown;

/**
 * Options of {@link delegateNode}.
 *
 * @example
 * ```ts
 * const o: DelegateNodeOptions<DelegationState> = {
 *   task: { target: 'src/greeting.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/greeting.ts'] },
 *   worker, store, timeoutMs: 120_000,
 * };
 * ```
 */
export interface DelegateNodeOptions<S> extends Omit<DelegateOptions, 'signal'> {
  /**
   * The task, or how to make it from the state. The node records the dispatch (`createDispatch`)
   * when it runs, right before the worker starts.
   */
  readonly task: CreateDispatchInput | ((state: S) => CreateDispatchInput | Promise<CreateDispatchInput>);
  readonly worker: NodeWorker<S>;
  /**
   * Ask the rerun guard before launching (default true): when the state's previous delegation is
   * a stuck, protocol-error or operational-error handoff of the same task, the worker runs again
   * only if the new task brings new evidence (`evidenceDelta`); else the node ends with
   * `relaunch_forbidden` without starting it. A task that names no `priorBlocker` of its own
   * addresses the prior handoff's `blocker_signature`.
   */
  readonly rerunGuard?: boolean;
}

/**
 * A LangGraph node function that reads and writes the `delegation` channel.
 *
 * @example
 * ```ts
 * const fix: DelegationNode<DelegationState> = delegateNode({ task, worker });
 * ```
 */
export type DelegationNode<S> = (
  state: S,
  config?: LangGraphRunnableConfig,
) => Promise<{ readonly delegation: DelegationRecord }>;

function priorHandoff(state: unknown): Handoff | null {
  if (typeof state !== 'object' || state === null) return null;
  const r = readDelegation((state as { delegation?: unknown }).delegation);
  return r.ok ? r.record.handoff : null;
}

/**
 * A relaunch of the task the prior handoff was stuck on addresses that blocker: the task's
 * `priorBlocker`, when it does not name one itself, is the prior `blocker_signature`.
 */
function withPriorBlocker(input: CreateDispatchInput, prior: Handoff | null): CreateDispatchInput {
  if (input.priorBlocker !== undefined || prior === null || prior.blocker_signature === null) return input;
  if (!sameTask(input, prior)) return input;
  return { ...input, priorBlocker: prior.blocker_signature };
}

/**
 * Makes a LangGraph node that runs `worker` under `delegate` and writes the outcome into the
 * state's `delegation` channel (see `DelegationAnnotation`): verdict, outcome, the validated
 * handoff, violations, the cite of the journaled handoff (with a `store`) and the rerun guard's
 * answer. Whatever the worker does — write outside its files, answer for another task, throw
 * something that is not an Error, never return — the node resolves to a record (the verdict says
 * what happened); it rejects only for the host's own mistakes (a task that is not a valid
 * dispatch, invalid options). The graph's abort signal aborts the worker (`failed`, `user-stop`).
 * The record is deep-frozen: a later node cannot edit it in place.
 *
 * @example
 * ```ts
 * const graph = new StateGraph(DelegationAnnotation)
 *   .addNode('fix', delegateNode({ task, worker, store }))
 *   .addNode('review', reviewNode)
 *   .addEdge(START, 'fix')
 *   .addConditionalEdges('fix', routeOnVerdict({ solved: END, stuck: 'review', otherwise: END }))
 *   .addEdge('review', END)
 *   .compile();
 * const { delegation } = await graph.invoke({});
 * ```
 * @throws HandoffError `usage` when `worker` is not a function; what `createDispatch` throws for a
 * task that is not a valid dispatch; `delegate`'s option errors.
 */
export function delegateNode<S = DelegationState>(options: DelegateNodeOptions<S>): DelegationNode<S> {
  if (typeof options !== 'object' || options === null)
    throw new HandoffError('usage', 'delegateNode needs { task, worker }');
  if (typeof options.worker !== 'function')
    throw new HandoffError('usage', 'delegateNode needs a worker function');
  const { task, worker, rerunGuard = true, ...delegateOptions } = options;
  return async (state, config) => {
    const input = typeof task === 'function' ? await task(state) : task;
    const prior = rerunGuard ? priorHandoff(state) : null;
    const dispatch = await createDispatch(withPriorBlocker(input, prior));
    const relaunch = rerunGuard ? canRelaunch(dispatch, prior) : null;
    if (relaunch !== null && !relaunch.allowed) {
      const record: DelegationRecord = {
        verdict: 'relaunch_forbidden',
        outcome: 'not_run',
        handoff: null,
        violations: [],
        cite: null,
        relaunch,
      };
      return deepFreeze({ delegation: record });
    }
    const signal = config?.signal;
    // the worker reads the state; it cannot reassign the node's view of it
    const seen = typeof state === 'object' && state !== null ? (Object.freeze({ ...state }) as S) : state;
    const result = await delegate(dispatch, (d, ctx) => worker(d, { signal: ctx.signal, state: seen }), {
      ...delegateOptions,
      ...(signal === undefined ? {} : { signal }),
    });
    const record: DelegationRecord = {
      verdict: verdictOf(result.outcome, result.handoff),
      outcome: result.outcome,
      handoff: result.handoff,
      violations: result.violations,
      cite: result.cite ?? null,
      relaunch,
    };
    return deepFreeze({ delegation: record });
  };
}
