/**
 * The search grant a dispatch carries (layer 1, pure): the cycle runtime grants knowledge searches
 * through dispatch capabilities (`search-budget:N`, `search-fallback`) and checks the returned
 * handoff against the grant (src/cycle `searchViolation`). A delegated dispatch that carries such
 * capabilities is held to them the same way; one without a `search-budget:` capability grants no
 * budget and is not checked.
 */
import {
  EMPTY_LEDGER,
  FALLBACK_AFTER_INCONCLUSIVE,
  SEARCH_BUDGET_PREFIX,
  SEARCH_FALLBACK_CAPABILITY,
  type SearchLedger,
} from '../cycle/search-budget.js';

/**
 * What {@link searchGrantOf} reads from a dispatch: its budget and whether the gate was open.
 *
 * @example
 * ```ts
 * const g: DispatchSearchGrant | null = searchGrantOf(dispatch); if (g) searchViolation(handoff, g);
 * ```
 */
export interface DispatchSearchGrant {
  readonly budget: number;
  readonly ledger: SearchLedger;
}

/**
 * The grant of a dispatch's capabilities: the smallest `search-budget:N` (N a non-negative
 * integer), with the fallback gate open when `search-fallback` is granted; null when no budget is
 * granted (nothing to check).
 *
 * @example
 * ```ts
 * searchGrantOf({ capabilities: ['search-budget:2'] }); // { budget: 2, ledger: { inconclusive: 0, unavailable: [] } }
 * searchGrantOf({ capabilities: [] }); // null
 * ```
 */
export function searchGrantOf(dispatch: {
  readonly capabilities: readonly string[];
}): DispatchSearchGrant | null {
  const budgets = dispatch.capabilities
    .filter((c) => c.startsWith(SEARCH_BUDGET_PREFIX))
    .map((c) => c.slice(SEARCH_BUDGET_PREFIX.length))
    .filter((n) => /^[0-9]{1,6}$/.test(n))
    .map(Number);
  if (budgets.length === 0) return null;
  const open = dispatch.capabilities.includes(SEARCH_FALLBACK_CAPABILITY);
  return {
    budget: Math.min(...budgets),
    ledger: open ? { inconclusive: FALLBACK_AFTER_INCONCLUSIVE, unavailable: [] } : EMPTY_LEDGER,
  };
}
