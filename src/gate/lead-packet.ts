/**
 * The lead packet builder (pure): what changed, the required criteria with their status, links to
 * the bound evidence by id and digest, the assessment's limitations, grants, and the route — short
 * enough to read, complete by reference.
 */
import { digestOf } from '../canonical/index.js';
import type { Assessment } from './assessment-schema.js';
import type { BlockedReport } from './blocked-schema.js';
import type { TaskContract } from './contract-schema.js';
import type { EvidencePacket } from './evidence-schema.js';
import type { Grant } from './grant-schema.js';
import { GATE_LEAD_PACKET_SCHEMA, type LeadPacket } from './lead-packet-schema.js';
import type { RouteDecision } from './route-schema.js';

/** Inputs of {@link buildLeadPacket}. */
export interface LeadPacketInput {
  readonly contract: TaskContract;
  readonly packet: EvidencePacket | null;
  readonly assessment: Assessment | null;
  readonly route: RouteDecision | null;
  readonly grants: readonly Grant[];
  readonly blocked?: BlockedReport | null | undefined;
  readonly outcome: LeadPacket['outcome'];
  /** Extra limitations found by the shell (e.g. a crash reconciled as uncertain). */
  readonly notes?: readonly string[];
  /**
   * The assessment and route of an earlier packet (the round before a gate continuation): linked
   * as evidence for the record, never used for the criteria's status of this packet.
   */
  readonly superseded?: {
    readonly assessment: Assessment | null;
    readonly route: RouteDecision | null;
  } | null;
}

/**
 * Builds the lead packet.
 *
 * @example
 * ```ts
 * const lead = buildLeadPacket({ contract, packet, assessment, route, grants, outcome: 'lead-review' });
 * lead.criteria.filter((c) => c.required).map((c) => `${c.id}: ${c.status}`);
 * ```
 */
export function buildLeadPacket(input: LeadPacketInput): LeadPacket {
  const { contract, packet, assessment, route } = input;
  const limitations: string[] = [];
  if (assessment === null) limitations.push('no assessment was obtained for this packet');
  else if (assessment.status !== 'EVALUATED') {
    limitations.push(
      `assessment ${assessment.status}: ${assessment.failure?.kind ?? ''} (${assessment.failure?.detail ?? ''}) — not a verdict on the work`,
    );
  }
  for (const r of route?.reasons ?? []) {
    if (r.code === 'evidence_out_of_stage' || r.code === 'prohibited_not_obligation') {
      limitations.push(`${r.criterion_id ?? ''}: ${r.detail}`);
    }
  }
  for (const o of packet?.omitted ?? []) limitations.push(`omitted ${o.ref}: ${o.reason} (${o.detail})`);
  for (const e of packet?.executions ?? []) {
    if (!e.counted) limitations.push(`execution ${e.command.join(' ')} not counted: ${e.reason ?? ''}`);
  }
  if ((packet?.worker_claims.length ?? 0) > 0)
    limitations.push('worker claims are unverified claims, not facts');
  for (const n of input.notes ?? []) limitations.push(n);

  const outcomes = new Map((route?.criteria ?? []).map((c) => [c.criterion_id, c]));
  const criteria = contract.criteria.map((c) => ({
    id: c.id,
    text: c.text,
    text_revision: c.text_revision,
    required: c.required,
    status: outcomes.get(c.id)?.status ?? 'not-evaluated',
  }));
  const evidence: LeadPacket['evidence'] = [];
  if (packet !== null) {
    evidence.push({ kind: 'packet', id: packet.packet_id, sha256: digestOf(packet) });
    for (const a of packet.artifacts) evidence.push({ kind: 'artifact', id: a.ref, sha256: a.sha256 });
    for (const e of packet.executions) {
      if (e.counted) evidence.push({ kind: 'execution', id: e.command.join(' '), sha256: e.output_sha256 });
    }
  }
  if (assessment !== null)
    evidence.push({ kind: 'assessment', id: assessment.assessment_id, sha256: digestOf(assessment) });
  if (route !== null) evidence.push({ kind: 'route', id: route.route_id, sha256: digestOf(route) });
  const earlier = input.superseded ?? null;
  if (earlier?.assessment)
    evidence.push({
      kind: 'assessment',
      id: earlier.assessment.assessment_id,
      sha256: digestOf(earlier.assessment),
    });
  if (earlier?.route)
    evidence.push({ kind: 'route', id: earlier.route.route_id, sha256: digestOf(earlier.route) });
  for (const g of input.grants) evidence.push({ kind: 'grant', id: g.grant_id, sha256: digestOf(g) });
  if (input.blocked)
    evidence.push({ kind: 'blocked', id: 'blocked-report', sha256: digestOf(input.blocked) });

  const finalRoute = route?.route ?? (input.outcome === 'stopped' ? 'STOP' : 'LEAD_REVIEW');
  const changed = packet?.changeset ?? [];
  const required = criteria.filter((c) => c.required);
  const satisfied = required.filter((c) => c.status === 'satisfied').length;
  const consumed = input.grants.filter((g) => g.state === 'consumed').length;
  const summary = [
    `${contract.problem_id}@${contract.revision}: ${finalRoute}`,
    `${changed.length} path(s) changed`,
    `${satisfied}/${required.length} required criteria satisfied`,
    `assessment ${assessment?.status ?? 'none'}`,
    `${consumed} grant(s) consumed`,
    input.blocked ? 'worker reported BLOCKED (hypothesis unverified)' : null,
  ]
    .filter((s) => s !== null)
    .join('; ');
  return {
    schema: GATE_LEAD_PACKET_SCHEMA,
    problem_id: contract.problem_id,
    contract_revision: contract.revision,
    route: finalRoute,
    outcome: input.outcome,
    summary,
    what_changed: changed.map((c) => ({ path: c.path, change: c.change, from: c.from })),
    criteria,
    evidence,
    assessment: assessment === null ? null : { status: assessment.status, failure: assessment.failure },
    limitations,
    worker_claims: [...(packet?.worker_claims ?? [])],
    grants: input.grants.map((g) => ({ grant_id: g.grant_id, slot: g.slot, state: g.state })),
    reasons: (route?.reasons ?? []).map(
      (r) => `${r.code}${r.criterion_id ? `(${r.criterion_id})` : ''}: ${r.detail}`,
    ),
  };
}
