/**
 * The evaluator protocol (pure): the request built from a frozen packet and the contract's own
 * questions (the worker cannot change them), and the mapping of a raw response — or a failure —
 * to an {@link Assessment}. Invalid data becomes INVALID; timeouts, missing keys, unavailability
 * and an exhausted request budget become NOT_EVALUATED. Neither is INSUFFICIENT, neither is success.
 */
import { z } from 'zod';
import { safeValidate } from '../validation/index.js';
import {
  type Assessment,
  type AssessmentFailure,
  CLAIM_LABELS,
  type Claim,
  EvidenceRequestSchema,
  GATE_ASSESSMENT_SCHEMA,
} from './assessment-schema.js';
import type { BlockedReport } from './blocked-schema.js';
import type { TaskContract } from './contract-schema.js';
import type { EvidencePacket } from './evidence-schema.js';
import { contentId } from './ids.js';
import { BLOCKED_STEP_CRITERION } from './route.js';

/** Schema id of an evaluator request. */
export const GATE_EVALUATOR_REQUEST_SCHEMA = 'gate-evaluator-request/v1';

/** One narrow question for the evaluator. */
export interface EvaluatorQuestion {
  readonly criterion_id: string;
  readonly question: string;
  readonly required: boolean;
}

/** The request sent to the evaluator (exactly once per frozen packet). */
export interface EvaluatorRequest {
  readonly schema: typeof GATE_EVALUATOR_REQUEST_SCHEMA;
  readonly packet_id: string;
  readonly stage: TaskContract['stage'];
  readonly labels: readonly string[];
  readonly questions: readonly EvaluatorQuestion[];
  readonly packet: EvidencePacket;
  readonly blocked: BlockedReport | null;
}

/**
 * Builds the request: the questions come from the contract (or, for a blocked report, the single
 * question whether its proposed step is supported), never from the worker.
 *
 * @example
 * ```ts
 * const req = buildEvaluatorRequest(contract, packet);
 * req.questions.map((q) => q.criterion_id);
 * ```
 */
export function buildEvaluatorRequest(
  contract: TaskContract,
  packet: EvidencePacket,
  blocked?: BlockedReport,
): EvaluatorRequest {
  const questions: EvaluatorQuestion[] =
    blocked === undefined
      ? contract.criteria.map((c) => ({ criterion_id: c.id, question: c.text, required: c.required }))
      : [
          {
            criterion_id: BLOCKED_STEP_CRITERION,
            question: `Is the proposed next step supported by the evidence? ${blocked.proposed_next_step}`,
            required: true,
          },
        ];
  return {
    schema: GATE_EVALUATOR_REQUEST_SCHEMA,
    packet_id: packet.packet_id,
    stage: contract.stage,
    labels: CLAIM_LABELS,
    questions,
    packet,
    blocked: blocked ?? null,
  };
}

const ResponseClaimSchema = z.strictObject({
  criterion_id: z.string().min(1),
  raw_label: z.enum(CLAIM_LABELS),
  distribution: z.partialRecord(z.enum(CLAIM_LABELS), z.number().min(0).max(1)),
  requested_evidence: z.array(EvidenceRequestSchema).default([]),
});
const ResponseSchema = z.object({ claims: z.array(ResponseClaimSchema) });

/** Times and identity of one evaluator exchange. */
export interface ExchangeMeta {
  readonly evaluator_id: string;
  readonly started_at: string;
  readonly finished_at: string;
  readonly requests_made: 0 | 1;
}

function assemble(
  packetId: string,
  meta: ExchangeMeta,
  status: Assessment['status'],
  failure: AssessmentFailure | null,
  claims: Claim[],
): Assessment {
  const body = {
    schema: GATE_ASSESSMENT_SCHEMA,
    packet_id: packetId,
    evaluator_id: meta.evaluator_id,
    status,
    failure,
    claims,
    requests_made: meta.requests_made,
    started_at: meta.started_at,
    finished_at: meta.finished_at,
  } as const;
  return { ...body, assessment_id: contentId('asm', body) };
}

/**
 * The assessment recording a failure to obtain an evaluation (`invalid-data` → INVALID, every
 * other kind → NOT_EVALUATED). It carries no claims.
 *
 * @example
 * ```ts
 * failedAssessment('pkt_…', { kind: 'timeout', detail: 'deadline 5000 ms' }, meta).status; // 'NOT_EVALUATED'
 * ```
 */
export function failedAssessment(
  packetId: string,
  failure: AssessmentFailure,
  meta: ExchangeMeta,
): Assessment {
  return assemble(packetId, meta, failure.kind === 'invalid-data' ? 'INVALID' : 'NOT_EVALUATED', failure, []);
}

/**
 * Maps a raw evaluator response to an assessment. Raw labels and distributions are stored as
 * returned. INVALID when: the shape is wrong, a distribution does not sum to 1 (±0.01), the raw
 * label is not the argmax-compatible label present in the distribution, a claim names an unknown
 * criterion or repeats one, or a required question is unanswered.
 *
 * @example
 * ```ts
 * const a = assessmentFromResponse(request, JSON.parse(stdout), meta);
 * a.status; // 'EVALUATED' | 'INVALID'
 * ```
 */
export function assessmentFromResponse(
  request: EvaluatorRequest,
  raw: unknown,
  meta: ExchangeMeta,
): Assessment {
  const invalid = (detail: string) =>
    failedAssessment(request.packet_id, { kind: 'invalid-data', detail }, meta);
  const r = safeValidate(ResponseSchema, raw);
  if (!r.ok) {
    return invalid(r.issues.map((i) => `${i.path || '<root>'}: ${i.message}`).join('; '));
  }
  const byId = new Map(request.questions.map((q) => [q.criterion_id, q]));
  const claims: Claim[] = [];
  const seen = new Set<string>();
  for (const c of r.value.claims) {
    const q = byId.get(c.criterion_id);
    if (q === undefined) return invalid(`claim for unknown criterion ${c.criterion_id}`);
    if (seen.has(c.criterion_id)) return invalid(`duplicate claim for ${c.criterion_id}`);
    seen.add(c.criterion_id);
    const values = Object.values(c.distribution) as number[];
    const sum = values.reduce((a, b) => a + b, 0);
    if (Math.abs(sum - 1) > 0.01) return invalid(`distribution of ${c.criterion_id} sums to ${sum}, not 1`);
    if (c.distribution[c.raw_label] === undefined) {
      return invalid(`raw label ${c.raw_label} of ${c.criterion_id} has no probability`);
    }
    claims.push({
      criterion_id: c.criterion_id,
      question: q.question,
      raw_label: c.raw_label,
      distribution: { ...c.distribution },
      requested_evidence: c.requested_evidence,
    });
  }
  for (const q of request.questions) {
    if (q.required && !seen.has(q.criterion_id))
      return invalid(`required question ${q.criterion_id} unanswered`);
  }
  return assemble(request.packet_id, meta, 'EVALUATED', null, claims);
}
