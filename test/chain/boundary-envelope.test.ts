/**
 * The boundary contract's handoff and artifact envelopes (the reference's HandoffEnvelope and
 * ArtifactEnvelope): attempt bounded by budget.max_attempts, the prior_receipt rule, and artifact
 * binding to the contract digest and output schema by the named receiver only.
 */
import { describe, expect, it } from 'vitest';
import {
  bindArtifact,
  type ChainTaskContract,
  contractDigest,
  createAcceptanceReceipt,
  createChainHandoff,
  createTaskContract,
} from '../../src/chain/index.js';
import { isHandoffError } from '../../src/errors/index.js';

const contract: ChainTaskContract = createTaskContract({
  contract_id: 'payroll-2026-06',
  version: 1,
  objective: 'pay June',
  output_schema: 'payroll-receipt/v1',
  accountable_owner: 'finance-ops',
  budget: { max_attempts: 3 },
});
const digest = contractDigest(contract);
const rejected = createAcceptanceReceipt({
  receipt_id: 'r1',
  contract_digest: digest,
  artifact_id: 'a1',
  checked_by: 'auditor',
  decision: 'rejected',
  findings: [
    {
      code: 'total',
      field: 'net_total',
      message: 'off by 38444',
      evidence: 'bank#2026-06',
      severity: 'blocker',
    },
  ],
});
const accepted = createAcceptanceReceipt({ ...rejected, decision: 'accepted', findings: [] });
const base = { handoff_id: 'h1', sender: 'planner', receiver: 'payer', contract };

function refusal(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    if (isHandoffError(e)) return String((e.details as { code?: string }).code ?? e.code);
    throw e;
  }
  throw new Error('expected a refusal');
}

describe('chain handoff envelope', () => {
  it('a first attempt without a prior receipt is valid, frozen, attempt 1 by default', () => {
    const h = createChainHandoff(base);
    expect(h.attempt).toBe(1);
    expect(h.prior_receipt).toBeNull();
    expect(Object.isFrozen(h)).toBe(true);
    expect(contractDigest(h.contract)).toBe(digest);
  });
  it('attempt is bounded by the contract budget (1..max_attempts)', () => {
    expect(refusal(() => createChainHandoff({ ...base, attempt: 0 }))).toBe('attempt_out_of_budget');
    expect(refusal(() => createChainHandoff({ ...base, attempt: 4, prior_receipt: rejected }))).toBe(
      'attempt_out_of_budget',
    );
    expect(createChainHandoff({ ...base, attempt: 3, prior_receipt: rejected }).attempt).toBe(3);
    const single = createTaskContract({ ...contract, budget: { max_attempts: 1 } });
    expect(
      refusal(() => createChainHandoff({ ...base, contract: single, attempt: 2, prior_receipt: rejected })),
    ).toBe('attempt_out_of_budget');
  });
  it('prior_receipt: none on the first attempt, required on a retry', () => {
    expect(refusal(() => createChainHandoff({ ...base, prior_receipt: rejected }))).toBe(
      'prior_receipt_on_first_attempt',
    );
    expect(refusal(() => createChainHandoff({ ...base, attempt: 2 }))).toBe('prior_receipt_required');
  });
  it('prior_receipt: same contract digest, and never an accepted one', () => {
    const other = createAcceptanceReceipt({ ...rejected, contract_digest: '0123456789abcdef' });
    expect(refusal(() => createChainHandoff({ ...base, attempt: 2, prior_receipt: other }))).toBe(
      'prior_receipt_other_contract',
    );
    expect(refusal(() => createChainHandoff({ ...base, attempt: 2, prior_receipt: accepted }))).toBe(
      'prior_receipt_accepted',
    );
    // an escalated receipt may be retried, like in the reference
    const escalated = createAcceptanceReceipt({ ...rejected, decision: 'escalated' });
    expect(createChainHandoff({ ...base, attempt: 2, prior_receipt: escalated }).attempt).toBe(2);
  });
  it('blank identity fields and non-integer attempts are malformed', () => {
    for (const bad of [{ handoff_id: ' ' }, { sender: '' }, { receiver: '  ' }, { attempt: 1.5 }]) {
      expect(refusal(() => createChainHandoff({ ...base, ...bad }))).toBe('invalid_record');
    }
  });
});

describe('artifact envelope', () => {
  const handoff = createChainHandoff(base);
  it('binds a result to the contract digest and output schema of its handoff', () => {
    const a = bindArtifact(handoff, {
      artifact_id: 'a1',
      produced_by: 'payer',
      payload: { paid: 798 },
      evidence_refs: ['sqlite://payroll.db/paid-ledger?month=2026-06'],
    });
    expect(a).toEqual({
      artifact_id: 'a1',
      contract_digest: digest,
      schema: 'payroll-receipt/v1',
      produced_by: 'payer',
      payload: { paid: 798 },
      evidence_refs: ['sqlite://payroll.db/paid-ledger?month=2026-06'],
    });
    expect(Object.isFrozen(a.payload)).toBe(true);
  });
  it('only the named receiver may bind it', () => {
    expect(
      refusal(() => bindArtifact(handoff, { artifact_id: 'a1', produced_by: 'planner', payload: 1 })),
    ).toBe('not_receiver');
    expect(
      refusal(() => bindArtifact(handoff, { artifact_id: 'a1', produced_by: 'Payer', payload: 1 })),
    ).toBe('not_receiver');
  });
  it('a worker cannot choose the digest or schema it is bound to', () => {
    const smuggled = {
      artifact_id: 'a1',
      produced_by: 'payer',
      payload: 1,
      contract_digest: 'ffffffffffffffff',
      schema: 'x',
    };
    const a = bindArtifact(handoff, smuggled);
    expect(a.contract_digest).toBe(digest);
    expect(a.schema).toBe('payroll-receipt/v1');
  });
  it('a blank artifact id is refused', () => {
    expect(refusal(() => bindArtifact(handoff, { artifact_id: ' ', produced_by: 'payer', payload: 1 }))).toBe(
      'invalid_record',
    );
  });
});
