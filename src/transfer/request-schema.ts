/**
 * `handoff-transfer/v1` (layer 0): one request of the active agent — hand the session to another
 * agent (`transfer`), give it back to the host (`return`) or to a human (`escalate`).
 */
import { z } from 'zod';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';
import { AgentNameSchema } from './policy-schema.js';

/**
 * What a request asks for.
 *
 * @example
 * ```ts
 * TRANSFER_KINDS; // ['transfer', 'return', 'escalate']
 * ```
 */
export const TRANSFER_KINDS = ['transfer', 'return', 'escalate'] as const;

/**
 * The transfer request record `handoff-transfer/v1`.
 *
 * @example
 * ```ts
 * TransferRequestSchema.safeParse(JSON.parse(requestText)).success;
 * ```
 */
export const TransferRequestSchema = z
  .strictObject({
    schema: z.literal('handoff-transfer/v1'),
    session: z.string().min(1).max(200),
    /** The idempotency key: a request id seen before is answered with the decision it got. */
    request_id: z.string().min(1).max(200),
    kind: z.enum(TRANSFER_KINDS).default('transfer'),
    from: AgentNameSchema,
    /** The receiving agent (required for `transfer`). */
    to: AgentNameSchema.optional(),
    reason: z.string(),
    /** The conversation state offered to the next agent; only the route's `include` keys travel. */
    context: z.record(z.string(), z.unknown()).default({}),
    /** The blocker signature this transfer is about (the rerun guard's key), when any. */
    blocker: z.string().min(1).nullable().default(null),
    /** What is new since a prior transfer to the same agent on the same blocker. */
    evidence_delta: z.array(z.string()).default([]),
  })
  .superRefine((r, ctx) => {
    if (r.kind === 'transfer' && r.to === undefined) {
      ctx.addIssue({ code: 'custom', path: ['to'], message: 'a transfer names the receiving agent' });
    }
  });

/** A validated transfer request (defaults applied). */
export type TransferRequest = z.output<typeof TransferRequestSchema>;
/** A transfer request as written (defaults not applied). */
export type TransferRequestInput = z.input<typeof TransferRequestSchema>;

/**
 * Validates a `handoff-transfer/v1` record; never throws (issues are returned).
 *
 * @example
 * ```ts
 * validateTransferRequest({ schema: 'handoff-transfer/v1', session: 's1', request_id: 'r1',
 *   from: 'triage', to: 'billing', reason: 'invoice question' }).ok; // true
 * ```
 */
export function validateTransferRequest(input: unknown): ValidationResult<TransferRequest> {
  return safeValidate(TransferRequestSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
