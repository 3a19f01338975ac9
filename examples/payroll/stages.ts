/**
 * The five payroll specialists: intent → settle → fund_check → pay → receipt. `settle` reads
 * either the bank's PAID ledger (right) or the obligations (every salary, wrong: it includes the
 * two reversed payments). `pay` trusts the baton and pays through the effect ledger keyed by its
 * `stage_run_id` (the intent recorded before the first transfer; a payment left in doubt by a crash
 * reconciled against the bank's statement, never paid again blindly).
 */
import {
  type BatonView,
  type ChainStage,
  type EffectLedger,
  type EffectVia,
  idempotentEffect,
  stageDelta,
} from 'handoff-runtime/chain';
import type { PayrollMonth } from './bench-data.js';
import type { PayLine, Payment, PaymentRail, PaymentRequest } from './payment-rail.js';

/** What the funding account can cover (a teaching value, as in the reference lab). */
export const FUNDING_CAP = 14_000_000;

/** Which source `settle` reads. */
export type SettleSource = 'paid' | 'obligation';

/** A stage observation (used by tests and the kill-and-resume fixture). */
export interface StageEvent {
  readonly stage: string;
  readonly stage_run_id: string;
  /** `start` before the stage works; `effect` after pay's side effect is recorded. */
  readonly phase: 'start' | 'effect';
  /** For `effect`: true when the effect was replayed from the ledger. */
  readonly replayed?: boolean;
  /** For `effect`: how the payment was obtained (`ran`, `replayed`, `reconciled`). */
  readonly via?: EffectVia;
}

/** Dependencies of {@link payrollStages}. */
export interface PayrollStageDeps {
  readonly data: PayrollMonth;
  readonly source: SettleSource;
  readonly rail: PaymentRail;
  readonly effects: EffectLedger;
  /** Awaited at each observation point (may hang to simulate a crash window). */
  readonly observe?: (event: StageEvent) => void | Promise<void>;
}

/**
 * The evidence reference of each settle source.
 *
 * @example
 * ```ts
 * settleEvidence('paid', '2026-06'); // 'ledger://payroll/paid-ledger?month=2026-06'
 * ```
 */
export function settleEvidence(source: SettleSource, month: string): string {
  return source === 'paid'
    ? `ledger://payroll/paid-ledger?month=${month}`
    : `ledger://payroll/obligations?month=${month}`;
}

const cents = (x: number) => Math.round(x * 100) / 100;

/**
 * Decides a payment left in doubt (its intent recorded, its result not): reads the bank's
 * statement for the reference, pays only the lines not on it (an employee paid once is never paid
 * again; one with two lines gets the second), and returns the whole payment as the statement now
 * shows it.
 *
 * @example
 * ```ts
 * const payment = await reconcilePayment(rail, { idempotency_key: runId, payment_id: 'payment-2026-06', lines });
 * ```
 */
export async function reconcilePayment(rail: PaymentRail, request: PaymentRequest): Promise<Payment> {
  const paid = new Map<string, number>();
  for (const t of await rail.statement(request.idempotency_key))
    paid.set(t.emp_id, (paid.get(t.emp_id) ?? 0) + 1);
  const missing = request.lines.filter((l) => {
    const n = paid.get(l.emp_id) ?? 0;
    if (n > 0) paid.set(l.emp_id, n - 1);
    return n === 0;
  });
  if (missing.length > 0) await rail.pay({ ...request, lines: missing });
  const all = await rail.statement(request.idempotency_key);
  return {
    idempotency_key: request.idempotency_key,
    payment_id: request.payment_id,
    lines: all.length,
    total: cents(all.reduce((s, t) => s + t.amount, 0)),
  };
}

/**
 * The five stages with their specs.
 *
 * @example
 * ```ts
 * const stages = payrollStages({ data, source: 'paid', rail, effects });
 * ```
 */
export function payrollStages(deps: PayrollStageDeps): ChainStage[] {
  const note = async (view: BatonView, phase: StageEvent['phase'], replayed?: boolean, via?: EffectVia) => {
    if (deps.observe)
      await deps.observe({
        stage: view.stage_name,
        stage_run_id: view.stage_run_id,
        phase,
        ...(replayed === undefined ? {} : { replayed }),
        ...(via === undefined ? {} : { via }),
      });
  };
  const month = deps.data.month;
  return [
    {
      spec: { name: 'intent', provides: ['month', 'run_id'] },
      run: async (view) => {
        await note(view, 'start');
        return stageDelta({
          month: { value: month, evidence: [`request://payroll/${month}`] },
          run_id: { value: `run-${month}`, evidence: [`request://payroll/${month}`] },
        });
      },
    },
    {
      spec: { name: 'settle', requires: ['month'], provides: ['net_total', 'pay_lines'] },
      run: async (view) => {
        await note(view, 'start');
        const m = view.facts.month as string;
        const lines: PayLine[] =
          deps.source === 'paid'
            ? deps.data.payslips
                .filter((p) => p.status === 'PAID')
                .map((p) => ({ emp_id: p.emp_id, amount: p.amount }))
            : deps.data.employees.map((e) => ({ emp_id: e.emp_id, amount: e.base_salary }));
        const ev = settleEvidence(deps.source, m);
        return stageDelta({
          net_total: { value: cents(lines.reduce((s, l) => s + l.amount, 0)), evidence: [ev] },
          pay_lines: { value: lines, evidence: [ev] },
        });
      },
    },
    {
      spec: { name: 'fund_check', requires: ['net_total'], provides: ['funding_ok'] },
      run: async (view) => {
        await note(view, 'start');
        return stageDelta({
          funding_ok: {
            value: (view.facts.net_total as number) <= FUNDING_CAP,
            evidence: ['bank://payroll-account/funding-cap'],
          },
        });
      },
    },
    {
      spec: {
        name: 'pay',
        requires: ['net_total', 'pay_lines', 'funding_ok'],
        provides: ['paid_total', 'payment_id'],
      },
      run: async (view) => {
        await note(view, 'start');
        // Deliberately trusts the baton: the seams guaranteed that the facts exist and are typed.
        const lines = view.facts.pay_lines as PayLine[];
        const request = { idempotency_key: view.stage_run_id, payment_id: `payment-${month}`, lines };
        const { result, replayed, via } = await idempotentEffect<Payment>(
          deps.effects,
          view.stage_run_id,
          () => deps.rail.pay(request),
          // in doubt (a run recorded the intent and never the result): the bank's statement says
          // who was paid under this reference; only the others are paid now
          { reconcile: () => reconcilePayment(deps.rail, request) },
        );
        await note(view, 'effect', replayed, via);
        const ev = `bank://payments/${result.payment_id}`;
        return stageDelta({
          paid_total: { value: result.total, evidence: [ev] },
          payment_id: { value: result.payment_id, evidence: [ev] },
        });
      },
    },
    {
      spec: { name: 'receipt', requires: ['run_id', 'paid_total', 'payment_id'], provides: ['receipt_id'] },
      run: async (view) => {
        await note(view, 'start');
        const id = `rcpt-${view.facts.run_id as string}`;
        return stageDelta({ receipt_id: { value: id, evidence: [`payroll://receipts/${id}`] } }, [
          `payroll://receipts/${id}`,
        ]);
      },
    },
  ];
}
