/**
 * `gate-grant/v1` — a ledger entry: the only thing that authorizes extra work. Bound to the
 * problem and the candidate, reserved atomically, consumed idempotently.
 */
import { z } from 'zod';
import { CandidateBindingSchema, ProblemIdSchema } from './contract-schema.js';

/** Schema id of a grant. */
export const GATE_GRANT_SCHEMA = 'gate-grant/v1';

/** Attempt slots. */
export const SlotSchema = z.enum(['ordinary-repair', 'gate-continuation', 'lead-directed']);

/** Grant states. */
export const GrantStateSchema = z.enum(['reserved', 'consumed', 'released', 'uncertain']);

/** A grant. */
export const GrantSchema = z.strictObject({
  schema: z.literal(GATE_GRANT_SCHEMA),
  grant_id: z.string().regex(/^grt_[0-9a-f]{32}$/),
  problem_id: ProblemIdSchema,
  candidate: CandidateBindingSchema,
  slot: SlotSchema,
  ordinal: z.number().int().min(1),
  idempotency_key: z.string().min(1),
  directive_id: z.string().nullable(),
  requested_by: z.string(),
  state: GrantStateSchema,
  started: z.boolean(),
  reserved_at: z.string(),
  started_at: z.string().nullable(),
  consumed_at: z.string().nullable(),
  released_at: z.string().nullable(),
  uncertain_at: z.string().nullable(),
});

/** A slot. */
export type Slot = z.infer<typeof SlotSchema>;
/** A grant state. */
export type GrantState = z.infer<typeof GrantStateSchema>;
/** A grant. */
export type Grant = z.infer<typeof GrantSchema>;
