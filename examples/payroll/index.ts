/**
 * The payroll experiment (reference lab, lecture 35): a month-end payroll handed along
 * intent → settle → fund_check → pay → receipt, under a thin and a release contract.
 */
export type {
  ControllingLedger,
  Employee,
  PayrollMonth,
  PayrollMonthOptions,
  Payslip,
} from './bench-data.js';
export { controllingLedger, generatePayrollMonth, PAYROLL_MONTH, REVERSED_EMPLOYEES } from './bench-data.js';
export type { PayrollContractKind } from './contracts.js';
export { MONEY_TOLERANCE, payrollContract, payrollRules } from './contracts.js';
export type {
  PayLine,
  Payment,
  PaymentRail,
  PaymentRailOptions,
  PaymentRequest,
  Transfer,
} from './payment-rail.js';
export { createFilePaymentRail, createMemoryPaymentRail, paymentsOf } from './payment-rail.js';
export type { PayrollOptions, PayrollReport } from './payroll-chain.js';
export { buildPayrollChain, payrollBatonId, runPayroll } from './payroll-chain.js';
export type { PayrollStageDeps, SettleSource, StageEvent } from './stages.js';
export { FUNDING_CAP, payrollStages, reconcilePayment, settleEvidence } from './stages.js';
