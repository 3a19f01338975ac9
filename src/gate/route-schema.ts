/**
 * `gate-route/v1` — the controller axis: the permitted route, why, with which thresholds, for
 * which assessment. A recommendation only: CONTINUATION_ELIGIBLE grants nothing by itself.
 */
import { z } from 'zod';
import { EvidenceRequestSchema } from './assessment-schema.js';

/** Schema id of the route decision. */
export const GATE_ROUTE_SCHEMA = 'gate-route/v1';

/** The four routes. */
export const RouteSchema = z.enum(['REVIEW_READY', 'LEAD_REVIEW', 'CONTINUATION_ELIGIBLE', 'STOP']);

/** Routing thresholds over stored probabilities. */
export const ThresholdsSchema = z.strictObject({
  /** Minimum probability of the good reading for a criterion to count as satisfied. */
  satisfied: z.number().min(0).max(1),
  /** Minimum probability of the bad reading for a criterion to count as violated. */
  violated: z.number().min(0).max(1),
});

/** One reason of a route decision. */
export const RouteReasonSchema = z.strictObject({
  code: z.string().min(1),
  criterion_id: z.string().nullable(),
  detail: z.string(),
});

/** How each criterion came out of routing. */
export const CriterionOutcomeSchema = z.strictObject({
  criterion_id: z.string(),
  required: z.boolean(),
  status: z.enum(['satisfied', 'violated', 'insufficient', 'limited', 'not-evaluated']),
  p_good: z.number().min(0).max(1).nullable(),
  p_bad: z.number().min(0).max(1).nullable(),
});

/** Work a continuation would address; never includes prohibited or out-of-stage evidence. */
export const ObligationSchema = z.strictObject({
  criterion_id: z.string(),
  evidence: z.array(EvidenceRequestSchema),
});

/** The route decision. */
export const RouteDecisionSchema = z.strictObject({
  schema: z.literal(GATE_ROUTE_SCHEMA),
  route_id: z.string().regex(/^rte_[0-9a-f]{32}$/),
  packet_id: z.string(),
  assessment_ref: z.strictObject({ assessment_id: z.string(), status: z.string() }).nullable(),
  route: RouteSchema,
  reasons: z.array(RouteReasonSchema),
  criteria: z.array(CriterionOutcomeSchema),
  obligations: z.array(ObligationSchema),
  thresholds: ThresholdsSchema,
  slots: z
    .strictObject({ ordinary_repair: z.number().int(), gate_continuation: z.number().int() })
    .nullable(),
});

/** A route. */
export type Route = z.infer<typeof RouteSchema>;
/** Thresholds. */
export type Thresholds = z.infer<typeof ThresholdsSchema>;
/** A route reason. */
export type RouteReason = z.infer<typeof RouteReasonSchema>;
/** A criterion outcome. */
export type CriterionOutcome = z.infer<typeof CriterionOutcomeSchema>;
/** An obligation. */
export type Obligation = z.infer<typeof ObligationSchema>;
/** A route decision. */
export type RouteDecision = z.infer<typeof RouteDecisionSchema>;

/** Default thresholds. */
export const DEFAULT_THRESHOLDS: Thresholds = { satisfied: 0.8, violated: 0.5 };
