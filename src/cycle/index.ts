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
  batchTargets,
  blockerQuestion,
  checkpointInput,
  continueQuestion,
  diagnosticsRequest,
  plannerInput,
  preflightFor,
  reviewedHandoff,
  reviewInput,
  stuckReviewInput,
  targetWorkerInput,
  verifyRequest,
  workerInput,
} from './actor-inputs.js';
export { disjointGroups, overlapping, selectBatch } from './batch.js';
export {
  absorbHuman,
  absorbHumanEvidence,
  answeredWithEvidence,
  nextCycle,
  reopenCycle,
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
  absorbDeepBaseline,
  absorbRollback,
  absorbSnapshot,
  acceptDeep,
  deepDenial,
  deepDiagnosticsRequest,
  deepFailed,
  deepFenceViolation,
  deepWorkerInput,
  judgeDeepPass,
  noteDeepWork,
  restoreFailed,
  restoreInput,
  rollbackFailed,
  sameFile,
  skipDeep,
  snapshotInput,
  startDeep,
} from './deep-reducers.js';
export {
  DEEP_ROLLBACK_FAILED,
  type DeepJudgement,
  type DiagnosticsView,
  deepManagedFiles,
  deepParameters,
  deepWanted,
  improvedAfterDeep,
  judgeDeep,
  type Regression,
  regressionOf,
  scopeFence,
} from './deep-rules.js';
export { approveDeepQuestion, type Escalation, escalation } from './escalation.js';
export {
  declarationNameAt,
  falsificationParameters,
  falsificationWanted,
  isFalsifyPass,
  negationViolation,
  targetHandoffs,
} from './falsification.js';
export {
  declinedIntoFalsification,
  FALSIFICATION_OPTIONS,
  falsificationQuestion,
  falsifyWorkerInput,
  pickedFalsification,
  startFalsify,
} from './falsify-reducers.js';
export {
  type FinalKind,
  finalHandoff,
  type StuckBlocker,
  stuckBlocker,
  stuckClass,
  wrapStuckHandoff,
} from './final-handoff.js';
export { changedLineCount } from './line-diff.js';
export { absorbDiagnostics, absorbPlan, chooseTarget } from './plan-reducers.js';
export { relaunchForbidden, relaunchVerdict } from './relaunch.js';
export {
  absorbPatch,
  absorbRepairWork,
  acceptRepair,
  buildErrorRepeats,
  judgeRepair,
  markRepairExhausted,
  noRepairError,
  patchInput,
  patchRefused,
  patchStale,
  patchStop,
  REPAIR_PROTOCOL,
  repairDenied,
  repairError,
  repairGivesUp,
  repairHandoffValid,
  repairImproved,
  repairProtocolStop,
  repairTriggerFor,
  repairVerifyRequest,
  repairWorkerInput,
  startRepair,
} from './repair-reducers.js';
export {
  EMPTY_REPAIR_LEDGER,
  errorSignature,
  type RepairLedger,
  recordRepair,
  repairAnswerViolation,
  repairBudget,
  repairEditViolation,
  repairExhausted,
  repairOutcome,
  repairTrigger,
} from './repair-rules.js';
export { reviewDue, reviewScopeFor } from './review.js';
export { absorbReview } from './review-reducers.js';
export {
  endWithNextAction,
  markRouted,
  type ReviewRoute,
  reviewRoute,
  routedEvidence,
} from './review-routing.js';
export { ROUTER_TABLE, type Route, type RouterRow, routeFor } from './router.js';
export { checkpointSkipped, nothingToVerify, planningSkipped } from './routes.js';
export {
  checkpointStop,
  errorStop,
  finalizeSolved,
  finalizeStopped,
  finalizeStuck,
  formalizeCommand,
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
  DeepRun,
  DiagnosticsInput,
  DiagnosticsOutput,
  DiagnosticsSnapshot,
  HumanInput,
  HumanOutput,
  PatchInput,
  PatchOutput,
  PlannerInput,
  PlannerOutput,
  PlanStep,
  PreflightContext,
  RepairLedgerState,
  RepairRun,
  RestoreInput,
  RestoreOutput,
  ReviewEvery,
  ReviewInput,
  ReviewOutput,
  SnapshotInput,
  SnapshotOutput,
  StuckCondition,
  StuckVerdict,
  TargetInfo,
  VerificationTier,
  WorkerInput,
  WorkOutcome,
  WorkRole,
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
export { projectRootOf, verifiedFiles } from './verified-files.js';
export { type EditVerification, verifyEdit } from './verify-edit.js';
export {
  absorbHandoff,
  absorbVerify,
  absorbWork,
  assessStuck,
  markFenceStuck,
  markRefused,
  switchToInline,
} from './work-reducers.js';
