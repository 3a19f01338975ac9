/**
 * The two payroll contracts. The thin one declares keys, producers, types and evidence only; the
 * release one adds semantic rules bound to the controlling ledger. Same stages, same keys — the
 * runner enforces exactly the rules the contract declares.
 */

import { type ChainTaskContract, createTaskContract, type FactRule, factRule } from 'handoff-runtime/chain';
import { z } from 'zod';
import type { ControllingLedger } from './bench-data.js';

/** Which contract to run under. */
export type PayrollContractKind = 'thin' | 'release';

/** Tolerance of the money comparisons. */
export const MONEY_TOLERANCE = 0.005;

const money = (x: number) =>
  x.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/**
 * The task contract of a payroll month under `kind`.
 *
 * @example
 * ```ts
 * payrollContract('release', '2026-06').contract_id; // 'payroll-release'
 * ```
 */
export function payrollContract(kind: PayrollContractKind, month: string): ChainTaskContract {
  return createTaskContract({
    contract_id: `payroll-${kind}`,
    version: 1,
    objective: `disburse ${month} salaries`,
    output_schema: 'payroll-receipt/v1',
    accountable_owner: 'finance-ops',
    constraints:
      kind === 'release'
        ? [
            'net_total equals the controlling ledger',
            'pay only on a positive funding check',
            'paid_total equals net_total',
          ]
        : [],
    allowed_tools: ['ledger.read', 'bank.pay'],
    authority_scope: ['payroll-account'],
    budget: { max_attempts: 3, timeout_seconds: 60 },
  });
}

/**
 * The fact rules under `kind`; the release rules tie `net_total` to `ledger`.
 *
 * @example
 * ```ts
 * const rules = payrollRules('release', controllingLedger(data));
 * ```
 */
export function payrollRules(kind: PayrollContractKind, ledger: ControllingLedger): FactRule[] {
  const semantic = kind === 'release';
  const rules = [
    factRule({ key: 'month', producer_stage: 'intent', type: z.string().regex(/^\d{4}-\d{2}$/) }),
    factRule({ key: 'run_id', producer_stage: 'intent', type: z.string().min(1) }),
    factRule({
      key: 'net_total',
      producer_stage: 'settle',
      type: z.number(),
      ...(semantic
        ? {
            validator: (v: number) =>
              Math.abs(v - ledger.paid_total) <= MONEY_TOLERANCE
                ? null
                : `got ${money(v)}, the controlling ledger's PAID sum is ${money(ledger.paid_total)}`,
            describe: 'net_total must equal the controlling ledger',
          }
        : {}),
    }),
    factRule({
      key: 'pay_lines',
      producer_stage: 'settle',
      type: z.array(z.strictObject({ emp_id: z.string(), amount: z.number() })),
    }),
    factRule({
      key: 'funding_ok',
      producer_stage: 'fund_check',
      type: z.boolean(),
      ...(semantic
        ? {
            validator: (v: boolean) => (v === true ? null : `got ${String(v)}`),
            describe: 'payment may only run on a positive funding check',
          }
        : {}),
    }),
    factRule({
      key: 'paid_total',
      producer_stage: 'pay',
      type: z.number(),
      ...(semantic
        ? {
            validator: (v: number, view) => {
              const net = view.facts.net_total as number;
              return Math.abs(v - net) <= MONEY_TOLERANCE
                ? null
                : `paid ${money(v)} but net_total is ${money(net)}`;
            },
            describe: 'paid_total must equal net_total',
          }
        : {}),
    }),
    factRule({ key: 'payment_id', producer_stage: 'pay', type: z.string().min(1) }),
    factRule({ key: 'receipt_id', producer_stage: 'receipt', type: z.string().min(1) }),
  ];
  return rules as FactRule[];
}
