/**
 * `handoff-transfer-journal/v1` (layer 0): one line of a session's transfer journal. A session's
 * journal is append-only; its state (active agent, lease, counts, decisions) is derived from it
 * by `foldSession` (rules/session-state.ts). A request's own context is never journaled: a
 * decision line holds the decision (its filtered context and the names of the redacted keys) and a
 * digest of the request's identity (no context values).
 *
 * The last line of each journal write may carry `trace`: the transfer machine's transitions since
 * its actor started (a new actor, restored from the journal, decides every request), which
 * `handoff audit --transfer-journal` replays. Lines written before the trace existed have none and
 * stay valid.
 */
import { z } from 'zod';
import { TraceStepSchema } from '../audit/trace-step-schema.js';
import { MAX_RECORD_DEPTH, safeValidate, type ValidationResult } from '../validation/index.js';
import { LeaseSchema, TransferDecisionSchema } from './decision-schema.js';

/**
 * How a session ended by an event that is not a request (a revocation, an expired lease).
 *
 * @example
 * ```ts
 * END_KINDS; // ['revoked', 'expired']
 * ```
 */
export const END_KINDS = ['revoked', 'expired'] as const;

/** The session opened: the entry agent holds the first lease. */
const OpenEntry = z.strictObject({
  kind: z.literal('open'),
  active: z.string().min(1),
  lease: LeaseSchema,
});

/** A decision on a request (granted or refused). */
const DecisionEntry = z.strictObject({
  kind: z.literal('decision'),
  /** Digest of the request without its context values (the idempotency check). */
  request_digest: z.string().min(1),
  from: z.string().min(1),
  to: z.string().min(1).nullable(),
  blocker: z.string().nullable(),
  decision: TransferDecisionSchema,
});

/** The session ended by a revocation or an expired lease. */
const EndEntry = z.strictObject({
  kind: z.literal('end'),
  end: z.enum(END_KINDS),
  by: z.string(),
  reason: z.string(),
});

/**
 * One journal line.
 *
 * @example
 * ```ts
 * TransferJournalLineSchema.safeParse(JSON.parse(line)).success;
 * ```
 */
export const TransferJournalLineSchema = z.strictObject({
  schema: z.literal('handoff-transfer-journal/v1'),
  session: z.string().min(1),
  seq: z.number().int().min(1),
  at: z.iso.datetime(),
  entry: z.discriminatedUnion('kind', [OpenEntry, DecisionEntry, EndEntry]),
  /** The machine's transitions of the write this line ends (absent on older lines and on an opening line). */
  trace: z.array(TraceStepSchema).max(10_000).optional(),
});

/** One journal line. */
export type TransferJournalLine = z.output<typeof TransferJournalLineSchema>;
/** The entry of a journal line. */
export type TransferJournalEntry = TransferJournalLine['entry'];

/**
 * Validates one journal line; never throws (issues are returned).
 *
 * @example
 * ```ts
 * validateTransferJournalLine(JSON.parse(text)).ok;
 * ```
 */
export function validateTransferJournalLine(input: unknown): ValidationResult<TransferJournalLine> {
  return safeValidate(TransferJournalLineSchema, input, { maxDepth: MAX_RECORD_DEPTH });
}
