/**
 * The six-phase cycle's pure rules (layer 1): the records exchanged with the actors, target choice,
 * the rerun guard for relaunches, the stuck rules, the verification ladder, search budgets, review
 * timing, the handoff records the parent builds, the actor inputs, and the reducers that
 * machines/cycle's `assign` actions apply. No I/O; `src/runtime` provides the actors.
 */

export {
  approveCommitQuestion,
  approvePlanQuestion,
  approveReplanQuestion,
  BLOCKER_OPTIONS,
  blockerQuestion,
  checkpointInput,
  continueQuestion,
  diagnosticsRequest,
  plannerInput,
  reviewInput,
  stuckReviewInput,
  verifyRequest,
  workerInput,
} from './actor-inputs.js';
export {
  absorbHuman,
  absorbHumanEvidence,
  answeredWithEvidence,
  nextCycle,
  tickTracker,
} from './boundary-reducers.js';
export {
  absorbCheckpoint,
  absorbGate,
  checkpointRefused,
  noteSkipCheckpoint,
} from './checkpoint-reducers.js';
export { type CycleUpdate, currentCycle, initialCycleContext } from './context.js';
export { mergeBaseline } from './custody.js';
export {
  type FinalKind,
  finalHandoff,
  type StuckBlocker,
  stuckBlocker,
  stuckClass,
  wrapStuckHandoff,
} from './final-handoff.js';
export { absorbDiagnostics, absorbPlan, chooseTarget } from './plan-reducers.js';
export { relaunchForbidden, relaunchVerdict } from './relaunch.js';
export { reviewDue, reviewScopeFor } from './review.js';
export { absorbReview } from './review-reducers.js';
export { checkpointSkipped, nothingToVerify, planningSkipped } from './routes.js';
export {
  checkpointStop,
  errorStop,
  finalizeSolved,
  finalizeStopped,
  finalizeStuck,
  limitStop,
  redraft,
  runOutput,
  stopFor,
  workStop,
} from './run-end.js';
export {
  EMPTY_LEDGER,
  FALLBACK_AFTER_INCONCLUSIVE,
  FALLBACK_TOOL_PREFIX,
  fallbackGate,
  type GateVerdict,
  grantCapabilities,
  ledgerAfterHandoff,
  ledgerAfterPlan,
  SEARCH_BUDGET_PREFIX,
  SEARCH_FALLBACK_CAPABILITY,
  type SearchGrant,
  type SearchLedger,
  searchGrant,
  searchViolation,
  UNAVAILABLE_TOOL_PREFIX,
  WORK_SEARCH_LIMIT,
} from './search-budget.js';
export { attemptOf, detectStuck, fenceStuck, type StuckInputs } from './stuck.js';
export { isTrivialGoal, pickTarget, targetTask } from './targets.js';
export type {
  AttemptRecord,
  CheckpointInput,
  CheckpointOutput,
  CheckpointRecord,
  CycleContext,
  CycleInput,
  CycleMode,
  CycleOptions,
  DiagnosticsInput,
  DiagnosticsOutput,
  HumanInput,
  HumanOutput,
  PlannerInput,
  PlannerOutput,
  PlanStep,
  ReviewEvery,
  ReviewInput,
  ReviewOutput,
  StuckCondition,
  StuckVerdict,
  TargetInfo,
  VerificationTier,
  WorkerInput,
  WorkOutcome,
} from './types.js';
export {
  importLines,
  importsChanged,
  nextTier,
  TIERS,
  type TierPlan,
  tierPlan,
  type VerificationQuestion,
} from './verification-ladder.js';
export { type EditVerification, verifyEdit } from './verify-edit.js';
export {
  absorbVerify,
  absorbWork,
  assessStuck,
  markFenceStuck,
  markRefused,
  switchToInline,
} from './work-reducers.js';
