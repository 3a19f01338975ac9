export type { HandoffErrorCode } from './error-codes.js';
export {
  CHAIN_CODES,
  CONTRACT_CODES,
  CUSTODY_CODES,
  ENVELOPE_CODES,
  ERROR_CODES,
  GATE_CODES,
  GENERIC_CODES,
  isHandoffErrorCode,
  PERSIST_CODES,
  PROCESS_CODES,
  SEAM_CODES,
  STORE_CODES,
  STORE_OUTCOME_CODES,
  TRACKER_CODES,
} from './error-codes.js';
export type { HandoffErrorOptions } from './handoff-error.js';
export { HANDOFF_ERROR_BRAND, HandoffError, isHandoffError } from './handoff-error.js';
