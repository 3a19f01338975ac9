/**
 * `gate-directive/v1` — a lead directive: a new authorization appended to the problem history.
 * It never resets attempt counts and never replenishes the shared gate-continuation slot; it
 * can only authorize lead-directed attempts (bounded by the profile) or a contract revision.
 */
import { z } from 'zod';
import { ProblemIdSchema } from './contract-schema.js';

/** Schema id of a lead directive. */
export const GATE_DIRECTIVE_SCHEMA = 'gate-directive/v1';

/** A lead directive. */
export const DirectiveSchema = z.strictObject({
  schema: z.literal(GATE_DIRECTIVE_SCHEMA),
  directive_id: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$/),
  problem_id: ProblemIdSchema,
  issued_by: z.string().min(1),
  issued_at: z.string().min(1),
  /** `attempt` authorizes one lead-directed attempt; `revise-contract` records a new contract revision. */
  kind: z.enum(['attempt', 'revise-contract']),
  contract_revision: z.number().int().min(1).nullable(),
  note: z.string(),
});

/** A lead directive. */
export type Directive = z.infer<typeof DirectiveSchema>;
