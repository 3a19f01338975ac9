/**
 * Authorization of a request (layer 1, pure): the four checks of a transfer, in order — the
 * session is open, `from` is the active agent, the lease is live, then (for a transfer) the route
 * is allowlisted, the limits hold and the rerun guard allows it. Returns the route on success,
 * else the refusal code and one sentence.
 */
import type { RefusalCode } from '../decision-schema.js';
import type { Route, RoutePolicy } from '../policy-schema.js';
import type { TransferRequest } from '../request-schema.js';
import { leaseLive } from './lease.js';
import { findRoute } from './route-lookup.js';
import { limitReached } from './session-limits.js';
import type { SessionState } from './session-state.js';
import { transferRerun } from './transfer-rerun.js';

/** The verdict of {@link authorize}. */
export type Authorization =
  | { readonly ok: true; readonly route: Route | null }
  | { readonly ok: false; readonly code: RefusalCode; readonly reason: string };

/**
 * The refusal of any request to a session that ended, or null while it is open.
 *
 * @example
 * ```ts
 * closedRefusal({ status: 'revoked' }); // { ok: false, code: 'revoked', … }
 * ```
 */
export function closedRefusal(s: Pick<SessionState, 'status'>): Authorization | null {
  switch (s.status) {
    case 'revoked':
      return { ok: false, code: 'revoked', reason: 'the session was revoked: its lease never acts again' };
    case 'expired':
      return { ok: false, code: 'lease_expired', reason: 'the session’s lease expired: it never acts again' };
    case 'returned':
    case 'escalated':
      return { ok: false, code: 'session_closed', reason: `the session was ${s.status}` };
    default:
      return null;
  }
}

/**
 * Authorizes `r` against `policy` and the session state `s` at `nowMs`.
 *
 * @example
 * ```ts
 * authorize(policy, state, { ...req, from: 'triage', to: 'refunds' }, now);
 * // { ok: false, code: 'not_allowlisted', reason: 'no route triage → refunds in the policy' }
 * ```
 */
export function authorize(
  policy: RoutePolicy,
  s: SessionState,
  r: TransferRequest,
  nowMs: number,
): Authorization {
  const closed = closedRefusal(s);
  if (closed !== null) return closed;
  if (s.active !== r.from) {
    return {
      ok: false,
      code: 'not_active',
      reason: `${r.from} is not the active agent (${s.active ?? 'none'} is)`,
    };
  }
  if (!leaseLive(s.lease, nowMs)) {
    return {
      ok: false,
      code: 'lease_expired',
      reason: `the lease of ${r.from} expired at ${s.lease?.expires_at}`,
    };
  }
  if (r.kind !== 'transfer') return { ok: true, route: null };
  const to = r.to ?? '';
  const route = findRoute(policy, r.from, to);
  if (route === null) {
    return { ok: false, code: 'not_allowlisted', reason: `no route ${r.from} → ${to} in the policy` };
  }
  const limit = limitReached(policy, route, s);
  if (limit !== null) return { ok: false, code: 'limit_reached', reason: limit };
  const rerun = transferRerun(s.grants, r);
  if (rerun?.forbidden === true) {
    return {
      ok: false,
      code: 'rerun_forbidden',
      reason: `${rerun.reason}; needs ${rerun.required_evidence}`,
    };
  }
  return { ok: true, route };
}
