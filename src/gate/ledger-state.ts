/**
 * The continuation ledger's rules (pure): ledger events, the fold of a problem's history into
 * its state, and the reservation decision. Slots are keyed by `problem_id` — never by job name,
 * session or directive — so nothing but the profile bounds them. Missing history is not "zero
 * attempts used": it refuses.
 */
import { z } from 'zod';
import {
  type CandidateBinding,
  CandidateBindingSchema,
  ProblemIdSchema,
  type Profile,
  ProfileSchema,
} from './contract-schema.js';
import { DirectiveSchema } from './directive-schema.js';
import { type Grant, GrantSchema, type Slot } from './grant-schema.js';
import { type BasisRefusal, checkReservationBasis } from './reservation-basis.js';
import { RouteDecisionSchema } from './route-schema.js';

/** One ledger event. The log of a problem is the contiguous sequence 1..n of these. */
export const LedgerEventSchema = z.discriminatedUnion('type', [
  z.strictObject({
    type: z.literal('registered'),
    seq: z.literal(1),
    at: z.string(),
    problem_id: ProblemIdSchema,
    profile: ProfileSchema,
    contract_revision: z.number().int().min(1),
  }),
  z.strictObject({
    type: z.literal('directive'),
    seq: z.number().int().min(2),
    at: z.string(),
    directive: DirectiveSchema,
  }),
  z.strictObject({
    type: z.literal('reserved'),
    seq: z.number().int().min(2),
    at: z.string(),
    grant: GrantSchema,
  }),
  z.strictObject({
    type: z.enum(['started', 'consumed', 'released', 'uncertain']),
    seq: z.number().int().min(2),
    at: z.string(),
    grant_id: z.string(),
    detail: z.string(),
  }),
  z.strictObject({
    type: z.literal('lead-handoff'),
    seq: z.number().int().min(2),
    at: z.string(),
    packet_id: z.string().nullable(),
    route: z.string(),
  }),
]);

/** A ledger event. */
export type LedgerEvent = z.infer<typeof LedgerEventSchema>;

/** A problem's folded ledger state. */
export interface LedgerState {
  readonly problem_id: string;
  readonly profile: Profile;
  /** The active contract revision: the registered one, or the last `revise-contract` directive's. */
  readonly contract_revision: number;
  /** Sequence number of the last event. */
  readonly seq: number;
  readonly grants: readonly Grant[];
  readonly directives: readonly z.infer<typeof DirectiveSchema>[];
  readonly lead_handoffs: number;
}

/** Slot usage and what remains. */
export interface SlotUsage {
  readonly used: Readonly<Record<Slot, number>>;
  readonly remaining: Readonly<Record<Slot, number>>;
}

/**
 * Folds a contiguous event log into the state; null for an empty log (no history).
 *
 * @example
 * ```ts
 * const state = foldLedger(events); state?.grants.length;
 * ```
 */
export function foldLedger(events: readonly LedgerEvent[]): LedgerState | null {
  const first = events[0];
  if (first === undefined || first.type !== 'registered') return null;
  const grants = new Map<string, Grant>();
  const directives: LedgerState['directives'][number][] = [];
  let handoffs = 0;
  let revision = first.contract_revision;
  for (const e of events) {
    switch (e.type) {
      case 'registered':
        break;
      case 'directive':
        directives.push(e.directive);
        if (e.directive.kind === 'revise-contract' && e.directive.contract_revision !== null)
          revision = e.directive.contract_revision;
        break;
      case 'reserved':
        grants.set(e.grant.grant_id, e.grant);
        break;
      case 'lead-handoff':
        handoffs++;
        break;
      default: {
        const g = grants.get(e.grant_id);
        if (g === undefined) break;
        if (e.type === 'started') grants.set(g.grant_id, { ...g, started: true, started_at: e.at });
        else if (e.type === 'consumed')
          grants.set(g.grant_id, { ...g, state: 'consumed', consumed_at: e.at });
        else if (e.type === 'released')
          grants.set(g.grant_id, { ...g, state: 'released', released_at: e.at });
        else grants.set(g.grant_id, { ...g, state: 'uncertain', uncertain_at: e.at });
      }
    }
  }
  return {
    problem_id: first.problem_id,
    profile: first.profile,
    contract_revision: revision,
    seq: events.length,
    grants: [...grants.values()],
    directives,
    lead_handoffs: handoffs,
  };
}

/**
 * Used and remaining slots. Reserved, consumed and uncertain grants all count as used; only a
 * grant released before any work started gives its slot back.
 *
 * @example
 * ```ts
 * slotUsage(state).remaining['gate-continuation']; // 0 or 1
 * ```
 */
export function slotUsage(state: LedgerState): SlotUsage {
  const used: Record<Slot, number> = { 'ordinary-repair': 0, 'gate-continuation': 0, 'lead-directed': 0 };
  for (const g of state.grants) if (g.state !== 'released') used[g.slot]++;
  const p = state.profile;
  return {
    used,
    remaining: {
      'ordinary-repair': Math.max(0, p.ordinary_repairs - used['ordinary-repair']),
      'gate-continuation': Math.max(0, p.gate_continuations - used['gate-continuation']),
      'lead-directed': Math.max(0, p.lead_directed_attempts - used['lead-directed']),
    },
  };
}

