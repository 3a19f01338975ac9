/**
 * What the nodes and routers of a chain graph share: the chain, the journal every commit goes to,
 * the stage time limit and the retry policy.
 */
import type { HandoffChain } from '../../chain/chain.js';
import type { ChainJournal } from '../../chain/journal.js';
import type { ChainNodeFailure } from './chain-state.js';

/**
 * Options of `chainGraph`.
 *
 * @example
 * ```ts
 * const o: ChainGraphOptions = {
 *   journal: createStoreChainJournal(createFsStore({ root: '.handoff' }), chain),
 *   retryWhen: (f) => f.code === 'stage_failed',
 * };
 * ```
 */
export interface ChainGraphOptions {
  /**
   * Where every commit is made durable before the next node runs, and what a node checks the
   * state's baton against. Default: an in-memory journal of this graph (use
   * `createStoreChainJournal` for the run store).
   */
  readonly journal?: ChainJournal;
  /** Per-stage time limit in ms (default the contract's `budget.timeout_seconds`). */
  readonly stageTimeoutMs?: number;
  /**
   * Whether a stage that committed nothing runs again from its checkpoint (same `stage_run_id`),
   * within the contract's `budget.max_attempts`. Default: never — the graph ends at the failure.
   * Never asked for `invalid_checkpoint`, `baton_not_committed` or `wrong_stage`.
   */
  readonly retryWhen?: (failure: ChainNodeFailure, attempt: number) => boolean;
}

/**
 * The options the building blocks take: those of `chainGraph`, with the journal they share.
 *
 * @example
 * ```ts
 * const wiring: ChainWiring = { chain, journal: createMemoryChainJournal() };
 * ```
 */
export interface ChainWiring extends ChainGraphOptions {
  readonly chain: HandoffChain;
  readonly journal: ChainJournal;
}
