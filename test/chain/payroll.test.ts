import { describe, expect, it } from 'vitest';
import {
  buildPayrollChain,
  controllingLedger,
  createMemoryPaymentRail,
  generatePayrollMonth,
  runPayroll,
} from '../../examples/payroll/index.js';
import {
  batonFacts,
  createChain,
  createMemoryEffectLedger,
  factValue,
  isSeamError,
  stageDelta,
} from '../../src/chain/index.js';

/**
 * Runs the release payroll chain with the delta of stage `name` rewritten; returns what the run
 * threw (undefined when it was accepted) and the rail.
 */
async function runRewritten(name: string, rewrite: (delta: { facts: { key: string }[] }) => unknown) {
  const rail = createMemoryPaymentRail();
  const { chain, baton } = buildPayrollChain({
    contract: 'release',
    rail,
    effects: createMemoryEffectLedger(),
  });
  const stages = chain.specs.map((spec, i) => {
    const run = chain.stageFn(i);
    return {
      spec,
      run:
        spec.name === name
          ? async (...a: Parameters<typeof run>) => rewrite((await run(...a)) as never)
          : run,
    };
  });
  const rewritten = createChain({
    chain_id: chain.chain_id,
    contract: chain.contract,
    stages,
    rules: [...chain.rules.values()],
  });
  const error = await rewritten.run(baton).then(
    () => undefined,
    (x: unknown) => x,
  );
  return { error, rail };
}

describe('payroll bench data', () => {
  it('is deterministic: 800 employees, 798 PAID, E0007 and E0012 reversed', () => {
    const a = generatePayrollMonth();
    expect(a).toEqual(generatePayrollMonth());
    expect(a.employees).toHaveLength(800);
    expect(a.payslips.filter((p) => p.status === 'PAID')).toHaveLength(798);
    expect(a.payslips.filter((p) => p.status === 'REVERSED').map((p) => p.emp_id)).toEqual([
      'E0007',
      'E0012',
    ]);
    expect(controllingLedger(a)).toEqual({ month: '2026-06', paid_total: 13_706_097, paid_lines: 798 });
    expect(a.employees.reduce((s, e) => s + e.base_salary, 0)).toBe(13_744_541);
  });
});

describe('payroll chain', () => {
  it('clean run: 5 stages, revision 5, 798 lines paid, 13,706,097, accepted', async () => {
    for (const contract of ['thin', 'release'] as const) {
      const r = await runPayroll({ contract });
      expect(r.outcome).toBe('accepted');
      expect(r.trace).toEqual(['intent', 'settle', 'fund_check', 'pay', 'receipt']);
      expect(r.revision).toBe(5);
      expect(r.receipts).toHaveLength(5);
      expect(r.paid_lines).toBe(798);
      expect(r.paid_total).toBe(13_706_097);
      expect(r.overpaid).toBe(0);
      expect(r.payments.map((p) => p.payment_id)).toEqual(['payment-2026-06']);
      expect(r.acceptance?.decision).toBe('accepted');
    }
  });

  it('clean run commits the payment and receipt ids', async () => {
    const rail = createMemoryPaymentRail();
    const effects = createMemoryEffectLedger();
    const { chain, baton } = buildPayrollChain({ contract: 'release', rail, effects });
    const r = await chain.run(baton);
    expect(batonFacts(r.baton)).toMatchObject({
      payment_id: 'payment-2026-06',
      receipt_id: 'rcpt-run-2026-06',
      paid_total: 13_706_097,
    });
  });

  it('settle receipt consumes (month), produces (net_total, pay_lines) with the paid-ledger evidence', async () => {
    const r = await runPayroll({ contract: 'release' });
    expect(r.receipts[1]).toMatchObject({
      stage_name: 'settle',
      consumed_keys: ['month'],
      produced_keys: ['net_total', 'pay_lines'],
      evidence_refs: ['ledger://payroll/paid-ledger?month=2026-06'],
    });
  });

  it('settle dropping net_total stops at settle with promised_fact_missing; checkpoint trace (intent)', async () => {
    // settle delivers the lines but not the total
    const { error, rail } = await runRewritten('settle', (d) => ({
      ...d,
      facts: d.facts.filter((f) => f.key !== 'net_total'),
    }));
    expect(isSeamError(error) && error.code).toBe('promised_fact_missing');
    expect(isSeamError(error) && error.stage).toBe('settle');
    expect(isSeamError(error) && error.checkpoint.trace).toEqual(['intent']);
    expect(await rail.payments()).toEqual([]);
  });

  it('pay restating net_total is undeclared_fact, not the overwrite code', async () => {
    const { error } = await runRewritten('pay', (d) => ({
      ...d,
      facts: [
        ...d.facts,
        ...stageDelta({ net_total: { value: 13_706_000, evidence: ['rounding://down'] } }).facts,
      ],
    }));
    expect(isSeamError(error) && error.code).toBe('undeclared_fact');
    expect(isSeamError(error) && error.stage).toBe('pay');
  });

  it('wrong value, thin contract: accepted, pays 800 lines and 13,744,541 (38,444 too much)', async () => {
    const r = await runPayroll({ contract: 'thin', wrongValue: true });
    expect(r.outcome).toBe('accepted');
    expect(r.paid_lines).toBe(800);
    expect(r.paid_total).toBe(13_744_541);
    expect(r.overpaid).toBe(38_444);
    expect(r.receipts[1]?.evidence_refs).toEqual(['ledger://payroll/obligations?month=2026-06']);
  });

  it('wrong value, release contract: fact_semantic_violation at settle quoting both totals, nothing paid', async () => {
    const rail = createMemoryPaymentRail();
    const effects = createMemoryEffectLedger();
    const r = await runPayroll({ contract: 'release', wrongValue: true, rail, effects });
    expect(r.outcome).toBe('stopped');
    expect(r.seam_error).toMatchObject({
      code: 'fact_semantic_violation',
      stage: 'settle',
      checkpoint: { revision: 1, trace: ['intent'] },
    });
    expect(r.seam_error?.detail).toContain('13,744,541.00');
    expect(r.seam_error?.detail).toContain('13,706,097.00');
    expect(r.payments).toEqual([]);
    expect(r.paid_total).toBe(0);
    expect(effects.keys()).toEqual([]); // the reference's payment dict stays {}
  });

  it('the effect ledger’s only key is pay’s stage_run_id', async () => {
    const rail = createMemoryPaymentRail();
    const effects = createMemoryEffectLedger();
    const r = await runPayroll({ contract: 'release', rail, effects });
    expect(effects.keys()).toEqual([r.receipts[3]?.stage_run_id]);
    expect((await rail.payments()).map((p) => p.idempotency_key)).toEqual([r.receipts[3]?.stage_run_id]);
  });

  it('clearing a local copy of the lines leaves 798 committed and 798 paid', async () => {
    const rail = createMemoryPaymentRail();
    const { chain, baton } = buildPayrollChain({
      contract: 'release',
      rail,
      effects: createMemoryEffectLedger(),
    });
    const b2 = (await chain.advance((await chain.advance(baton)).baton)).baton;
    const local = factValue(b2, 'pay_lines') as unknown[];
    local.length = 0;
    const r = await chain.run(b2);
    expect((factValue(r.baton, 'pay_lines') as unknown[]).length).toBe(798);
    expect((await rail.payments())[0]?.lines).toBe(798);
  });
});