/** A request to reserve a slot. */
export const ReserveRequestSchema = z.strictObject({
  problem_id: ProblemIdSchema,
  idempotency_key: z.string().min(1).max(512),
  candidate: CandidateBindingSchema,
  kind: z.enum(['continuation', 'lead-directed']),
  directive_id: z.string().nullable().default(null),
  requested_by: z.string().default(''),
  /** The route decision a continuation rests on (required for one; the enforcer re-checks it). */
  route_decision: RouteDecisionSchema.nullable().default(null),
  /** `routeDigest` over {packet_id, candidate tree_digest, contract_revision, route}. */
  route_digest: z
    .string()
    .regex(/^[0-9a-f]{64}$/)
    .nullable()
    .default(null),
});

/** A reservation request. */
export type ReserveRequest = z.infer<typeof ReserveRequestSchema>;

/** Reasons a reservation is refused. */
export type RefusalReason =
  | 'history_missing'
  | 'key_conflict'
  | 'grant_outstanding'
  | 'after_lead_handoff'
  | 'candidate_already_granted'
  | 'exhausted'
  | 'no_directive'
  | 'directive_used'
  | 'escalate'
  | BasisRefusal;

/** The reservation decision. */
export type ReserveDecision =
  | { readonly kind: 'replay'; readonly grant: Grant }
  | { readonly kind: 'refuse'; readonly reason: RefusalReason; readonly detail: string }
  | { readonly kind: 'grant'; readonly slot: Slot; readonly ordinal: number };

/**
 * Decides a reservation against the current state and the live tree (controller rules 5–7). A
 * repeated key returns the stored grant; a new grant needs its basis re-checked first
 * ({@link checkReservationBasis}: the route decision a continuation rests on, bound by digest to the
 * packet, the candidate and the registered contract revision, and a candidate that is the live
 * tree — `no_route_decision`, `route_digest_mismatch`, `route_not_eligible`, `stale_candidate`); a continuation uses the ordinary repair before the gate continuation; one
 * candidate is granted at most once; nothing is granted while another grant is outstanding;
 * after the first lead handoff only lead directives authorize attempts, up to the profile.
 *
 * @example
 * ```ts
 * const d = decideReservation(state, request, await currentCandidate(repo));
 * if (d.kind === 'grant') append({ type: 'reserved', grant: … });
 * ```
 */
export function decideReservation(
  state: LedgerState | null,
  req: ReserveRequest,
  live: CandidateBinding | null,
): ReserveDecision {
  if (state === null) {
    return { kind: 'refuse', reason: 'history_missing', detail: 'no ledger history: failing closed' };
  }
  const same = state.grants.find((g) => g.idempotency_key === req.idempotency_key);
  if (same !== undefined) {
    if (same.candidate.tree_digest !== req.candidate.tree_digest || same.problem_id !== req.problem_id) {
      if (same.directive_id !== null) {
        return {
          kind: 'refuse',
          reason: 'directive_used',
          detail: `directive ${same.directive_id} already authorized its attempt (grant ${same.grant_id}, ${same.state})`,
        };
      }
      return {
        kind: 'refuse',
        reason: 'key_conflict',
        detail: 'idempotency key reused for another candidate',
      };
    }
    return { kind: 'replay', grant: same };
  }
  const basis = checkReservationBasis(req, { contract_revision: state.contract_revision, live });
  if (!basis.ok) return { kind: 'refuse', reason: basis.reason, detail: basis.detail };
  if (state.grants.some((g) => g.state === 'reserved')) {
    return {
      kind: 'refuse',
      reason: 'grant_outstanding',
      detail: 'another grant is reserved and not settled',
    };
  }
  const usage = slotUsage(state);
  if (req.kind === 'continuation') {
    if (state.lead_handoffs > 0) {
      return {
        kind: 'refuse',
        reason: 'after_lead_handoff',
        detail: 'after the lead handoff only directives add attempts',
      };
    }
    if (
      state.grants.some(
        (g) => g.state !== 'released' && g.candidate.tree_digest === req.candidate.tree_digest,
      )
    ) {
      return {
        kind: 'refuse',
        reason: 'candidate_already_granted',
        detail: 'this candidate already had its continuation',
      };
    }
    for (const slot of ['ordinary-repair', 'gate-continuation'] as const) {
      if (usage.remaining[slot] > 0) return { kind: 'grant', slot, ordinal: usage.used[slot] + 1 };
    }
    return { kind: 'refuse', reason: 'exhausted', detail: 'ordinary repair and gate continuation are used' };
  }
  const directive = state.directives.find((d) => d.directive_id === req.directive_id && d.kind === 'attempt');
  if (req.directive_id === null || directive === undefined) {
    return {
      kind: 'refuse',
      reason: 'no_directive',
      detail: 'a lead-directed attempt needs a recorded directive',
    };
  }
  if (state.grants.some((g) => g.state !== 'released' && g.directive_id === req.directive_id)) {
    return {
      kind: 'refuse',
      reason: 'directive_used',
      detail: 'this directive already authorized its attempt',
    };
  }
  if (usage.remaining['lead-directed'] <= 0) {
    return {
      kind: 'refuse',
      reason: 'escalate',
      detail: 'lead-directed attempts exhausted: escalate to higher review',
    };
  }
  return { kind: 'grant', slot: 'lead-directed', ordinal: usage.used['lead-directed'] + 1 };
}
