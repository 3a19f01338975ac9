/**
 * The ports of the cycle runtime: what a host provides to drive machines/cycle. Each port has an
 * in-process implementation (tests, embedding) and a subprocess or git implementation (CLI).
 * Ports return their result without a timestamp; the runtime stamps every output with its clock.
 */
import type {
  CheckpointInput,
  CheckpointOutput,
  DiagnosticsInput,
  DiagnosticsOutput,
  HumanInput,
  HumanOutput,
  PatchInput,
  PatchOutput,
  PlannerInput,
  PlannerOutput,
  RestoreInput,
  RestoreOutput,
  ReviewInput,
  ReviewOutput,
  SnapshotInput,
  SnapshotOutput,
  WorkerInput,
  WorkOutcome,
} from '../cycle/types.js';

/** Removes the runtime-stamped `now`. */
export type Unstamped<T> = T extends unknown ? Omit<T, 'now'> : never;

/** Discovers open targets and verifies, with the verification ladder's tiers. */
export interface DiagnosticsPort {
  diagnose(input: DiagnosticsInput): Promise<Unstamped<DiagnosticsOutput>>;
}
/** Orders targets and records plan notes; searches within the given budget. */
export interface PlannerPort {
  plan(input: PlannerInput): Promise<Unstamped<PlannerOutput>>;
}
/** Runs one dispatch and returns a validated, custody-checked outcome. */
export interface WorkerPort {
  work(input: WorkerInput, signal: AbortSignal): Promise<Unstamped<WorkOutcome>>;
}
/** Reviews (normal or stuck mode). */
export interface ReviewerPort {
  review(input: ReviewInput): Promise<Unstamped<ReviewOutput>>;
}
/** Stages accepted files and commits a checkpoint. */
export interface CheckpointerPort {
  checkpoint(input: CheckpointInput): Promise<Unstamped<CheckpointOutput>>;
}
/** Answers prove-mode questions. */
export interface HumanPort {
  ask(input: HumanInput): Promise<Unstamped<HumanOutput>>;
}

/**
 * Deep mode's path-scoped snapshots: `take` captures exactly the given files; `restore` puts
 * them back byte for byte (and hands their custody back to the snapshot's bytes).
 */
export interface SnapshotPort {
  take(input: SnapshotInput): Promise<Unstamped<SnapshotOutput>>;
  restore(input: RestoreInput): Promise<Unstamped<RestoreOutput>>;
}
/** Applies a repair worker's unified diff under custody (check baseline, strict apply, advance). */
export interface PatcherPort {
  apply(input: PatchInput): Promise<Unstamped<PatchOutput>>;
}

/** All ports of a cycle run. */
export interface CyclePorts {
  readonly diagnostics: DiagnosticsPort;
  readonly planner: PlannerPort;
  readonly worker: WorkerPort;
  readonly reviewer: ReviewerPort;
  readonly checkpointer: CheckpointerPort;
  readonly human: HumanPort;
  /** Deep mode's snapshots (absent: deep mode is unavailable and skipped). */
  readonly snapshots?: SnapshotPort;
  /** Repair mode's patch applier (absent: repair mode is unavailable and skipped). */
  readonly patcher?: PatcherPort;
}

/** A clock in milliseconds (injected for determinism). */
export type Clock = () => number;
