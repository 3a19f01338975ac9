/**
 * The persistence port of a cycle run: the parent is the sole journal writer; the runtime reports
 * each boundary (first dispatch = start, redispatch, worker handoff, review, replan before tick,
 * finish) to a recorder. `--persist` plugs in the persistence controller; the default records
 * nothing.
 */
import type { MachineInspector } from '../../machines/inspector.js';
import type { Dispatch, Handoff } from '../contract/index.js';
import type { PlannerOutput, ReviewInput, ReviewOutput } from '../cycle/types.js';
import type { PreparedPriorRun } from '../persist/index.js';
import type { JournaledHandoff } from './final-cites.js';
import type { ResumedRun } from './resume-run.js';

/** Receives a run's boundaries in order. */
export interface RunRecorder {
  /** The run id (null when nothing is persisted). */
  readonly runId: string | null;
  /**
   * The directory the run store writes to, when it is one on this machine (the fs store): workers
   * must not touch it, and the workspace watch treats any change to it across a dispatch as a
   * custody violation. Absent or null for other stores.
   */
  readonly storeDir?: string | null;
  /**
   * The first dispatch, before any edit; with a prior-run reuse, the prepared start (prior run,
   * source-note recorded as event #1).
   */
  start(first: Dispatch, prior?: PreparedPriorRun | null): Promise<void>;
  /** Every later dispatch. */
  dispatch(d: Dispatch): Promise<void>;
  /** Every validated worker handoff. */
  handoff(h: Handoff): Promise<void>;
  /**
   * Every `run-persist-progress/v1` line a worker printed (parent knowledge, no journal event).
   * Rejects with a `HandoffError` coded `invalid_progress` when the controller refuses it.
   */
  progress(p: Readonly<Record<string, unknown>>): Promise<void>;
  /** Every completed review, with the request it answered. */
  review(r: Omit<ReviewOutput, 'now'>, input: ReviewInput): Promise<void>;
  /** Every replan (before the cycle-boundary tick). */
  replan(p: Omit<PlannerOutput, 'now'>, cycle: number): Promise<void>;
  /**
   * Every worker handoff the store confirmed, with its `<run_id>#<seq>` (in journal order): the
   * final handoff's citations rest on these (src/runtime/final-cites.ts). Absent: nothing cited.
   */
  readonly journaledHandoffs?: readonly JournaledHandoff[];
  /**
   * The killed run this recorder continues (`--resume`): its run id is set from the start, its
   * journaled handoffs are in {@link RunRecorder.journaledHandoffs}, the runtime checks its custody
   * and carries its last blocker. Absent or null: a new run.
   */
  readonly resumed?: ResumedRun | null;
  /** The record the failure policy stopped the run with, if it did. */
  readonly stopHandoff?: Handoff | null;
  /** The final handoff; resolves to its citation when stored. */
  finish(final: Handoff): Promise<{ cite: string | null }>;
  /**
   * Publishes the run's Markdown stop summary beside its final handoff (durably: temp, fsync,
   * rename, directory fsync) and resolves to its path; null when this store has no run directory
   * on this machine or nothing was stored. Absent: no summary.
   */
  writeSummary?(markdown: string): Promise<string | null>;
  /** Releases invocation resources (state files) once the run's result was reported. */
  dispose?(): Promise<void>;
  /**
   * An inspector the runtime attaches to the cycle machine's actor beside the host's (a persisted
   * run's transition-trace collector).
   */
  readonly inspect?: MachineInspector;
}

/**
 * The recorder used without `--persist`: records nothing.
 *
 * @example
 * ```ts
 * const rec = nullRecorder();
 * ```
 */
export function nullRecorder(): RunRecorder {
  return {
    runId: null,
    async start() {},
    async dispatch() {},
    async handoff() {},
    async progress() {},
    async review() {},
    async replan() {},
    async finish() {
      return { cite: null };
    },
  };
}
