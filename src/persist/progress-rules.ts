/**
 * Recording inline progress (layer 1, pure): progress is parent knowledge, not a journal event.
 * It is saved in flight first, then resolved; a save that fails before stops the run with the
 * knowledge unsaved, a resolution that fails stops it with the in-flight record still on disk.
 */
import type { ValidationIssue } from '../validation/index.js';
import { absorbPart, type Knowledge, type KnowledgePart, operationalErrorHandoff } from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { PersistState, Unpersisted } from './state-schema.js';
import type { StopPlan } from './stop-rules.js';
import { issuesOf } from './submission-rules.js';

/** The two states of a progress record and the knowledge they carry. */
export interface ProgressPlan {
  readonly knowledge: Knowledge;
  /** Saved first: the part in flight. */
  readonly inflight: PersistState;
  /** Saved second: the part absorbed, nothing in flight. */
  readonly resolved: PersistState;
}

/**
 * The startup error of a progress record that fails its checks (`invalid_progress`).
 *
 * @example
 * ```ts
 * invalidProgressResult('progress', state, issues); // { action: 'startup-error', code: 'invalid_progress', … }
 * ```
 */
export function invalidProgressResult(
  verb: string,
  state: PersistState,
  errors: readonly ValidationIssue[],
): PersistResult {
  return persistResult(verb, 'startup-error', {
    code: 'invalid_progress',
    run_id: state.run_id,
    errors: issuesOf(errors),
  });
}

/**
 * The in-flight and resolved states of a checked progress part recorded at `at`.
 *
 * @example
 * ```ts
 * const p = progressPlan(state, { files_changed: ['/repo/A.lean'] }, at);
 * p.inflight.inflight?.op; // 'progress'
 * p.resolved.knowledge === p.knowledge; // true
 * ```
 */
export function progressPlan(state: PersistState, part: KnowledgePart, at: string): ProgressPlan {
  const knowledge = absorbPart(state.knowledge as Knowledge, part);
  return {
    knowledge,
    inflight: { ...state, inflight: { op: 'progress', kind: 'progress', at, pending: part } },
    resolved: { ...state, knowledge, inflight: null },
  };
}

/**
 * The stop when the in-flight progress record could not be saved.
 *
 * @example
 * ```ts
 * progressUnsavedStop('progress', state, plan.knowledge).outcome; // 'progress_unsaved'
 * ```
 */
export function progressUnsavedStop(verb: string, state: PersistState, k: Knowledge): StopPlan {
  return {
    verb,
    state,
    knowledge: k,
    unpersisted: {
      kind: 'progress',
      seq: null,
      status: 'control-state-unsaved',
      note: 'the progress record could not be saved; this knowledge will not survive another invocation',
    },
    outcome: 'progress_unsaved',
    detail: 'run-persist progress could not be saved',
    finish: false,
    inflightSaved: false,
  };
}

/**
 * The stop when the progress record was saved in flight but could not be resolved (the record on
 * disk enforces the stop).
 *
 * @example
 * ```ts
 * progressUnresolvedResult('progress', state, plan.knowledge).terminal_enforced; // true
 * ```
 */
export function progressUnresolvedResult(verb: string, state: PersistState, k: Knowledge): PersistResult {
  const u: Unpersisted = {
    kind: 'progress',
    seq: null,
    status: 'control-state-saved',
    note: 'the progress record was saved but not resolved; a later helper call will find it and stop',
  };
  return persistResult(verb, 'stop', {
    outcome: 'state_unwritable',
    run_id: state.run_id,
    handoff: operationalErrorHandoff(k, 'run-persist state unwritable after saving progress'),
    unpersisted: u,
    terminal_enforced: true,
    warning: 'the progress resolution could not be recorded',
  });
}

/**
 * The result of recorded progress: `continue` with the accumulated changed files.
 *
 * @example
 * ```ts
 * progressRecordedResult('progress', state, plan.knowledge); // { action: 'continue', outcome: 'recorded', progress_recorded: true, files_changed }
 * ```
 */
export function progressRecordedResult(verb: string, state: PersistState, k: Knowledge): PersistResult {
  return persistResult(verb, 'continue', {
    outcome: 'recorded',
    run_id: state.run_id,
    progress_recorded: true,
    files_changed: k.accumulated.files_changed,
  });
}
