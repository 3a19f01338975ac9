/**
 * `routeOnVerdict` (layer 1, pure): the conditional-edge function that sends a graph on from a
 * delegation node by the verdict it recorded — re-derived from the record, never taken on its word.
 */
import { DELEGATION_VERDICTS, type DelegationVerdict, readDelegation } from './delegation-record.js';

/**
 * Where each verdict goes: a destination (a node name, or LangGraph's `END`) per verdict, or some
 * of them plus `otherwise` for the rest.
 *
 * @example
 * ```ts
 * const routes: VerdictRoutes = { solved: 'ship', stuck: 'review', otherwise: END };
 * ```
 */
export type VerdictRoutes<N extends string = string> =
  | { readonly [V in DelegationVerdict]: N }
  | ({ readonly [V in DelegationVerdict]?: N } & { readonly otherwise: N });

/**
 * A router for `addConditionalEdges`: reads the state's `delegation`, re-derives its verdict
 * (`readDelegation`: the record is re-validated and its verdict must follow from its outcome and
 * handoff) and returns that verdict's destination. A state whose record is missing, malformed or
 * forged routes as `refused` — fail closed. Never throws.
 *
 * @example
 * ```ts
 * graph.addConditionalEdges('fix', routeOnVerdict({ solved: END, stuck: 'review', refused: 'triage', otherwise: END }));
 * ```
 * @throws HandoffError never; a `routes` map that covers neither every verdict nor `otherwise`
 * does not type-check (and routes the uncovered verdicts to `otherwise`, undefined, at run time).
 */
export function routeOnVerdict<N extends string>(
  routes: VerdictRoutes<N>,
): (state: { readonly delegation?: unknown }) => N {
  const table = routes as Partial<Record<DelegationVerdict | 'otherwise', N>>;
  const to = (v: DelegationVerdict): N => (table[v] ?? table.otherwise) as N;
  return (state) => {
    let value: unknown;
    try {
      value = typeof state === 'object' && state !== null ? state.delegation : undefined;
    } catch {
      value = undefined; // a state that cannot be read routes as a refusal
    }
    const r = readDelegation(value);
    return to(r.ok ? r.record.verdict : 'refused');
  };
}

/**
 * The destinations a {@link VerdictRoutes} map can reach (for `addConditionalEdges`' path map, so
 * the drawn graph shows only the real edges).
 *
 * @example
 * ```ts
 * graph.addConditionalEdges('fix', routeOnVerdict(routes), verdictDestinations(routes));
 * ```
 */
export function verdictDestinations<N extends string>(routes: VerdictRoutes<N>): N[] {
  const table = routes as Partial<Record<DelegationVerdict | 'otherwise', N>>;
  const out: N[] = [];
  for (const v of [...DELEGATION_VERDICTS, 'otherwise'] as const) {
    const n = table[v];
    if (n !== undefined && !out.includes(n)) out.push(n);
  }
  return out;
}
