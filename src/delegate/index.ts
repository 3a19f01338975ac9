/**
 * handoff-runtime/delegate — one checked handoff for a host that already has an agent loop:
 * `createDispatch` (a validated run-contract/v1 dispatch with its file baseline), `delegate` (run
 * a worker, apply every check the cycle runtime applies to its handoff, journal it), `captureBefore`
 * + `checkHandoff` (for hosts that run the worker themselves), `operationalErrorHandoff` and
 * `canRelaunch` (the rerun guard). Guide: docs/tutorial-embed.md.
 *
 * Public names only, listed one by one; the rules and mechanisms behind them stay internal.
 */

export type { BeforeSnapshot, WatchOptions } from './before.js';
export { captureBefore } from './before.js';
export { canRelaunch, type RelaunchVerdict } from './can-relaunch.js';
export { checkHandoff } from './check-handoff.js';
export { type CommandWorker, type CommandWorkerOptions, commandWorker } from './command-worker.js';
export { createDispatch } from './create-dispatch.js';
export { type DelegateOptions, type DelegateResult, delegate } from './delegate.js';
export type { CreateDispatchInput } from './dispatch-record.js';
export { operationalErrorHandoff } from './refusal-handoff.js';
export type { DelegateContext, DelegateFn, DelegateWorker } from './run-worker.js';
export type { SandboxedAnswer } from './sandboxed-answer.js';
export type { CheckResult, DelegateOutcome } from './settle-rules.js';
export { DELEGATE_CHECKS, type DelegateCheck, type DelegateViolation } from './violations.js';
