/**
 * `gate-assessment/v1` — the evaluator axis: did the evaluator run (EVALUATED, NOT_EVALUATED,
 * INVALID), and what did it say per criterion (raw label and probability distribution, stored as
 * returned). A failure to obtain an assessment is never INSUFFICIENT and never success.
 */
import { z } from 'zod';
import { StageSchema } from './contract-schema.js';

/** Schema id of the assessment. */
export const GATE_ASSESSMENT_SCHEMA = 'gate-assessment/v1';

/** Labels an evaluator may return for a question. */
export const CLAIM_LABELS = ['CONFIRMED', 'REFUTED', 'INSUFFICIENT'] as const;

/** Evidence the evaluator says it would need. Requests are filtered by stage and prohibitions. */
export const EvidenceRequestSchema = z.strictObject({
  kind: z.enum(['execution', 'test', 'artifact', 'observation']),
  detail: z.string(),
  stage: StageSchema.nullable().default(null),
  operation: z.string().nullable().default(null),
});

/** One evaluated question. */
export const ClaimSchema = z.strictObject({
  criterion_id: z.string().min(1),
  question: z.string(),
  raw_label: z.enum(CLAIM_LABELS),
  distribution: z.partialRecord(z.enum(CLAIM_LABELS), z.number().min(0).max(1)),
  requested_evidence: z.array(EvidenceRequestSchema).default([]),
});

/** Why no assessment was obtained. */
export const AssessmentFailureSchema = z.strictObject({
  kind: z.enum(['timeout', 'no-key', 'invalid-data', 'unavailable', 'budget']),
  detail: z.string(),
});

/** The assessment record. */
export const AssessmentSchema = z
  .strictObject({
    schema: z.literal(GATE_ASSESSMENT_SCHEMA),
    assessment_id: z.string().regex(/^asm_[0-9a-f]{32}$/),
    packet_id: z.string().min(1),
    evaluator_id: z.string().min(1),
    status: z.enum(['EVALUATED', 'NOT_EVALUATED', 'INVALID']),
    failure: AssessmentFailureSchema.nullable(),
    claims: z.array(ClaimSchema),
    requests_made: z.number().int().min(0).max(1),
    started_at: z.string(),
    finished_at: z.string(),
  })
  .superRefine((a, ctx) => {
    const evaluated = a.status === 'EVALUATED';
    if (evaluated !== (a.failure === null)) {
      ctx.addIssue({
        code: 'custom',
        path: ['failure'],
        message: 'failure is null exactly when status is EVALUATED',
        params: { code: 'status_failure_mismatch' },
      });
    }
    if (!evaluated && a.claims.length > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['claims'],
        message: 'an assessment that failed carries no claims',
        params: { code: 'claims_without_evaluation' },
      });
    }
    if (a.status === 'INVALID' && a.failure !== null && a.failure.kind !== 'invalid-data') {
      ctx.addIssue({
        code: 'custom',
        path: ['failure', 'kind'],
        message: 'INVALID is the status of invalid-data failures only',
        params: { code: 'status_failure_mismatch' },
      });
    }
  });

/** An evidence request. */
export type EvidenceRequest = z.infer<typeof EvidenceRequestSchema>;
/** One evaluated claim. */
export type Claim = z.infer<typeof ClaimSchema>;
/** A claim label. */
export type ClaimLabel = (typeof CLAIM_LABELS)[number];
/** An assessment failure. */
export type AssessmentFailure = z.infer<typeof AssessmentFailureSchema>;
/** An assessment. */
export type Assessment = z.infer<typeof AssessmentSchema>;
