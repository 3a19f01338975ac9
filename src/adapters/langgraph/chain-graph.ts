/**
 * `chainGraph` (layer 3, effects): a handoff chain as a linear LangGraph `StateGraph` — an entry
 * node that admits the baton, one node per stage, and between every two nodes the seam check and
 * the durable baton commit; a failed node loops back to itself for a retry from its checkpoint when
 * the retry policy allows.
 */
import type { StateGraph } from '@langchain/langgraph';
import type { HandoffChain } from '../../chain/chain.js';
import { createMemoryChainJournal } from '../../chain/journal.js';
import { HandoffError } from '../../errors/index.js';
import { ADMIT_NODE, admitNode } from './admit-node.js';
import type { ChainGraphOptions, ChainWiring } from './chain-graph-options.js';
import { CHAIN_STATE_KEYS, ChainGraphAnnotation } from './chain-state.js';
import { END, langgraph, START } from './peer.js';
import { seamNode } from './seam-node.js';
import { routeAfterSeam } from './seam-route.js';

/**
 * The uncompiled graph `chainGraph` returns (its node names are the chain's stage names and
 * `admit`).
 *
 * @example
 * ```ts
 * const g: ChainStateGraph = chainGraph(chain); const app = g.compile({ checkpointer: new MemorySaver() });
 * ```
 */
export type ChainStateGraph = StateGraph<
  typeof ChainGraphAnnotation.spec,
  typeof ChainGraphAnnotation.State,
  typeof ChainGraphAnnotation.Update,
  string
>;

/**
 * Builds the linear graph of `chain`: `START → admit → stage₁ → … → stageₙ → END`. Each stage
 * node runs its stage through the seam (`seamNode`): the state's baton must be the journal's last
 * commit, the stage gets a fresh read-only view, its delta passes every seam check or nothing is
 * committed, and the new baton is durable in the journal before the next node runs. After a
 * failure the graph ends — or, when `retryWhen` says so and the contract's `budget.max_attempts`
 * allows, runs the same node again from the checkpoint, under the same `stage_run_id`. Invoke the
 * compiled graph with `{ baton }` (`chain.newBaton(…)`, or a checkpoint / `journal.loadLast(id)`
 * to resume); `chainGraphOutcome` reads the result. Compile it with a checkpointer if you want
 * LangGraph's own persistence too; the journal stays the truth about the baton.
 *
 * @example
 * ```ts
 * const journal = createStoreChainJournal(createFsStore({ root: '.handoff' }), chain);
 * const app = chainGraph(chain, { journal, retryWhen: (f) => f.code === 'stage_failed' }).compile();
 * const final = await app.invoke({ baton: chain.newBaton({ baton_id: 'trip-1', intent: 'be there by 18:00' }) });
 * chainGraphOutcome(final).status; // 'accepted'
 * ```
 * @throws HandoffError `usage` when a stage is named `admit` or like a state channel (`baton`,
 * `failure`, `attempt`, `acceptance`, `commits`).
 */
export function chainGraph(chain: HandoffChain, options: ChainGraphOptions = {}): ChainStateGraph {
  const reserved: readonly string[] = [ADMIT_NODE, ...CHAIN_STATE_KEYS];
  const clash = chain.specs.map((s) => s.name).filter((n) => reserved.includes(n));
  if (clash.length > 0)
    throw new HandoffError(
      'usage',
      `a chain graph cannot name a stage ${clash.map((n) => `'${n}'`).join(', ')}`,
    );
  const wiring: ChainWiring = { ...options, chain, journal: options.journal ?? createMemoryChainJournal() };
  const graph = new langgraph.StateGraph(ChainGraphAnnotation) as unknown as ChainStateGraph;
  graph.addNode(ADMIT_NODE, admitNode(wiring));
  for (const spec of chain.specs) graph.addNode(spec.name, seamNode(wiring, spec.name));
  graph.addEdge(START, ADMIT_NODE);
  const names = chain.specs.map((s) => s.name);
  graph.addConditionalEdges(ADMIT_NODE, routeAfterSeam(wiring, null), [...names, END]);
  names.forEach((name, i) => {
    const next = names[i + 1];
    const targets = next === undefined ? [name, END] : [next, name, END];
    graph.addConditionalEdges(name, routeAfterSeam(wiring, name), targets);
  });
  return graph;
}
