/**
 * The cycle runtime: ports, the subprocess worker protocol, custody enforcement, built-in marker
 * diagnostics, the git checkpointer, and the host that drives machines/cycle.
 */
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
export {
  postReturnViolation,
  preDispatchDrift,
  type Sentinel,
  sentinelDiff,
  sentinelSnapshot,
} from './custody-guard.js';
export {
  type CycleFlags,
  MODE_DEFAULTS,
  type ResolvedOptions,
  resolveCycleOptions,
} from './cycle-options.js';
export {
  attemptOf,
  detectStuck,
  type FinalKind,
  finalHandoff,
  isTrivialGoal,
  mergeBaseline,
  pickTarget,
  relaunchVerdict,
  reviewDue,
  reviewScopeFor,
  type StuckInputs,
  stuckClass,
  wrapStuckHandoff,
} from './cycle-rules.js';
export type * from './cycle-types.js';
export {
  createDelegatingWorker,
  type DelegatingWorkerOptions,
  type TransportResult,
  type WorkerTransport,
} from './delegating-worker.js';
export { buildDispatch } from './dispatch-builder.js';
export {
  createGitCheckpointer,
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
export type * from './ports.js';
export { newRunId, type ProjectRunOptions, type ProjectRunResult, runProject } from './project-run.js';
export {
  type CycleProgress,
  type CycleRunInput,
  type CycleRunResult,
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
export {
  type FramedOutput,
  PROGRESS_SCHEMA as WORKER_PROGRESS_SCHEMA,
  parseWorkerOutput,
  WORKER_PROTOCOL_VERSION,
} from './worker-framing.js';
export { runWorkerProcess, type WorkerProcessOptions, type WorkerProcessResult } from './worker-process.js';
