/**
 * Acceptance receipts and findings: the verdict that closes a chain (or records why it did not).
 */
import { z } from 'zod';
import { deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';

/** Decision of an acceptance receipt. */
export const AcceptanceDecisionSchema = z.enum(['accepted', 'rejected', 'escalated']);

/** One finding: a coded observation with its evidence and severity. */
export const AcceptanceFindingSchema = z.strictObject({
  // non-blank, as the reference requires (a code or evidence of spaces names nothing; issue 34)
  code: z.string().regex(/\S/, 'must not be blank'),
  field: z.string(),
  message: z.string(),
  evidence: z.string().regex(/\S/, 'must not be blank'),
  severity: z.enum(['blocker', 'warning', 'info']),
});

/** A finding record. */
export type AcceptanceFinding = z.output<typeof AcceptanceFindingSchema>;

/**
 * `AcceptanceReceipt`: an accepted receipt carries no blocker finding; a rejected one carries at
 * least one.
 */
export const AcceptanceReceiptSchema = z
  .strictObject({
    receipt_id: z.string().min(1),
    contract_digest: z.string().regex(/^[0-9a-f]{16}$/),
    artifact_id: z.string().min(1),
    checked_by: z.string().min(1),
    decision: AcceptanceDecisionSchema,
    findings: z.array(AcceptanceFindingSchema),
  })
  .superRefine((r, ctx) => {
    const blockers = r.findings.filter((f) => f.severity === 'blocker').length;
    if (r.decision === 'accepted' && blockers > 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['findings'],
        message: 'an accepted receipt may not carry blocker findings',
        params: { code: 'accepted_with_blocker' },
      });
    }
    if (r.decision === 'rejected' && blockers === 0) {
      ctx.addIssue({
        code: 'custom',
        path: ['findings'],
        message: 'a rejected receipt must carry at least one blocker finding',
        params: { code: 'rejected_without_blocker' },
      });
    }
  });

/** An acceptance receipt. */
export type AcceptanceReceipt = Readonly<z.output<typeof AcceptanceReceiptSchema>>;

/**
 * Validates and freezes an acceptance receipt.
 *
 * @example
 * ```ts
 * createAcceptanceReceipt({ receipt_id: 'accept::b::r5::…', contract_digest, artifact_id: snapshot,
 *   checked_by: 'payroll', decision: 'accepted', findings: [] });
 * ```
 * @throws HandoffError `invalid_record` (e.g. an accepted receipt with a blocker finding).
 */
export function createAcceptanceReceipt(input: z.input<typeof AcceptanceReceiptSchema>): AcceptanceReceipt {
  const r = safeValidate(AcceptanceReceiptSchema, input);
  if (!r.ok) {
    throw new HandoffError(
      'invalid_record',
      `invalid acceptance receipt: ${r.issues.map((i) => i.message).join('; ')}`,
      {
        details: { issues: r.issues },
      },
    );
  }
  return deepFreeze(r.value);
}
