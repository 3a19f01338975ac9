/**
 * The review router (layer 1, pure; seed 002 § Review Router, lean4-contracts §8): where a stuck
 * review's `next_action` sends the run. `redraft` and `golf` belong to the synthesis outer loop;
 * without one they are informational and the inner cycle resumes.
 */
import type { NextAction } from '../contract/index.js';

/**
 * Where the cycle goes after a stuck review: resume the inner cycle, deep mode, repair mode, the
 * outer loop, or halt.
 *
 * @example
 * ```ts
 * const r: Route = 'deep';
 * ```
 */
export type Route = 'resume' | 'deep' | 'repair' | 'outer' | 'halt';

/**
 * One row of the router table: the route with an active outer loop, the route without one, and
 * what the route does.
 *
 * @example
 * ```ts
 * const row: RouterRow = { route: 'halt', withoutOuterLoop: 'halt', description: 'halt the claim' };
 * ```
 */
export interface RouterRow {
  readonly route: Route;
  readonly withoutOuterLoop: Route;
  readonly description: string;
}

/**
 * The router table as data (`next_action` → route), in the contract's order; the docs render it.
 *
 * @example
 * ```ts
 * ROUTER_TABLE.redraft.route; // 'outer'
 * ROUTER_TABLE.redraft.withoutOuterLoop; // 'resume'
 * ```
 */
export const ROUTER_TABLE: Readonly<Record<NextAction, RouterRow>> = Object.freeze({
  continue: {
    route: 'resume',
    withoutOuterLoop: 'resume',
    description: 'resume the inner cycle with the revised plan',
  },
  deep: { route: 'deep', withoutOuterLoop: 'deep', description: 'enter deep mode on the stuck target' },
  repair: {
    route: 'repair',
    withoutOuterLoop: 'repair',
    description: 'enter repair mode on the active compiler errors',
  },
  redraft: {
    route: 'outer',
    withoutOuterLoop: 'resume',
    description: 're-draft the statement in the outer loop, checking provenance and statement policy',
  },
  golf: { route: 'outer', withoutOuterLoop: 'resume', description: 'a golf pass in the outer loop' },
  stop: { route: 'halt', withoutOuterLoop: 'halt', description: 'halt the claim: next claim or stop' },
});

/**
 * Routes a stuck review's `next_action`. `redraft`/`golf` go to the outer loop when one is
 * active; otherwise the inner cycle resumes and the detail says the action was informational. An
 * unknown action (a hostile or broken reviewer) halts, fail-closed.
 *
 * @example
 * ```ts
 * routeFor('deep', false); // { route: 'deep', detail: 'deep: enter deep mode on the stuck target' }
 * routeFor('golf', false).route; // 'resume'
 * ```
 */
export function routeFor(
  nextAction: NextAction,
  outerLoop: boolean,
): { readonly route: Route; readonly detail: string } {
  if (typeof nextAction !== 'string' || !Object.hasOwn(ROUTER_TABLE, nextAction)) {
    return { route: 'halt', detail: `unknown next_action ${JSON.stringify(String(nextAction))}: halting` };
  }
  const row = ROUTER_TABLE[nextAction];
  if (outerLoop || row.route === row.withoutOuterLoop) {
    return { route: row.route, detail: `${nextAction}: ${row.description}` };
  }
  return {
    route: row.withoutOuterLoop,
    detail: `${nextAction}: informational — no outer loop is active (${row.description}); resuming the inner cycle`,
  };
}
