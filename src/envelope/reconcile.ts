/**
 * Recognition of the terminal reconciliation tuple (`routeKind: needs_reconcile`,
 * `selectedGate: fail_closed_reconcile`, `selectedStrategy: null`) in wrapped and bare resolver
 * output. A result that carries any reconcile marker but is not the exact tuple fails closed.
 */
import { RECONCILE_BUNDLE_KIND, RECONCILE_OUTER_STRATEGY, RECONCILE_TUPLE } from './constants.js';
import { envelopeError } from './errors.js';

type Rec = Readonly<Record<string, unknown>>;

/** How a resolver result routes: ordinary routed work, or the terminal reconciliation tuple. */
export type RouteClass = { readonly kind: 'routed' } | { readonly kind: 'reconcile' };

/**
 * True when the bundle (or its wrapper) carries any reconcile marker.
 *
 * @example
 * ```ts
 * hasReconcileMarker({ routeKind: 'needs_reconcile' }, undefined); // true
 * ```
 */
export function hasReconcileMarker(bundle: Rec, outer: Rec | undefined): boolean {
  return (
    bundle.routeKind === RECONCILE_TUPLE.routeKind ||
    bundle.selectedGate === RECONCILE_TUPLE.selectedGate ||
    bundle.bundleKind === RECONCILE_BUNDLE_KIND ||
    outer?.bundleKind === RECONCILE_BUNDLE_KIND
  );
}

/**
 * Lists why a reconcile-marked result is not the exact terminal tuple (empty when it is).
 * `outer` is the wrapper of a wrapped startup result, `undefined` for a bare bundle.
 *
 * @example
 * ```ts
 * reconcileTupleProblems({ routeKind: 'needs_reconcile', selectedGate: 'fail_closed_reconcile', selectedStrategy: null }, undefined); // []
 * ```
 */
export function reconcileTupleProblems(bundle: Rec, outer: Rec | undefined): string[] {
  const problems: string[] = [];
  const expect = (ok: boolean, what: string) => {
    if (!ok) problems.push(what);
  };
  expect(bundle.routeKind === RECONCILE_TUPLE.routeKind, `routeKind must be "${RECONCILE_TUPLE.routeKind}"`);
  expect(
    bundle.selectedGate === RECONCILE_TUPLE.selectedGate,
    `selectedGate must be "${RECONCILE_TUPLE.selectedGate}"`,
  );
  if (outer === undefined) {
    expect(bundle.selectedStrategy === null, 'selectedStrategy must be null');
    expect(
      bundle.bundleKind === undefined || bundle.bundleKind === RECONCILE_BUNDLE_KIND,
      `bundleKind, when present, must be "${RECONCILE_BUNDLE_KIND}"`,
    );
  } else {
    expect(bundle.selectedStrategy === null, 'bundle.selectedStrategy must be null');
    expect(outer.bundleKind === RECONCILE_BUNDLE_KIND, `bundleKind must be "${RECONCILE_BUNDLE_KIND}"`);
    expect(
      bundle.bundleKind === RECONCILE_BUNDLE_KIND,
      `bundle.bundleKind must be "${RECONCILE_BUNDLE_KIND}"`,
    );
    expect(
      outer.selectedStrategy === RECONCILE_OUTER_STRATEGY,
      `selectedStrategy (outer display key) must be "${RECONCILE_OUTER_STRATEGY}"`,
    );
  }
  return problems;
}

/**
 * Classifies a resolver result.
 *
 * @example
 * ```ts
 * classifyRoute({ selectedStrategy: 'wait_watch' }, undefined); // { kind: 'routed' }
 * ```
 * @throws HandoffError `envelope_reconcile_tuple` when a reconcile marker is present but the
 * tuple is incomplete or contradictory (details list the problems).
 */
export function classifyRoute(bundle: Rec, outer: Rec | undefined): RouteClass {
  if (!hasReconcileMarker(bundle, outer)) return { kind: 'routed' };
  const problems = reconcileTupleProblems(bundle, outer);
  if (problems.length > 0) {
    throw envelopeError(
      'envelope_reconcile_tuple',
      `resolver output is marked for reconciliation but is not the terminal tuple: ${problems.join('; ')}`,
      { problems, wrapped: outer !== undefined },
    );
  }
  return { kind: 'reconcile' };
}
