/**
 * The rest of the reference's boundary contract (`boundary_contract.py`): the chain handoff
 * envelope (`HandoffEnvelope` there; renamed because the dev-loop envelope owns that name here)
 * and the artifact envelope. Together with {@link ChainTaskContract} and {@link AcceptanceReceipt}
 * they are the four durable objects of every cross-agent transfer:
 *
 * `TaskContract → ChainHandoffEnvelope → ArtifactEnvelope → AcceptanceReceipt`
 *
 * The handoff carries the complete contract and the attempt number, bounded by the contract's
 * `budget.max_attempts`; a retry must carry the prior (not accepted) receipt of the same contract
 * version. An artifact binds a result to the exact contract digest and output schema of its
 * handoff, and only the handoff's receiver may bind it. Pure (layer 1): no I/O.
 */
import { z } from 'zod';
import { deepFreeze } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import { safeValidate } from '../validation/index.js';
import { type AcceptanceReceipt, AcceptanceReceiptSchema } from './acceptance-receipt.js';
import {
  type ChainTaskContract,
  type ChainTaskContractInput,
  ChainTaskContractSchema,
  contractDigest,
} from './task-contract.js';

const nonBlank = z.string().refine((s) => s.trim() !== '', { message: 'must be non-empty' });

/** Why a chain handoff or an artifact binding was refused (`details.code` of the error). */
export type BoundaryRefusal =
  | 'attempt_out_of_budget'
  | 'prior_receipt_on_first_attempt'
  | 'prior_receipt_required'
  | 'prior_receipt_other_contract'
  | 'prior_receipt_accepted'
  | 'not_receiver';

/** The chain handoff envelope: who hands which contract to whom, and which attempt this is. */
export interface ChainHandoffEnvelope {
  readonly handoff_id: string;
  readonly sender: string;
  readonly receiver: string;
  readonly contract: ChainTaskContract;
  /** 1-based; at most `contract.budget.max_attempts`. */
  readonly attempt: number;
  /** `null` on the first attempt; on a retry the receipt (not accepted) of the failed attempt. */
  readonly prior_receipt: AcceptanceReceipt | null;
}

/** Input of {@link createChainHandoff}; `attempt` defaults to 1 and `prior_receipt` to null. */
export interface ChainHandoffInput {
  readonly handoff_id: string;
  readonly sender: string;
  readonly receiver: string;
  readonly contract: ChainTaskContract | ChainTaskContractInput;
  readonly attempt?: number;
  readonly prior_receipt?: AcceptanceReceipt | z.input<typeof AcceptanceReceiptSchema> | null;
}

const HandoffShape = z.strictObject({
  handoff_id: nonBlank,
  sender: nonBlank,
  receiver: nonBlank,
  contract: ChainTaskContractSchema,
  attempt: z.number().int().default(1),
  prior_receipt: AcceptanceReceiptSchema.nullable().default(null),
});

function refused(
  code: BoundaryRefusal | 'invalid_record',
  message: string,
  extra: object = {},
): HandoffError {
  return new HandoffError('invalid_record', message, { details: { code, ...extra } });
}

/**
 * Validates and freezes a chain handoff envelope, with the reference's rules:
 * `1 ≤ attempt ≤ contract.budget.max_attempts`; the first attempt carries no prior receipt, every
 * retry carries one; the prior receipt names this contract's digest and was not `accepted` (an
 * accepted artifact never enters a repair retry).
 *
 * @example
 * ```ts
 * const first = createChainHandoff({ handoff_id: 'h1', sender: 'planner', receiver: 'payer', contract });
 * const retry = createChainHandoff({ ...first, handoff_id: 'h2', attempt: 2, prior_receipt: rejected });
 * ```
 * @throws HandoffError `invalid_record`, `details.code` one of `attempt_out_of_budget`,
 * `prior_receipt_on_first_attempt`, `prior_receipt_required`, `prior_receipt_other_contract`,
 * `prior_receipt_accepted` (or `invalid_record` with `details.issues` for a malformed input).
 */
