/**
 * The persistence port of a cycle run: the parent is the sole journal writer; the runtime reports
 * each boundary (first dispatch = start, redispatch, worker handoff, review, replan before tick,
 * finish) to a recorder. `--persist` plugs in the persistence controller; the default records
 * nothing.
 */
import type { Dispatch, Handoff } from '../contract/index.js';
import type { PlannerOutput, ReviewInput, ReviewOutput } from './cycle-types.js';

/** Receives a run's boundaries in order. */
export interface RunRecorder {
  /** The run id (null when nothing is persisted). */
  readonly runId: string | null;
  /** The first dispatch, before any edit. */
  start(first: Dispatch): Promise<void>;
  /** Every later dispatch. */
  dispatch(d: Dispatch): Promise<void>;
  /** Every validated worker handoff. */
  handoff(h: Handoff): Promise<void>;
  /** Every completed review, with the request it answered. */
  review(r: Omit<ReviewOutput, 'now'>, input: ReviewInput): Promise<void>;
  /** Every replan (before the cycle-boundary tick). */
  replan(p: Omit<PlannerOutput, 'now'>, cycle: number): Promise<void>;
  /** The record the failure policy stopped the run with, if it did. */
  readonly stopHandoff?: Handoff | null;
  /** The final handoff; resolves to its citation when stored. */
  finish(final: Handoff): Promise<{ cite: string | null }>;
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
    async review() {},
    async replan() {},
    async finish() {
      return { cite: null };
    },
  };
}
