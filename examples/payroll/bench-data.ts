/**
 * Deterministic month-end payroll data for the payroll experiment: 800 employees for one month,
 * two payments reversed by the bank, and the controlling ledger (what the bank actually paid).
 * The salary formula matches the reference lab's bench, so the totals agree with it:
 * obligations 13,744,541 over 800 lines, PAID 13,706,097 over 798 lines (38,444 reversed).
 */

/** One employee and the salary owed for the month. */
export interface Employee {
  readonly emp_id: string;
  readonly base_salary: number;
}

/** One payslip of the month with the bank's status. */
export interface Payslip {
  readonly emp_id: string;
  readonly amount: number;
  readonly status: 'PAID' | 'REVERSED';
}

/** The month's data: employees (the obligation source) and payslips (the bank's view). */
export interface PayrollMonth {
  readonly month: string;
  readonly employees: readonly Employee[];
  readonly payslips: readonly Payslip[];
}

/** The controlling ledger: the bank's PAID lines and their sum. */
export interface ControllingLedger {
  readonly month: string;
  readonly paid_total: number;
  readonly paid_lines: number;
}

/** Options of {@link generatePayrollMonth}. */
export interface PayrollMonthOptions {
  readonly month?: string;
  readonly employees?: number;
  readonly reversed?: readonly string[];
}

/** The month the reference experiment uses. */
export const PAYROLL_MONTH = '2026-06';

/** The employees whose payments the bank reversed. */
export const REVERSED_EMPLOYEES: readonly string[] = ['E0007', 'E0012'];

/**
 * Generates the month deterministically (no randomness, no clock).
 *
 * @example
 * ```ts
 * const m = generatePayrollMonth(); m.employees.length; // 800
 * ```
 */
export function generatePayrollMonth(options: PayrollMonthOptions = {}): PayrollMonth {
  const month = options.month ?? PAYROLL_MONTH;
  const count = options.employees ?? 800;
  const reversed = new Set(options.reversed ?? REVERSED_EMPLOYEES);
  const employees: Employee[] = [];
  const payslips: Payslip[] = [];
  for (let i = 1; i <= count; i++) {
    const emp_id = `E${String(i).padStart(4, '0')}`;
    const base_salary = emp_id === 'E0007' ? 30_000 : 8_000 + ((i * 37) % 22_000);
    employees.push({ emp_id, base_salary });
    payslips.push({ emp_id, amount: base_salary, status: reversed.has(emp_id) ? 'REVERSED' : 'PAID' });
  }
  return Object.freeze({ month, employees: Object.freeze(employees), payslips: Object.freeze(payslips) });
}

/**
 * The controlling ledger of a month: the sum of what the bank actually paid.
 *
 * @example
 * ```ts
 * controllingLedger(generatePayrollMonth()).paid_total; // 13706097
 * ```
 */
export function controllingLedger(m: PayrollMonth): ControllingLedger {
  const paid = m.payslips.filter((p) => p.status === 'PAID');
  return { month: m.month, paid_total: paid.reduce((s, p) => s + p.amount, 0), paid_lines: paid.length };
}
