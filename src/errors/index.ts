export type { HandoffErrorCode, HandoffErrorOptions } from './handoff-error.js';
export { HANDOFF_ERROR_BRAND, HandoffError, isHandoffError } from './handoff-error.js';
