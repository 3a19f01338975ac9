/**
 * handoff-runtime/langgraph — verifiable handoffs inside LangGraph graphs (`@langchain/langgraph`,
 * an optional peer dependency). Two patterns:
 * - `delegateNode` + `routeOnVerdict`: a node that runs a worker under `delegate` (dispatch,
 *   custody, handoff checks, journal, rerun guard) and a conditional edge on its verdict;
 * - `chainGraph`: a handoff chain as a linear graph whose every edge is a seam — stages are nodes,
 *   batons are committed to a journal between them, failures retry from the checkpoint.
 * Guide: docs/integrations/langgraph.md.
 *
 * Public names only, listed one by one.
 */
export { ADMIT_NODE, admitNode } from './admit-node.js';
export { type ChainStateGraph, chainGraph } from './chain-graph.js';
export type { ChainGraphOptions, ChainWiring } from './chain-graph-options.js';
export { type ChainGraphOutcome, chainGraphOutcome } from './chain-outcome.js';
export {
  CHAIN_STATE_KEYS,
  ChainGraphAnnotation,
  type ChainGraphCommit,
  type ChainGraphState,
  type ChainNodeCode,
  type ChainNodeFailure,
  type ChainNodeUpdate,
} from './chain-state.js';
export { journalRelation, readStateBaton } from './committed-baton.js';
export {
  type DelegateNodeOptions,
  type DelegationNode,
  delegateNode,
  type NodeWorker,
  type NodeWorkerContext,
} from './delegate-node.js';
export {
  DELEGATION_VERDICTS,
  type DelegationRecord,
  type DelegationVerdict,
  readDelegation,
  verdictOf,
} from './delegation-record.js';
export { DelegationAnnotation, type DelegationState } from './delegation-state.js';
export { routeOnVerdict, type VerdictRoutes, verdictDestinations } from './route-on-verdict.js';
export { seamNode } from './seam-node.js';
export { routeAfterSeam } from './seam-route.js';
