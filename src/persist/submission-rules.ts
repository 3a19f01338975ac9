/**
 * Submissions that fail validation (layer 1, pure): an event payload is checked against the run
 * (schema v2, next seq, cites of earlier events) before the store is called; an invalid one stops
 * the run without storing anything (`invalid_submission`), an invalid final handoff is a `done`
 * that was not stored.
 */
import { EVENT_V2_SCHEMA, type EventKind } from '../store/schema.js';
import { validateEventPayload } from '../store/validate-payload.js';
import type { ValidationIssue } from '../validation/index.js';
import { operationalErrorHandoff } from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { PersistState } from './state-schema.js';

/** The stop detail of an invalid final handoff. */
export const INVALID_FINISH_DETAIL = 'invalid final handoff submission; nothing was stored';

/**
 * Validation issues as results carry them (path, code, message; nothing else).
 *
 * @example
 * ```ts
 * issuesOf([{ path: 'mode', code: 'invalid_enum', message: 'bad mode' }]);
 * ```
 */
export function issuesOf(e: readonly ValidationIssue[]): ValidationIssue[] {
  return e.map((i) => ({ path: i.path, code: i.code, message: i.message }));
}

/**
 * The issues of an event payload submitted to a run at `state` (empty when it may be stored).
 *
 * @example
 * ```ts
 * submissionIssues('replan', replan(['R#9']), state); // an issue: the cite is not an earlier event
 * ```
 */
export function submissionIssues(kind: EventKind, payload: unknown, state: PersistState): ValidationIssue[] {
  const check = validateEventPayload(kind, payload, {
    runId: state.run_id as string,
    eventSchema: EVENT_V2_SCHEMA,
    nextSeq: state.last_seq + 1,
  });
  return check.ok ? [] : issuesOf(check.issues);
}

/**
 * The stop detail of an invalid event submission: the kind and its first three issues.
 *
 * @example
 * ```ts
 * invalidSubmissionDetail('note', [{ path: 'kind', code: 'x', message: 'unknown kind' }]);
 * // 'invalid note submission: kind unknown kind'
 * ```
 */
export function invalidSubmissionDetail(kind: string, errors: readonly ValidationIssue[]): string {
  return `invalid ${kind} submission: ${errors
    .slice(0, 3)
    .map((i) => `${i.path || '(root)'} ${i.message}`)
    .join('; ')}`;
}

/**
 * The state an invalid submission stops the run as (a finish also marks it `finished: not-stored`).
 *
 * @example
 * ```ts
 * invalidSubmissionState(state, detail, at, false).stopped; // { outcome: 'invalid_submission', detail, at }
 * ```
 */
export function invalidSubmissionState(
  state: PersistState,
  detail: string,
  at: string,
  finish: boolean,
): PersistState {
  const stopped = { outcome: 'invalid_submission', detail, at };
  return finish ? { ...state, stopped, finished: 'not-stored' } : { ...state, stopped };
}

/**
 * The result of an invalid event submission: `stop` with the issues and an operational-error
 * handoff; enforced when the stop was saved.
 *
 * @example
 * ```ts
 * invalidSubmissionResult('note', state, errors, detail, true); // { action: 'stop', outcome: 'invalid_submission', … }
 * ```
 */
export function invalidSubmissionResult(
  verb: string,
  state: PersistState,
  errors: readonly ValidationIssue[],
  detail: string,
  saved: boolean,
): PersistResult {
  return persistResult(verb, 'stop', {
    outcome: 'invalid_submission',
    run_id: state.run_id,
    submitted_errors: errors,
    handoff: operationalErrorHandoff(state.knowledge, detail),
    terminal_enforced: saved,
    ...(saved ? {} : { warning: 'the stop could not be recorded; do not call the helper again' }),
  });
}

/**
 * The result of an invalid final handoff: `done`, not stored, with the issues and a fallback
 * handoff; enforced when the stop was saved.
 *
 * @example
 * ```ts
 * invalidFinishResult('finish', state, errors, true); // { action: 'done', stored: false, persistence: 'not-stored', … }
 * ```
 */
export function invalidFinishResult(
  verb: string,
  state: PersistState,
  errors: readonly ValidationIssue[],
  saved: boolean,
): PersistResult {
  return persistResult(verb, 'done', {
    outcome: 'invalid_submission',
    run_id: state.run_id,
    stored: false,
    persistence: 'not-stored',
    submitted_errors: errors,
    fallback_handoff: operationalErrorHandoff(state.knowledge, INVALID_FINISH_DETAIL),
    terminal_enforced: saved,
    ...(saved
      ? {}
      : {
          warning: 'the stop could not be recorded; retire this invocation and do not call the helper again',
        }),
  });
}
