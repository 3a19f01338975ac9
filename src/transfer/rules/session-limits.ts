/**
 * Per-session limits (layer 1, pure): a route's `max_per_session` and the policy's
 * `max_transfers`, counted over the session's granted transfers.
 */
import type { Route, RoutePolicy } from '../policy-schema.js';
import { routeKey } from './route-lookup.js';
import type { SessionState } from './session-state.js';

/**
 * Why one more transfer over `route` would break a limit, or null when it would not.
 *
 * @example
 * ```ts
 * limitReached(policy, route, state); // 'billing → refunds granted 1 of max_per_session 1'
 * ```
 */
export function limitReached(
  policy: Pick<RoutePolicy, 'max_transfers'>,
  route: Route,
  state: Pick<SessionState, 'transfers' | 'route_counts'>,
): string | null {
  const used = state.route_counts[routeKey(route.from, route.to)] ?? 0;
  if (route.max_per_session !== undefined && used >= route.max_per_session) {
    return `${route.from} → ${route.to} granted ${used} of max_per_session ${route.max_per_session}`;
  }
  if (policy.max_transfers !== undefined && state.transfers >= policy.max_transfers) {
    return `the session granted ${state.transfers} of max_transfers ${policy.max_transfers}`;
  }
  return null;
}
