/**
 * `gate-lead-packet/v1` — the concise packet the lead reads: what changed, the required criteria
 * with their status, links (ids and digests) to the bound evidence, the assessment's limitations,
 * consumed grants and the route. The complete records stay available by id.
 */
import { z } from 'zod';
import { AssessmentFailureSchema } from './assessment-schema.js';
import { ProblemIdSchema } from './contract-schema.js';
import { RouteSchema } from './route-schema.js';

/** Schema id of the lead packet. */
export const GATE_LEAD_PACKET_SCHEMA = 'gate-lead-packet/v1';

/** The lead packet. */
export const LeadPacketSchema = z.strictObject({
  schema: z.literal(GATE_LEAD_PACKET_SCHEMA),
  problem_id: ProblemIdSchema,
  contract_revision: z.number().int().min(1),
  route: RouteSchema,
  outcome: z.enum(['lead-review', 'stopped']),
  summary: z.string(),
  what_changed: z.array(
    z.strictObject({ path: z.string(), change: z.string(), from: z.string().nullable() }),
  ),
  criteria: z.array(
    z.strictObject({
      id: z.string(),
      text: z.string(),
      text_revision: z.number().int(),
      required: z.boolean(),
      status: z.string(),
    }),
  ),
  evidence: z.array(
    z.strictObject({
      kind: z.enum(['packet', 'artifact', 'execution', 'assessment', 'route', 'grant', 'blocked']),
      id: z.string(),
      sha256: z.string().nullable(),
    }),
  ),
  assessment: z.strictObject({ status: z.string(), failure: AssessmentFailureSchema.nullable() }).nullable(),
  limitations: z.array(z.string()),
  worker_claims: z.array(
    z.strictObject({ criterion_id: z.string().nullable(), text: z.string(), verified: z.literal(false) }),
  ),
  grants: z.array(z.strictObject({ grant_id: z.string(), slot: z.string(), state: z.string() })),
  reasons: z.array(z.string()),
});

/** A lead packet. */
export type LeadPacket = z.infer<typeof LeadPacketSchema>;
