/**
 * Reading a chain graph's final state (layer 1, pure): accepted, stopped at a failure, or still
 * running (a graph interrupted between nodes).
 */
import type { AcceptanceReceipt } from '../../chain/acceptance-receipt.js';
import type { Baton } from '../../chain/baton.js';
import type { ChainGraphCommit, ChainNodeFailure } from './chain-state.js';

/**
 * The outcome of a chain graph run.
 *
 * @example
 * ```ts
 * const o: ChainGraphOutcome = chainGraphOutcome(final);
 * ```
 */
export interface ChainGraphOutcome {
  /** `accepted` (acceptance receipt present), `stopped` (a failure), `running` (neither yet). */
  readonly status: 'accepted' | 'stopped' | 'running';
  /** The last committed baton: the final one, or the checkpoint to resume from. */
  readonly baton: Baton | null;
  readonly acceptance: AcceptanceReceipt | null;
  readonly failure: ChainNodeFailure | null;
  readonly commits: readonly ChainGraphCommit[];
}

/**
 * The outcome of a chain graph's state (what `invoke` resolved to, or `getState(config).values`).
 *
 * @example
 * ```ts
 * const { status, failure } = chainGraphOutcome(await app.invoke({ baton: b0 }));
 * if (status === 'stopped') console.log(failure?.code, failure?.stage);
 * ```
 */
export function chainGraphOutcome(state: {
  readonly baton?: Baton | null;
  readonly failure?: ChainNodeFailure | null;
  readonly acceptance?: AcceptanceReceipt | null;
  readonly commits?: readonly ChainGraphCommit[];
}): ChainGraphOutcome {
  const failure = state.failure ?? null;
  const acceptance = failure === null ? (state.acceptance ?? null) : null;
  return {
    status: failure !== null ? 'stopped' : acceptance !== null ? 'accepted' : 'running',
    baton: state.baton ?? null,
    acceptance,
    failure,
    commits: state.commits ?? [],
  };
}
