/**
 * The cycle runtime: ports, the subprocess worker protocol, custody enforcement, built-in marker
 * diagnostics, the git checkpointer, and the host that drives machines/cycle. The pure cycle rules
 * (src/cycle) are re-exported here under the names this entry point has always had.
 */

// the pure cycle rules live in src/cycle; re-exported here under the names users import today
export {
  attemptOf,
  detectStuck,
  type EditVerification,
  EMPTY_LEDGER,
  FALLBACK_AFTER_INCONCLUSIVE,
  FALLBACK_TOOL_PREFIX,
  type FinalKind,
  fallbackGate,
  finalHandoff,
  type GateVerdict,
  grantCapabilities,
  importLines,
  importsChanged,
  isTrivialGoal,
  ledgerAfterHandoff,
  ledgerAfterPlan,
  mergeBaseline,
  nextTier,
  pickTarget,
  relaunchVerdict,
  reviewDue,
  reviewScopeFor,
  SEARCH_BUDGET_PREFIX,
  SEARCH_FALLBACK_CAPABILITY,
  type SearchGrant,
  type SearchLedger,
  type StuckInputs,
  searchGrant,
  searchViolation,
  stuckClass,
  TIERS as VERIFICATION_TIERS,
  type TierPlan,
  tierPlan,
  UNAVAILABLE_TOOL_PREFIX,
  type VerificationQuestion,
  verifyEdit,
  WORK_SEARCH_LIMIT,
  wrapStuckHandoff,
} from '../cycle/index.js';
export type * from '../cycle/types.js';
export {
  builtinPlanner,
  builtinReviewer,
  lineHuman,
  parseAnswer,
  phraseOf,
  scriptedHuman,
} from './builtin-ports.js';
export { splitCommand } from './command-line.js';
export { commandDiagnostics, commandReviewer } from './command-ports.js';
export { postReturnViolation, preDispatchDrift } from './custody-guard.js';
export {
  type CycleFlags,
  MODE_DEFAULTS,
  type ResolvedOptions,
  resolveCycleOptions,
} from './cycle-options.js';
export {
  createDelegatingWorker,
  type DelegatingWorkerOptions,
  type ProgressSink,
  type TransportResult,
  type WorkerTransport,
} from './delegating-worker.js';
export { buildDispatch, buildRunDispatch, type RunDispatchInput } from './dispatch-builder.js';
export {
  commitExact,
  createGitCheckpointer,
  type ExactEntry,
  git,
  isBlockedGit,
  isGitRepo,
  NO_CHANGES_MESSAGE,
} from './git-checkpointer.js';
export {
  createMarkerDiagnostics,
  listProjectFiles,
  type MarkerDiagnosticsOptions,
  splitTarget,
} from './marker-diagnostics.js';
export { type MarkerScan, scanMarkers } from './marker-scan.js';
export {
  capturedSha,
  captureOwned,
  type OwnedCapture,
  ownedTypeViolation,
  restoreOwned,
} from './owned-files.js';
export {
  createPersistRecorder,
  openRunStore,
  type PersistRecorder,
  type PersistRecorderOptions,
} from './persist-recorder.js';
export type * from './ports.js';
export {
  formatReuseReport,
  needsReconciliation,
  type PriorRunReuse,
  type ReuseStartup,
  type ReuseStartupInput,
  reuseStartup,
} from './prior-run.js';
export { newRunId, type ProjectRunOptions, type ProjectRunResult, runProject } from './project-run.js';
export {
  type CycleProgress,
  type CycleRunInput,
  type CycleRunResult,
  diagnoseOnLadder,
  provideCycle,
  runCycle,
} from './run-cycle.js';
export { nullRecorder, type RunRecorder } from './run-recorder.js';
export {
  EXIT_PERMISSION_DENIED,
  type InProcessWorker,
  inProcessTransport,
  type SubprocessTransportOptions,
  subprocessTransport,
} from './transports.js';
export { createVerifiedCustody, type VerifiedCustody, type VerifiedFile } from './verified-custody.js';
export {
  describeProgress,
  type FramedOutput,
  PROGRESS_SCHEMA as WORKER_PROGRESS_SCHEMA,
  parseWorkerOutput,
  WORKER_PROTOCOL_VERSION,
} from './worker-framing.js';
export {
  captureZoneBytes,
  describeWorkspaceChanges,
  gitDirsOf,
  restoreZones,
  snapshotWorkspace,
  UNWATCHED_DIRS,
  type WatchZones,
  type WorkspaceChanges,
  type WorkspaceSnapshot,
  workspaceChanges,
  type ZoneBytes,
} from './workspace-watch.js';
