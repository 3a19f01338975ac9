/**
 * The handoff chain's contract digest across implementations (issue 17 item 7). The expected
 * digests are the reference algorithm (`TaskContract.digest`: sha256 of
 * `json.dumps(fields, ensure_ascii=True, separators=(",", ":"), sort_keys=True)`, first 16 hex)
 * computed with Python's json module on the same fields.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/index.js';
import { contractDigest, createAcceptanceReceipt, createTaskContract } from '../../src/chain/index.js';
import { isHandoffError } from '../../src/errors/index.js';

const minimal = {
  contract_id: 'payroll-2026-06',
  version: 1,
  objective: 'pay June',
  output_schema: 'payroll-receipt/v1',
  accountable_owner: 'finance-ops',
};

describe('contract digests equal the reference’s', () => {
  it('a contract without boundary digests with the reference default "" (was null → a different digest)', () => {
    const c = createTaskContract(minimal);
    expect(c.boundary).toBe('');
    expect(contractDigest(c)).toBe('7e1e4501e2943011');
  });
  it('non-ASCII text, refs, a boundary and a full budget', () => {
    const c = createTaskContract({
      ...minimal,
      objective: 'zahle Gehälter – Juni ⊢',
      input_refs: ['sqlite://payroll.db'],
      boundary: 'finance',
      budget: { max_attempts: 3, timeout_seconds: 120, max_tokens: 5000 },
    });
    expect(contractDigest(c)).toBe('9fa12b0a226bbfde');
  });
  it('a null boundary from an older record reads as the default', () => {
    expect(contractDigest(createTaskContract({ ...minimal, boundary: null } as never))).toBe(
      '7e1e4501e2943011',
    );
  });
});

describe('integral floats: a documented difference (docs/chain.md)', () => {
  it('JavaScript writes 13706097 where Python writes 13706097.0', () => {
    expect(canonicalJson({ paid_total: 13706097.0 })).toBe('{"paid_total":13706097}');
    expect(canonicalJson({ paid_total: 13706097.5 })).toBe('{"paid_total":13706097.5}');
  });
});

/**
 * Issue 34 item 9, against transcribed verdicts of the reference (`pattern.py` /
 * `boundary_contract.py` of huangjia2019/agent-design-patterns, run side by side for the issue).
 */
describe('issue 34: findings and receipts', () => {
  const receipt = (finding: Record<string, unknown>) => ({
    receipt_id: 'r-1',
    contract_digest: '7e1e4501e2943011',
    artifact_id: 'a-1',
    checked_by: 'auditor',
    decision: 'rejected',
    findings: [
      {
        code: 'TOTAL_MISMATCH',
        field: 'net_total',
        message: 'm',
        evidence: 'ledger://x',
        severity: 'blocker',
        ...finding,
      },
    ],
  });
  it('a Finding with a blank code or evidence (" ") is refused, as by the reference', () => {
    expect(() => createAcceptanceReceipt(receipt({}) as never)).not.toThrow();
    for (const blank of [{ code: ' ' }, { evidence: ' ' }, { code: '\t' }]) {
      let code = '';
      try {
        createAcceptanceReceipt(receipt(blank) as never);
      } catch (e) {
        if (isHandoffError(e)) code = e.code;
      }
      expect(code, JSON.stringify(blank)).toBe('invalid_record');
    }
  });
  it('a receipt names its contract by the 16-hex digest (a documented deviation: the reference takes any string)', () => {
    expect(() =>
      createAcceptanceReceipt({ ...receipt({}), contract_digest: 'payroll-v1' } as never),
    ).toThrow();
  });
});
