/**
 * `gate-blocked/v1` — a worker's BLOCKED report. The hypothesis is labelled unverified and is
 * never embedded as fact.
 */
import { z } from 'zod';

/** Schema id of a blocked report. */
export const GATE_BLOCKED_SCHEMA = 'gate-blocked/v1';

/** The blocked report. */
export const BlockedReportSchema = z.strictObject({
  schema: z.literal(GATE_BLOCKED_SCHEMA),
  failure: z.string().min(1),
  evidence: z.array(z.string()),
  hypothesis: z.strictObject({ text: z.string().min(1), verified: z.literal(false) }),
  proposed_next_step: z.string().min(1),
  intended_validation: z.string().min(1),
  /** Operations the proposed step would need (checked against prohibitions, never by the model). */
  operations: z.array(z.string()).default([]),
});

/** A blocked report. */
export type BlockedReport = z.infer<typeof BlockedReportSchema>;
