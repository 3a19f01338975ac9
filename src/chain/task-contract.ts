/**
 * `ChainTaskContract` (the reference's `TaskContract`; renamed because the gate protocol exports its own): what a chain is accountable for (objective, output schema, owner, budget…),
 * frozen at creation and identified by a 16-hex digest over its canonical JSON.
 */
import { z } from 'zod';
import { deepFreeze, fingerprintOf } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';

const nonBlank = z.string().refine((s) => s.trim() !== '', { message: 'must be non-empty' });

/** Execution budget of a contract: attempts per seam, per-stage timeout, optional token cap. */
export const ExecutionBudgetSchema = z.strictObject({
  max_attempts: z.number().int().min(1).default(1),
  timeout_seconds: z.number().int().min(1).default(60),
  max_tokens: z.number().int().min(1).nullable().default(null),
});

/** Resolved execution budget (defaults applied). */
export type ExecutionBudget = z.output<typeof ExecutionBudgetSchema>;

/** The task contract record (`task-contract/v1`); every optional field resolves to a default. */
export const ChainTaskContractSchema = z.strictObject({
  contract_id: nonBlank,
  version: z.number().int().min(1),
  objective: nonBlank,
  output_schema: nonBlank,
  accountable_owner: nonBlank,
  input_refs: z.array(z.string()).default([]),
  constraints: z.array(z.string()).default([]),
  allowed_tools: z.array(z.string()).default([]),
  authority_scope: z.array(z.string()).default([]),
  // the reference's default is "" (a str field); a null read from an older record means the same
  boundary: z.preprocess((v) => (v === null ? '' : v), z.string().default('')),
  budget: ExecutionBudgetSchema.default({ max_attempts: 1, timeout_seconds: 60, max_tokens: null }),
});

/** A resolved, frozen task contract. */
export type ChainTaskContract = Readonly<z.output<typeof ChainTaskContractSchema>>;

/** Input accepted by {@link createTaskContract} (optional fields may be omitted). */
export type ChainTaskContractInput = z.input<typeof ChainTaskContractSchema>;

/**
 * Validates and freezes a task contract, applying defaults.
 *
 * @example
 * ```ts
 * const c = createTaskContract({ contract_id: 'payroll', version: 1, objective: 'pay June',
 *   output_schema: 'payroll-receipt/v1', accountable_owner: 'finance-ops' });
 * ```
 * @throws HandoffError `invalid_record` with `details.issues` when the input is not a valid contract.
 */
export function createTaskContract(input: ChainTaskContractInput): ChainTaskContract {
  const r = safeValidate(ChainTaskContractSchema, input);
  if (!r.ok) {
    throw new HandoffError(
      'invalid_record',
      `invalid task contract: ${r.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      {
        details: { issues: r.issues },
      },
    );
  }
  return deepFreeze(r.value);
}

/**
 * The contract digest: first 16 hex characters of sha256 over the canonical JSON of every field
 * (sorted keys, `,`/`:` separators, ASCII with `\uXXXX` escapes) — byte-identical to the reference's
 * `TaskContract.digest`, including a contract without a `boundary` (default `""`).
 *
 * @example
 * ```ts
 * contractDigest(c); // e.g. '3f9a0c1d2b4e5f60'
 * ```
 */
export function contractDigest(contract: ChainTaskContract): string {
  return fingerprintOf(contract);
}
