/**
 * `gate-authority/v1` — the authority under which the gate acts right now: who holds the task,
 * until when (lease), whether a hard stop is in force and which operations are denied. Checked
 * exactly, never by the evaluator.
 */
import { z } from 'zod';

/** Schema id of the authority record. */
export const GATE_AUTHORITY_SCHEMA = 'gate-authority/v1';

/** The authority record. */
export const AuthoritySchema = z.strictObject({
  schema: z.literal(GATE_AUTHORITY_SCHEMA),
  actor: z.string().min(1),
  lease_expires_at: z.string().datetime({ offset: true }).nullable(),
  hard_stop: z.string().min(1).nullable(),
  denied_operations: z.array(z.string()).default([]),
});

/** The authority record. */
export type Authority = z.infer<typeof AuthoritySchema>;

/**
 * The authority a task starts with when nothing else is recorded: its owner, no lease, no stop.
 *
 * @example
 * ```ts
 * ownerAuthority('lead@team'); // { schema, actor: 'lead@team', lease_expires_at: null, … }
 * ```
 */
export function ownerAuthority(owner: string): Authority {
  return {
    schema: GATE_AUTHORITY_SCHEMA,
    actor: owner,
    lease_expires_at: null,
    hard_stop: null,
    denied_operations: [],
  };
}
