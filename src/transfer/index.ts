/**
 * `handoff-runtime/transfer`: dynamic handoff with checks — the route policy (`handoff-routes/v1`),
 * transfer requests and decisions, the pure rules (route lookup, context projection, lease, limits,
 * rerun guard, session fold), the file journal that serializes a session's transfers, and the
 * machine that drives them (re-exported from machines/transfer.ts).
 */
export {
  type AppendJournalInput,
  type TransferMachine,
  type TransferMachineContext,
  type TransferMachineEvent,
  type TransferMachineInput,
  type TransferMachineOutput,
  transferMachine,
} from '../../machines/transfer.js';
export {
  type RevokeResult,
  readTransferSession,
  revokeTransferSession,
  submitTransfer,
  type TransferJournalOptions,
} from './file-journal.js';
export { transferJournalFile } from './journal-path.js';
export {
  AgentNameSchema,
  ContextFilterSchema,
  type DecisionCode,
  END_KINDS,
  GRANT_CODES,
  type Lease,
  LeaseSchema,
  REFUSAL_CODES,
  type RefusalCode,
  type Route,
  type RoutePolicy,
  RoutePolicySchema,
  RouteSchema,
  TRANSFER_KINDS,
  type TransferDecision,
  TransferDecisionSchema,
  type TransferJournalEntry,
  type TransferJournalLine,
  TransferJournalLineSchema,
  type TransferRequest,
  type TransferRequestInput,
  TransferRequestSchema,
  validateRoutePolicy,
  validateTransferDecision,
  validateTransferJournalLine,
  validateTransferRequest,
} from './records.js';
export { type Authorization, authorize, closedRefusal } from './rules/authorize.js';
export { type ProjectedContext, projectContext } from './rules/context-projection.js';
export { leaseFor, leaseLive } from './rules/lease.js';
export { findRoute } from './rules/route-lookup.js';
export { limitReached } from './rules/session-limits.js';
export {
  applyJournalLine,
  emptySession,
  foldSession,
  type GrantRecord,
  requestDigest,
  type SessionState,
  type SessionStatus,
  transferCite,
} from './rules/session-state.js';
export { transferRerun } from './rules/transfer-rerun.js';