export function createChainHandoff(input: ChainHandoffInput): ChainHandoffEnvelope {
  const r = safeValidate(HandoffShape, input);
  if (!r.ok) {
    throw refused(
      'invalid_record',
      `invalid chain handoff: ${r.issues.map((i) => `${i.path || '(root)'}: ${i.message}`).join('; ')}`,
      { issues: r.issues },
    );
  }
  const h = r.value;
  const max = h.contract.budget.max_attempts;
  if (h.attempt < 1 || h.attempt > max) {
    throw refused(
      'attempt_out_of_budget',
      `handoff attempt ${h.attempt} is outside the contract budget 1..${max}`,
      {
        attempt: h.attempt,
        max_attempts: max,
      },
    );
  }
  if (h.attempt === 1 && h.prior_receipt !== null) {
    throw refused('prior_receipt_on_first_attempt', 'a first attempt cannot carry a prior receipt');
  }
  if (h.attempt > 1 && h.prior_receipt === null) {
    throw refused(
      'prior_receipt_required',
      `attempt ${h.attempt} is a retry and must carry the prior receipt`,
    );
  }
  const digest = contractDigest(h.contract);
  if (h.prior_receipt !== null && h.prior_receipt.contract_digest !== digest) {
    throw refused('prior_receipt_other_contract', 'the prior receipt belongs to another contract version', {
      contract_digest: digest,
      receipt_digest: h.prior_receipt.contract_digest,
    });
  }
  if (h.prior_receipt !== null && h.prior_receipt.decision === 'accepted') {
    throw refused('prior_receipt_accepted', 'an accepted artifact must not enter a repair retry');
  }
  return deepFreeze(h);
}

/** A result bound to the exact contract version (digest and output schema) that produced it. */
export interface ArtifactEnvelope<P = unknown> {
  readonly artifact_id: string;
  readonly contract_digest: string;
  /** The contract's `output_schema`. */
  readonly schema: string;
  /** Always the handoff's `receiver`. */
  readonly produced_by: string;
  readonly payload: P;
  readonly evidence_refs: readonly string[];
}

/** What the receiver supplies to {@link bindArtifact}. */
export interface BindArtifactInput<P> {
  readonly artifact_id: string;
  readonly produced_by: string;
  readonly payload: P;
  readonly evidence_refs?: readonly string[];
}

/**
 * Binds a worker's result to the contract its handoff carries: `contract_digest` and `schema`
 * come from the handoff's contract, never from the worker. Only the handoff's receiver may bind.
 * The payload is deep-frozen with the envelope (pass data, not live objects).
 *
 * @example
 * ```ts
 * const art = bindArtifact(handoff, { artifact_id: 'a1', produced_by: 'payer', payload: { paid: 798 } });
 * art.contract_digest === contractDigest(handoff.contract); // true
 * ```
 * @throws HandoffError `invalid_record`: `details.code` `not_receiver` when `produced_by` is not
 * the receiver; blank identity fields (`details.issues`).
 */
export function bindArtifact<P>(
  handoff: ChainHandoffEnvelope,
  input: BindArtifactInput<P>,
): ArtifactEnvelope<P> {
  if (input.produced_by !== handoff.receiver) {
    throw refused('not_receiver', 'only the designated receiver may bind this artifact', {
      receiver: handoff.receiver,
      produced_by: input.produced_by,
    });
  }
  const evidence = input.evidence_refs ?? [];
  const blank = [
    ['artifact_id', input.artifact_id],
    ['produced_by', input.produced_by],
  ].filter(([, v]) => typeof v !== 'string' || v.trim() === '');
  if (blank.length > 0 || !evidence.every((e) => typeof e === 'string')) {
    throw refused('invalid_record', 'artifact identity fields must be non-empty strings', {
      issues: blank.map(([k]) => ({ path: k, code: 'blank', message: 'must be non-empty' })),
    });
  }
  return deepFreeze({
    artifact_id: input.artifact_id,
    contract_digest: contractDigest(handoff.contract),
    schema: handoff.contract.output_schema,
    produced_by: input.produced_by,
    payload: input.payload,
    evidence_refs: [...evidence],
  });
}
