/**
 * Search budgets and the fallback gate of the work phase (layer 1, pure; seed 002 § LSP-First
 * Protocol): a worker may run up to 2 knowledge searches per dispatch, never more than the
 * tracker's knowledge-search budget has left this cycle, and may fall back to a script search
 * only after 2 searches came back empty or inconclusive, or after a search tool was reported
 * unavailable. The runtime grants the budget and the fallback through dispatch capabilities and
 * checks the returned handoff against the grant.
 *
 * Conventions (docs/worker-protocol.md): a search is one `evidence.queries` entry; searches are
 * inconclusive when the handoff reports no `evidence.top_candidates` (a planner search when its
 * `top` list is empty); a fallback search is reported in `attempted_tools` as `fallback:<tool>`,
 * an unavailable search tool as `unavailable:<tool>`.
 */
import type { Handoff } from '../contract/index.js';
import { kwSearchRemaining } from '../tracker/counters.js';
import type { TrackerState } from '../tracker/schema.js';

/** Searches a worker may run per dispatch before any fallback. */
export const WORK_SEARCH_LIMIT = 2;
/** Inconclusive searches that open the fallback gate. */
export const FALLBACK_AFTER_INCONCLUSIVE = 2;
/** Capability granting the script fallback. */
export const SEARCH_FALLBACK_CAPABILITY = 'search-fallback';
/** Capability prefix carrying the search budget (`search-budget:2`). */
export const SEARCH_BUDGET_PREFIX = 'search-budget:';
/** `attempted_tools` prefix of a fallback search. */
export const FALLBACK_TOOL_PREFIX = 'fallback:';
/** `attempted_tools` prefix of a search tool found unavailable. */
export const UNAVAILABLE_TOOL_PREFIX = 'unavailable:';

/** What is known about one target's searches so far. */
export interface SearchLedger {
  /** Searches that came back empty or inconclusive. */
  readonly inconclusive: number;
  /** Search tools reported unavailable. */
  readonly unavailable: readonly string[];
}

/** A ledger with nothing recorded. */
export const EMPTY_LEDGER: SearchLedger = { inconclusive: 0, unavailable: [] };

/** The fallback gate's verdict. */
export interface GateVerdict {
  readonly open: boolean;
  readonly reason: string;
}

/**
 * The fallback gate: open after 2 empty/inconclusive searches or an unavailable search tool.
 *
 * @example
 * ```ts
 * fallbackGate({ inconclusive: 2, unavailable: [] }).open; // true
 * fallbackGate({ inconclusive: 1, unavailable: [] }).open; // false
 * ```
 */
export function fallbackGate(l: SearchLedger): GateVerdict {
  if (l.unavailable.length > 0)
    return { open: true, reason: `search tool unavailable: ${l.unavailable.join(', ')}` };
  if (l.inconclusive >= FALLBACK_AFTER_INCONCLUSIVE) {
    return { open: true, reason: `${l.inconclusive} searches came back empty or inconclusive` };
  }
  return {
    open: false,
    reason: `fallback needs ${FALLBACK_AFTER_INCONCLUSIVE} empty/inconclusive searches or an unavailable tool (have ${l.inconclusive})`,
  };
}

/** What a dispatch is granted. */
export interface SearchGrant {
  /** Searches allowed in this dispatch: min(2, the tracker's knowledge-search budget left). */
  readonly budget: number;
  /** Whether the fallback gate was open at dispatch. */
  readonly fallback: boolean;
  /** The dispatch capabilities that carry the grant. */
  readonly capabilities: readonly string[];
}

/**
 * The grant of one dispatch, from the tracker's knowledge-search counters and the target's ledger.
 *
 * @example
 * ```ts
 * searchGrant(tracker, now, EMPTY_LEDGER).capabilities; // ['search-budget:2']
 * ```
 */
export function searchGrant(tracker: TrackerState, nowMs: number, l: SearchLedger): SearchGrant {
  const budget = Math.min(WORK_SEARCH_LIMIT, kwSearchRemaining(tracker, nowMs));
  return { budget, fallback: fallbackGate(l).open, capabilities: grantCapabilities(budget, l) };
}

/**
 * The dispatch capabilities carrying a grant: `search-budget:N`, plus `search-fallback` when the
 * gate is open.
 *
 * @example
 * ```ts
 * grantCapabilities(2, { inconclusive: 2, unavailable: [] }); // ['search-budget:2', 'search-fallback']
 * ```
 */
export function grantCapabilities(budget: number, l: SearchLedger): string[] {
  return [`${SEARCH_BUDGET_PREFIX}${budget}`, ...(fallbackGate(l).open ? [SEARCH_FALLBACK_CAPABILITY] : [])];
}

/**
 * Adds planner searches to a ledger (a search with an empty `top` list is inconclusive).
 *
 * @example
 * ```ts
 * ledgerAfterPlan(EMPTY_LEDGER, [{ tool: 'loogle', query: 'q', top: [] }]).inconclusive; // 1
 * ```
 */
export function ledgerAfterPlan(
  l: SearchLedger,
  searches: readonly { readonly top: readonly string[] }[],
): SearchLedger {
  return { ...l, inconclusive: l.inconclusive + searches.filter((s) => s.top.length === 0).length };
}

/**
 * Adds a worker handoff's searches to a ledger: its queries are inconclusive when it reports no
 * top candidate; `unavailable:<tool>` entries record unavailable tools.
 *
 * @example
 * ```ts
 * ledgerAfterHandoff(EMPTY_LEDGER, handoff).inconclusive; // 1 for one query without candidates
 * ```
 */
export function ledgerAfterHandoff(
  l: SearchLedger,
  h: Pick<Handoff, 'attempted_tools' | 'evidence'>,
): SearchLedger {
  const empty = h.evidence.top_candidates.length === 0 ? h.evidence.queries.length : 0;
  const unavailable = h.attempted_tools
    .filter((t) => t.startsWith(UNAVAILABLE_TOOL_PREFIX))
    .map((t) => t.slice(UNAVAILABLE_TOOL_PREFIX.length));
  return {
    inconclusive: l.inconclusive + empty,
    unavailable: [...new Set([...l.unavailable, ...unavailable])],
  };
}

/**
 * Checks a worker handoff against its grant; null when it kept it. More searches than the budget,
 * or a fallback search while the gate stayed closed (counting the handoff's own inconclusive
 * searches and unavailable tools), is a violation.
 *
 * @example
 * ```ts
 * searchViolation(handoff, { budget: 2, ledger: EMPTY_LEDGER }); // null, or 'the worker ran 3 searches …'
 * ```
 */
export function searchViolation(
  h: Pick<Handoff, 'attempted_tools' | 'evidence'>,
  grant: { readonly budget: number; readonly ledger: SearchLedger },
): string | null {
  const n = h.evidence.queries.length;
  if (n > grant.budget) return `the worker ran ${n} searches; its search budget was ${grant.budget}`;
  const fallbacks = h.attempted_tools.filter((t) => t.startsWith(FALLBACK_TOOL_PREFIX));
  if (fallbacks.length === 0) return null;
  const gate = fallbackGate(ledgerAfterHandoff(grant.ledger, h));
  return gate.open
    ? null
    : `script fallback (${fallbacks.join(', ')}) before the fallback gate opened: ${gate.reason}`;
}
