/**
 * Where a chain graph goes after a node (layer 1, pure): on to the next stage after a commit, back
 * to the same stage for a retry from its checkpoint (same `stage_run_id`) when the retry policy and
 * the contract's attempt budget allow it, else to the end.
 */

import type { ChainWiring } from './chain-graph-options.js';
import type { ChainNodeCode, ChainNodeFailure } from './chain-state.js';
import { END } from './peer.js';

const NEVER_RETRIED: readonly ChainNodeCode[] = ['invalid_checkpoint', 'baton_not_committed', 'wrong_stage'];

function revisionOf(baton: unknown): number | null {
  if (typeof baton !== 'object' || baton === null) return null;
  const r = (baton as { revision?: unknown }).revision;
  return typeof r === 'number' && Number.isInteger(r) && r >= 0 ? r : null;
}

/**
 * The router after the node of `stage` (or after the entry, `stage` = null): with no failure, the
 * next stage of the state's baton (`END` once complete); with a failure of this stage that may be
 * retried — not `invalid_checkpoint`, `baton_not_committed` or `wrong_stage`, fewer attempts than
 * the contract's `budget.max_attempts`, and `retryWhen(failure, attempt)` true — the same stage
 * again; else `END`. The next node checks the baton itself, so a forged state can only end the
 * graph early, never skip a check. Never throws.
 *
 * @example
 * ```ts
 * graph.addConditionalEdges('settle', routeAfterSeam({ chain, journal, retryWhen: () => true }, 'settle'));
 * ```
 */
export function routeAfterSeam(
  wiring: ChainWiring,
  stage: string | null,
): (state: { readonly baton?: unknown; readonly failure?: unknown; readonly attempt?: unknown }) => string {
  const { chain } = wiring;
  const max = chain.contract.budget.max_attempts;
  const route = (state: {
    readonly baton?: unknown;
    readonly failure?: unknown;
    readonly attempt?: unknown;
  }): string => {
    const failure = (state.failure ?? null) as ChainNodeFailure | null;
    if (failure === null) {
      const revision = revisionOf(state.baton);
      if (revision === null) return END;
      return chain.specs[revision]?.name ?? END;
    }
    if (stage === null || typeof failure !== 'object' || failure.stage !== stage) return END;
    if (NEVER_RETRIED.includes(failure.code)) return END;
    const attempt = typeof state.attempt === 'number' ? state.attempt : Number.POSITIVE_INFINITY;
    if (!(attempt < max)) return END;
    return wiring.retryWhen?.(failure, attempt) === true ? stage : END;
  };
  return (state) => {
    try {
      return route(state);
    } catch {
      // a state that cannot be read, or a retry policy that throws: the graph ends here
      return END;
    }
  };
}
