/**
 * `handoff-transfer-decision/v1` (layer 0): the answer to one transfer request — granted or
 * refused with a named code, the agent active afterwards, the filtered context (never a redacted
 * key), the lease and the journal cite.
 */
import { z } from 'zod';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';

/**
 * Codes of a granted decision.
 *
 * @example
 * ```ts
 * GRANT_CODES.includes('returned'); // true
 * ```
 */
export const GRANT_CODES = ['granted', 'returned', 'escalated'] as const;

/**
 * Codes of a refused decision: the route is not allowlisted, `from` is not the active agent, the
 * lease expired, the session was revoked or has ended, a limit is reached, the rerun guard
 * forbids the same agent on the same blocker, the request is not a valid record, the request id
 * was used for another request, or the journal write failed (nothing changed).
 *
 * @example
 * ```ts
 * REFUSAL_CODES.includes('not_active'); // true
 * ```
 */
export const REFUSAL_CODES = [
  'not_allowlisted',
  'not_active',
  'lease_expired',
  'revoked',
  'session_closed',
  'limit_reached',
  'rerun_forbidden',
  'invalid_record',
  'request_conflict',
  'journal_failed',
] as const;

/** A refusal code. */
export type RefusalCode = (typeof REFUSAL_CODES)[number];
/** A decision code. */
export type DecisionCode = (typeof GRANT_CODES)[number] | RefusalCode;

/**
 * An authority lease: who holds it, from when, until when (ISO-8601 UTC).
 *
 * @example
 * ```ts
 * LeaseSchema.safeParse({ holder: 'billing', granted_at: '2026-01-01T00:00:00Z', expires_at: '2026-01-01T00:10:00Z' }).success; // true
 * ```
 */
export const LeaseSchema = z.strictObject({
  holder: z.string().min(1),
  granted_at: z.iso.datetime(),
  expires_at: z.iso.datetime(),
});

/** An authority lease. */
export type Lease = z.output<typeof LeaseSchema>;

/**
 * The decision record `handoff-transfer-decision/v1`.
 *
 * @example
 * ```ts
 * TransferDecisionSchema.safeParse(JSON.parse(stdout)).success;
 * ```
 */
export const TransferDecisionSchema = z.strictObject({
  schema: z.literal('handoff-transfer-decision/v1'),
  session: z.string().min(1),
  request_id: z.string().min(1),
  outcome: z.enum(['granted', 'refused']),
  code: z.enum([...GRANT_CODES, ...REFUSAL_CODES]),
  /** One sentence saying why (what a model is told when it is refused). */
  reason: z.string(),
  /** The agent holding authority after this decision (null once the session ended). */
  active: z.string().nullable(),
  /** The context forwarded to the receiving agent: only included keys, never a redacted one. */
  context: z.record(z.string(), z.unknown()),
  /** Names of the keys removed by the route's `redact` list (their values are never recorded). */
  redacted: z.array(z.string()),
  lease: LeaseSchema.nullable(),
  /** `<session>#<seq>` of the journal line holding this decision (null when not journaled). */
  cite: z.string().nullable(),
});

/** A transfer decision. */
export type TransferDecision = z.output<typeof TransferDecisionSchema>;

/**
 * Validates a `handoff-transfer-decision/v1` record; never throws (issues are returned).
 *
 * @example
 * ```ts
 * validateTransferDecision(JSON.parse(line)).ok;
 * ```
 */
export function validateTransferDecision(input: unknown): ValidationResult<TransferDecision> {
  return safeValidate(TransferDecisionSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
