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
