/**
 * What a reservation rests on (pure): the route decision that recommended the continuation, bound
 * to the packet it routed, the candidate the work continues from and the contract revision the
 * ledger registered, by one digest (`route_digest`). The enforcer re-checks it before it grants:
 * the digest recomputes, the decision's own `route_id` recomputes (an edited decision fails), the
 * route is `CONTINUATION_ELIGIBLE`, and the candidate is the live tree. A digest proves which
 * decision is meant, not who made it: anyone can compute one, so the live-tree check and the
 * ledger's own slot rules stay what bounds the work.
 */
import { digestOf } from '../canonical/index.js';
import type { CandidateBinding } from './contract-schema.js';
import { contentId } from './ids.js';
import type { RouteDecision } from './route-schema.js';

/**
 * The route that may rest a continuation reservation.
 *
 * @example
 * ```ts
 * if (decision.route === CONTINUATION_ROUTE) await ledger.reserve(request, { live });
 * ```
 */
export const CONTINUATION_ROUTE = 'CONTINUATION_ELIGIBLE';

/**
 * Why the enforcer refuses a reservation's basis (the other refusals are the ledger's slot rules).
 *
 * @example
 * ```ts
 * const reason: BasisRefusal = 'stale_candidate';
 * ```
 */
export type BasisRefusal =
  | 'no_route_decision'
  | 'route_digest_mismatch'
  | 'route_not_eligible'
  | 'stale_candidate';

/**
 * What a continuation reservation carries besides its key and candidate.
 *
 * @example
 * ```ts
 * const basis: ReservationBasis = reservationBasis(decision, packet.candidate, contract.revision);
 * ```
 */
export interface ReservationBasis {
  readonly route_decision: RouteDecision;
  readonly route_digest: string;
}

/**
 * The digest binding a route decision to its packet, the candidate and the contract revision:
 * canonical sha256 over `{packet_id, tree_digest, contract_revision, route}`.
 *
 * @example
 * ```ts
 * routeDigest({ route: decision, tree_digest: packet.candidate.tree_digest, contract_revision: 1 });
 * ```
 */
export function routeDigest(input: {
  readonly route: RouteDecision;
  readonly tree_digest: string;
  readonly contract_revision: number;
}): string {
  return digestOf({
    packet_id: input.route.packet_id,
    tree_digest: input.tree_digest,
    contract_revision: input.contract_revision,
    route: input.route,
  });
}

/**
 * The basis a continuation reservation carries: the decision and its digest.
 *
 * @example
 * ```ts
 * ledger.reserve({ ...request, ...reservationBasis(decision, packet.candidate, contract.revision) }, { live });
 * ```
 */
export function reservationBasis(
  route: RouteDecision,
  candidate: CandidateBinding,
  contractRevision: number,
): ReservationBasis {
  return {
    route_decision: route,
    route_digest: routeDigest({
      route,
      tree_digest: candidate.tree_digest,
      contract_revision: contractRevision,
    }),
  };
}

/**
 * The enforcer's re-check of a reservation's basis. A continuation needs its route decision and
 * digest (`no_route_decision`), a digest that recomputes over the registered contract revision and
 * the requested candidate, and a decision whose `route_id` recomputes from its body
 * (`route_digest_mismatch`), routed `CONTINUATION_ELIGIBLE` (`route_not_eligible`). Every
 * reservation (a lead-directed one rests on its recorded directive, checked by the slot rules)
 * must name the live tree as its candidate (`stale_candidate`; no live tree given fails closed).
 *
 * @example
 * ```ts
 * const r = checkReservationBasis(request, { contract_revision: 1, live });
 * if (!r.ok) refuse(r.reason, r.detail);
 * ```
 */
export function checkReservationBasis(
  request: {
    readonly kind: 'continuation' | 'lead-directed';
    readonly candidate: CandidateBinding;
    readonly route_decision: RouteDecision | null;
    readonly route_digest: string | null;
  },
  context: { readonly contract_revision: number; readonly live: CandidateBinding | null },
): { readonly ok: true } | { readonly ok: false; readonly reason: BasisRefusal; readonly detail: string } {
  if (request.kind === 'continuation') {
    const route = request.route_decision;
    if (route === null || request.route_digest === null) {
      return {
        ok: false,
        reason: 'no_route_decision',
        detail:
          'a continuation is granted only on the route decision it rests on (route_decision and route_digest)',
      };
    }
    const { route_id, ...body } = route;
    if (contentId('rte', body) !== route_id) {
      return {
        ok: false,
        reason: 'route_digest_mismatch',
        detail: `route decision ${route_id} does not match its own content (edited after routing)`,
      };
    }
    const want = routeDigest({
      route,
      tree_digest: request.candidate.tree_digest,
      contract_revision: context.contract_revision,
    });
    if (want !== request.route_digest) {
      return {
        ok: false,
        reason: 'route_digest_mismatch',
        detail: `route_digest does not bind route ${route_id} to this candidate and contract revision ${context.contract_revision}`,
      };
    }
    if (route.route !== CONTINUATION_ROUTE) {
      return {
        ok: false,
        reason: 'route_not_eligible',
        detail: `route ${route_id} is ${route.route}: only ${CONTINUATION_ROUTE} rests a continuation`,
      };
    }
  }
  if (context.live === null) {
    return {
      ok: false,
      reason: 'stale_candidate',
      detail: 'no live tree to check the candidate against: failing closed',
    };
  }
  if (context.live.tree_digest !== request.candidate.tree_digest) {
    return {
      ok: false,
      reason: 'stale_candidate',
      detail: `the candidate ${request.candidate.tree_digest.slice(0, 12)}… is not the live tree ${context.live.tree_digest.slice(0, 12)}…`,
    };
  }
  return { ok: true };
}
