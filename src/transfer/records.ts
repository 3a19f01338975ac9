/**
 * The records of dynamic handoff (layer 0), in one place for the JSON Schema generator and the
 * barrel: the route policy, the transfer request, the decision and the journal line.
 */
export {
  type DecisionCode,
  GRANT_CODES,
  type Lease,
  LeaseSchema,
  REFUSAL_CODES,
  type RefusalCode,
  type TransferDecision,
  TransferDecisionSchema,
  validateTransferDecision,
} from './decision-schema.js';
export {
  END_KINDS,
  type TransferJournalEntry,
  type TransferJournalLine,
  TransferJournalLineSchema,
  validateTransferJournalLine,
} from './journal-line-schema.js';
export {
  AgentNameSchema,
  ContextFilterSchema,
  type Route,
  type RoutePolicy,
  RoutePolicySchema,
  RouteSchema,
  validateRoutePolicy,
} from './policy-schema.js';
export {
  TRANSFER_KINDS,
  type TransferRequest,
  type TransferRequestInput,
  TransferRequestSchema,
  validateTransferRequest,
} from './request-schema.js';
