/**
 * The handoff chain's contract digest across implementations (issue 17 item 7). The expected
 * digests are the reference algorithm (`TaskContract.digest`: sha256 of
 * `json.dumps(fields, ensure_ascii=True, separators=(",", ":"), sort_keys=True)`, first 16 hex)
 * computed with Python's json module on the same fields.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/index.js';
import { contractDigest, createTaskContract } from '../../src/chain/index.js';

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
