/**
 * Pattern 1: a LangGraph node that delegates. `fix` runs a subagent under `delegate`; a
 * conditional edge sends the graph on by the verdict — `ship` when the handoff is solved and passed
 * every check, `triage` when a check refused it or the subagent failed, `review` when it is stuck.
 */
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { advanceBaseline, handoffFor, type Store } from 'handoff-runtime';
import {
  DelegationAnnotation,
  type DelegationRecord,
  delegateNode,
  type NodeWorker,
  routeOnVerdict,
  type VerdictRoutes,
  verdictDestinations,
} from 'handoff-runtime/langgraph';
import type { Subagent } from './subagent.js';

/**
 * The graph's state: the delegation channel, the request for the subagent, and the nodes visited.
 *
 * @example
 * ```ts
 * const s: FixState = { delegation: null, request: 'fill the greeting', path: [] };
 * ```
 */
export const FixAnnotation = Annotation.Root({
  ...DelegationAnnotation.spec,
  request: Annotation<string>(),
  path: Annotation<string[]>({ reducer: (a: string[], b: string[]) => [...a, ...b], default: () => [] }),
});

/**
 * The state of the fix graph.
 *
 * @example
 * ```ts
 * const s: FixState = await graph.invoke({ request: 'fill the greeting' });
 * ```
 */
export type FixState = typeof FixAnnotation.State;

/**
 * The edge out of `fix`, by verdict.
 *
 * @example
 * ```ts
 * FIX_ROUTES.solved; // 'ship'
 * ```
 */
export const FIX_ROUTES: VerdictRoutes<'ship' | 'review' | 'triage'> = {
  solved: 'ship',
  stuck: 'review',
  otherwise: 'triage',
};

/**
 * The whole adapter for a subagent: it edits the owned files on the state's request; the worker
 * advances their baseline and reports them. The node checks everything else.
 *
 * @example
 * ```ts
 * delegateNode({ task, worker: asNodeWorker(markerSubagent('hello')) });
 * ```
 */
export function asNodeWorker(subagent: Subagent): NodeWorker<FixState> {
  return async (d, { state }) => {
    await subagent.run(state.request, d.owned_files);
    const file_baseline = await advanceBaseline(d.file_baseline, d.owned_files);
    return handoffFor(d, { files_changed: [...d.owned_files], file_baseline });
  };
}

/**
 * `START → fix → ship | review | triage → END`, with `fix` delegating `file` (relative to
 * `projectRoot`) to `subagent` and journaling to `store`.
 *
 * @example
 * ```ts
 * const final = await fixGraph({ projectRoot, file: 'src/greeting.ts', subagent, store }).invoke({ request: 'say hello' });
 * ```
 */
export function fixGraph(o: {
  readonly projectRoot: string;
  readonly file: string;
  readonly subagent: Subagent;
  readonly store: Store;
}) {
  const visit = (name: string) => async () => ({ path: [name] });
  return new StateGraph(FixAnnotation)
    .addNode(
      'fix',
      delegateNode<FixState>({
        task: {
          target: `${o.file}:1`,
          scope: 'file',
          mode: 'autoprove',
          ownedFiles: [o.file],
          cwd: o.projectRoot,
        },
        worker: asNodeWorker(o.subagent),
        store: o.store,
        projectRoot: o.projectRoot,
        timeoutMs: 60_000,
      }),
    )
    .addNode('ship', visit('ship'))
    .addNode('review', visit('review'))
    .addNode('triage', visit('triage'))
    .addEdge(START, 'fix')
    .addConditionalEdges('fix', routeOnVerdict(FIX_ROUTES), verdictDestinations(FIX_ROUTES))
    .addEdge('ship', END)
    .addEdge('review', END)
    .addEdge('triage', END)
    .compile();
}

/**
 * What one run of the fix graph did.
 *
 * @example
 * ```ts
 * summarize(final); // { verdict: 'solved', path: ['ship'], cite: '…#1', violations: [], detail: null }
 * ```
 */
export interface FixSummary {
  readonly verdict: DelegationRecord['verdict'];
  readonly path: readonly string[];
  readonly cite: string | null;
  readonly violations: readonly string[];
  readonly detail: string | null;
}

/**
 * The summary of a final fix-graph state.
 *
 * @example
 * ```ts
 * summarize(await graph.invoke({ request: 'say hello' })).verdict; // 'solved'
 * ```
 */
export function summarize(s: FixState): FixSummary {
  const r = s.delegation;
  return {
    verdict: r?.verdict ?? 'refused',
    path: s.path,
    cite: r?.cite ?? null,
    violations: (r?.violations ?? []).map((v) => v.check),
    detail: r?.handoff?.stop_detail ?? null,
  };
}
