/**
 * The LangGraph state channel a delegation node writes: `delegation`, the last
 * {@link DelegationRecord} (null before the first delegation).
 */

import type { DelegationRecord } from './delegation-record.js';
import { Annotation } from './peer.js';

/**
 * The state of a graph with delegation nodes: one channel, `delegation`, holding the last
 * delegation's record (each delegation replaces the previous one; the run store keeps them all).
 * Spread its `spec` into your own state.
 *
 * @example
 * ```ts
 * const State = Annotation.Root({ ...DelegationAnnotation.spec, notes: Annotation<string[]>() });
 * const graph = new StateGraph(State);
 * ```
 */
export const DelegationAnnotation = Annotation.Root({
  delegation: Annotation<DelegationRecord | null>({
    reducer: (_prior: DelegationRecord | null, next: DelegationRecord | null) => next,
    default: () => null,
  }),
});

/**
 * The state a delegation node reads and writes.
 *
 * @example
 * ```ts
 * const s: DelegationState = { delegation: null };
 * ```
 */
export type DelegationState = typeof DelegationAnnotation.State;
