/**
 * Route lookup (layer 1, pure): the allowlisted route from one agent to another, or null.
 */
import type { Route, RoutePolicy } from '../policy-schema.js';

/**
 * The route of `policy` from `from` to `to`, or null when the pair is not allowlisted.
 *
 * @example
 * ```ts
 * findRoute(policy, 'triage', 'billing')?.context.include; // ['customer_id', 'question']
 * findRoute(policy, 'triage', 'refunds'); // null: not allowlisted
 * ```
 */
export function findRoute(policy: Pick<RoutePolicy, 'routes'>, from: string, to: string): Route | null {
  return policy.routes.find((r) => r.from === from && r.to === to) ?? null;
}

/**
 * The key a route's grant count is kept under (`<from>→<to>`; agent names hold no control chars).
 *
 * @example
 * ```ts
 * routeKey('triage', 'billing'); // 'triage\u0000billing'
 * ```
 */
export function routeKey(from: string, to: string): string {
  return `${from}\u0000${to}`;
}
