/**
 * The payroll chain and the wrong-value experiment: build the chain under a contract, run it (or
 * resume it from a journal) through the seam machine (`HandoffChain.run` drives
 * `machines/chain.ts`), and report receipts, outcome and what the rail actually paid.
 */
import {
  type AcceptanceReceipt,
  type Baton,
  type ChainJournal,
  createChain,
  createMemoryEffectLedger,
  type EffectLedger,
  type HandoffChain,
  isSeamError,
  type StageReceipt,
} from 'handoff-runtime/chain';
import { controllingLedger, generatePayrollMonth, type PayrollMonth } from './bench-data.js';
import { type PayrollContractKind, payrollContract, payrollRules } from './contracts.js';
import { createMemoryPaymentRail, type Payment, type PaymentRail } from './payment-rail.js';
import { payrollStages, type SettleSource, type StageEvent } from './stages.js';

/** Options of {@link buildPayrollChain} and {@link runPayroll}. */
export interface PayrollOptions {
  readonly contract: PayrollContractKind;
  /** Settle from the obligations (every salary) instead of the bank's PAID ledger. */
  readonly wrongValue?: boolean;
  readonly data?: PayrollMonth;
  readonly rail?: PaymentRail;
  readonly effects?: EffectLedger;
  /**
   * When given, commits are durable and a run resumes from the last committed baton. A function
   * gets the built chain first (a run-store journal needs its id, contract and stages).
   */
  readonly journal?: ChainJournal | ((chain: HandoffChain) => ChainJournal);
  readonly observe?: (event: StageEvent) => void | Promise<void>;
}

/** The report of one payroll run. */
export interface PayrollReport {
  readonly contract: PayrollContractKind;
  readonly source: SettleSource;
  readonly outcome: 'accepted' | 'stopped';
  readonly baton_id: string;
  readonly revision: number;
  readonly trace: readonly string[];
  readonly resumed_from_revision: number | null;
  readonly receipts: readonly StageReceipt[];
  readonly acceptance: AcceptanceReceipt | null;
  readonly seam_error: {
    readonly code: string;
    readonly stage: string;
    readonly detail: string;
    readonly message: string;
    readonly checkpoint: {
      readonly snapshot_id: string;
      readonly revision: number;
      readonly trace: readonly string[];
    };
  } | null;
  readonly payments: readonly Payment[];
  readonly paid_lines: number;
  readonly paid_total: number;
  readonly ledger_total: number;
  readonly overpaid: number;
}

/**
 * The baton id of a month's run.
 *
 * @example
 * ```ts
 * payrollBatonId('2026-06'); // 'payroll-2026-06'
 * ```
 */
export function payrollBatonId(month: string): string {
  return `payroll-${month}`;
}

/**
 * Builds the payroll chain and its revision-0 baton.
 *
 * @example
 * ```ts
 * const { chain, baton } = buildPayrollChain({ contract: 'release', rail, effects });
 * ```
 */
export function buildPayrollChain(options: PayrollOptions & { rail: PaymentRail; effects: EffectLedger }): {
  chain: HandoffChain;
  baton: Baton;
  data: PayrollMonth;
} {
  const data = options.data ?? generatePayrollMonth();
  const source: SettleSource = options.wrongValue ? 'obligation' : 'paid';
  const chain = createChain({
    chain_id: `payroll-chain-${options.contract}`,
    contract: payrollContract(options.contract, data.month),
    rules: payrollRules(options.contract, controllingLedger(data)),
    stages: payrollStages({
      data,
      source,
      rail: options.rail,
      effects: options.effects,
      ...(options.observe ? { observe: options.observe } : {}),
    }),
  });
  const baton = chain.newBaton({
    baton_id: payrollBatonId(data.month),
    intent: `disburse ${data.month} salaries`,
  });
  return { chain, baton, data };
}

/**
 * Runs (or, with a journal holding the baton, resumes) the payroll chain through the seam machine
 * and reports. A seam refusal is part of the report, not an exception.
 *
 * @example
 * ```ts
 * const r = await runPayroll({ contract: 'thin', wrongValue: true });
 * r.outcome; // 'accepted' — and r.overpaid is 38444
 * ```
 */
export async function runPayroll(options: PayrollOptions): Promise<PayrollReport> {
  const rail = options.rail ?? createMemoryPaymentRail();
  const effects = options.effects ?? createMemoryEffectLedger();
  const { chain, baton, data } = buildPayrollChain({ ...options, rail, effects });
  const ledger = controllingLedger(data);
  const journal = typeof options.journal === 'function' ? options.journal(chain) : options.journal;
  const start = (journal ? await journal.loadLast(baton.baton_id) : undefined) ?? baton;
  const base = {
    contract: options.contract,
    source: (options.wrongValue ? 'obligation' : 'paid') as SettleSource,
    baton_id: baton.baton_id,
    resumed_from_revision: start === baton ? null : start.revision,
    ledger_total: ledger.paid_total,
  };
  const paid = async () => {
    const payments = await rail.payments();
    const total = payments.reduce((s, p) => s + p.total, 0);
    return {
      payments,
      paid_lines: payments.reduce((s, p) => s + p.lines, 0),
      paid_total: total,
      overpaid: Math.round((total - ledger.paid_total) * 100) / 100,
    };
  };
  try {
    const r = await chain.run(start, journal ? { journal } : {});
    const money = await paid();
    return {
      ...base,
      outcome: 'accepted',
      revision: r.baton.revision,
      trace: r.baton.trace,
      receipts: r.receipts,
      acceptance: r.acceptance,
      seam_error: null,
      ...money,
    };
  } catch (e) {
    if (!isSeamError(e)) throw e;
    const money = await paid();
    return {
      ...base,
      outcome: 'stopped',
      revision: e.checkpoint.revision,
      trace: e.checkpoint.trace,
      receipts: e.receipts,
      acceptance: null,
      seam_error: {
        code: e.code,
        stage: e.stage,
        detail: e.detail,
        message: e.message,
        checkpoint: {
          snapshot_id: e.checkpoint.snapshot_id,
          revision: e.checkpoint.revision,
          trace: e.checkpoint.trace,
        },
      },
      ...money,
      overpaid: money.payments.length === 0 ? 0 : money.overpaid,
    };
  }
}
