/**
 * run-contract/v1 (`handoff-runtime/contract`): the dispatch and handoff records in full (schemas,
 * enums, the worker parameter schemas), their validators, the rerun guard, the blocker signature,
 * the protocol-error handoff, unknown-key scanning, and what every validator returns (with the
 * nesting limit every record is held to).
 */
// what every validator returns, and the nesting limit every record is held to (src/validation)
export { MAX_RECORD_DEPTH, nestingDepth, TOO_DEEP } from '../validation/depth.js';
export type { SafeValidateOptions, ValidationIssue, ValidationResult } from '../validation/result.js';
export { safeValidate } from '../validation/result.js';
export { blockerSignature, normalizeErrorText } from './blocker-signature.js';
export type { Budget, Dispatch, DispatchContext } from './dispatch-schema.js';
export {
  AxiomEliminatorParamsSchema,
  BudgetSchema,
  DispatchContextSchema,
  DispatchSchema,
  InlineParamsSchema,
  ProofGolferParamsSchema,
  ProofRepairParamsSchema,
  SorryFillerDeepParamsSchema,
  WORKER_PARAMETER_SCHEMAS,
} from './dispatch-schema.js';
export {
  BLOCKER_CLASS_PHRASES,
  type BlockerClass,
  BlockerClassSchema,
  type BlockerKind,
  BlockerKindSchema,
  blockerClassFromPhrase,
  type Mode,
  ModeSchema,
  type NextAction,
  NextActionSchema,
  OPERATIONAL_STOP_REASONS,
  RUN_CONTRACT_SCHEMA,
  type Scope,
  ScopeSchema,
  type Status,
  StatusSchema,
  type StopReason,
  StopReasonSchema,
  type WorkerKind,
  WorkerSchema,
} from './enums.js';
export { handoffFor } from './handoff-for.js';
export type { Handoff, HandoffEvidence } from './handoff-schema.js';
export {
  ArtifactSchema,
  CandidateSchema,
  emptyEvidence,
  HandoffEvidenceSchema,
  HandoffSchema,
  isBlockerDriven,
} from './handoff-schema.js';
export { protocolErrorHandoff, recoverObjectPrefix } from './protocol-error.js';
export type { RerunBranch, RerunVerdict } from './rerun-guard.js';
export { rerunGuard, sameTask } from './rerun-guard.js';
export type { KeyScan, KeyScanKind } from './unknown-keys.js';
export { FORBIDDEN_KEY, scanUnknownKeys, UNKNOWN_KEY } from './unknown-keys.js';
export { validateBaseline, validateDispatch, validateHandoff } from './validate.js';
