/**
 * The cycle runtime: the host that drives machines/cycle (`runProject`, `runCycle`), its ports and
 * the records they exchange, the subprocess worker protocol, the built-in and command ports, the
 * git checkpointer, the persistence recorder, and the domain profiles (`leanProfile`, `codeProfile`).
 *
 * Public names only, listed one by one. The pure cycle rules live in src/cycle (imported by
 * machines/cycle); custody enforcement (owned files, workspace watch, verified custody, the
 * statement fence), git plumbing and prior-run startup are the host's mechanism and stay internal.
 */

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
  PatchInput,
  PatchOutput,
  PlannerInput,
  PlannerOutput,
  PlanStep,
  PreflightContext,
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
} from '../cycle/types.js';
// domain profiles (src/profile): `runProject({ profile })`, docs/concepts.md
export {
  type BlockerClassTable,
  CODE_BLOCKER_CLASSES,
  codeProfile,
  type DomainProfile,
  LEAN_BLOCKER_CLASSES,
  leanProfile,
  PROFILE_NAMES,
  type ProfileName,
  type ProfileOptions,
  profileByName,
} from '../profile/index.js';
export { type BatchOptions, runBatch } from './batch-worker.js';
export {
  type BuiltinReviewerOptions,
  builtinPlanner,
  builtinReviewer,
  lineHuman,
  scriptedHuman,
  stuckNextAction,
} from './builtin-ports.js';
export { commandDiagnostics, commandReviewer } from './command-ports.js';
export {
  type CycleFlags,
  MODE_DEFAULTS,
  type ResolvedOptions,
  resolveCycleOptions,
} from './cycle-options.js';
export { createDeepSnapshots, type DeepSnapshotsOptions, type SnapshotWriter } from './deep-snapshots.js';
export {
  createDelegatingWorker,
  type DelegatingWorkerOptions,
  type DelegatingWorkerPort,
  type ProgressSink,
  type TransportResult,
  type WorkerTransport,
} from './delegating-worker.js';
export {
  buildDispatch,
  buildRunDispatch,
  type OwnedPaths,
  ownedPathsOf,
  type RunDispatchInput,
  resolveUnder,
  roleFields,
} from './dispatch-builder.js';
export { createGitCheckpointer } from './git-checkpointer.js';
export { type LeanJsonDiagnosticsOptions, leanJsonDiagnostics } from './lean-json-diagnostics.js';
export { createMarkerDiagnostics, type MarkerDiagnosticsOptions } from './marker-diagnostics.js';
export { createPatcher, type PatcherOptions } from './patcher-port.js';
export {
  createPersistRecorder,
  openRunStore,
  type PersistRecorder,
  type PersistRecorderOptions,
} from './persist-recorder.js';
export type {
  CheckpointerPort,
  Clock,
  CyclePorts,
  DiagnosticsPort,
  HumanPort,
  PatcherPort,
  PlannerPort,
  ReviewerPort,
  SnapshotPort,
  Unstamped,
  WorkerPort,
} from './ports.js';
export type { PriorRunReuse } from './prior-run.js';
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
  type ClaimExtractor,
  createSynthesisJournal,
  resolveSynthesisSettings,
  runSynthesis,
  type SynthesisJournal,
  type SynthesisJournalOptions,
  type SynthesisRunOptions,
  type SynthesisRunResult,
  type SynthesisSettings,
} from './synthesis-run.js';
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
