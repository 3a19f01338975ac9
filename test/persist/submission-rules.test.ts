/**
 * Invalid submissions: payloads are checked against the run before the store is called, and an
 * invalid one stops the run (a finish: done, not stored), enforced only when the stop was saved.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import {
  INVALID_FINISH_DETAIL,
  invalidFinishResult,
  invalidSubmissionDetail,
  invalidSubmissionResult,
  invalidSubmissionState,
  issuesOf,
  submissionIssues,
} from '../../src/persist/submission-rules.js';
import { batchReview, note, RULES_RUN_ID, replan, runningState } from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';
const issue = (path: string, message: string) => ({ path, code: 'custom', message });

describe('checks', () => {
  it('issuesOf keeps path, code and message only', () => {
    const extra = { ...issue('a', 'm'), expected: 'string' };
    expect(issuesOf([extra])).toEqual([issue('a', 'm')]);
  });

  it('a valid note, review or replan citing earlier events has no issues', () => {
    const s = runningState();
    expect(submissionIssues('note', note(), s)).toEqual([]);
    expect(submissionIssues('review', batchReview(), s)).toEqual([]);
    expect(submissionIssues('replan', replan([`${RULES_RUN_ID}#1`]), s)).toEqual([]);
  });

  it('a replan citing a later event or another run, or a malformed note, has issues', () => {
    const s = runningState();
    expect(submissionIssues('replan', replan([`${RULES_RUN_ID}#2`]), s).length).toBeGreaterThan(0);
    expect(submissionIssues('replan', replan(['20261130T100000Z-ffffffff#1']), s).length).toBeGreaterThan(0);
    expect(submissionIssues('note', { kind: 'failed-avenue' }, s).length).toBeGreaterThan(0);
  });

  it('the detail names the kind and the first three issues, (root) for an empty path', () => {
    const errors = [issue('', 'not an object'), issue('a', 'x'), issue('b', 'y'), issue('c', 'z')];
    expect(invalidSubmissionDetail('note', errors)).toBe(
      'invalid note submission: (root) not an object; a x; b y',
    );
  });
});

describe('the stop of an invalid submission', () => {
  it('stops the run; a finish is also finished: not-stored', () => {
    const s = invalidSubmissionState(runningState(), 'd', AT, false);
    expect(s.stopped).toEqual({ outcome: 'invalid_submission', detail: 'd', at: AT });
    expect(s.finished).toBeNull();
    expect(invalidSubmissionState(runningState(), 'd', AT, true).finished).toBe('not-stored');
  });

  it('an event submission stops with its issues; enforced when saved', () => {
    const errors = [issue('kind', 'unknown')];
    const r = invalidSubmissionResult(
      'note',
      runningState(),
      errors,
      'invalid note submission: kind unknown',
      true,
    );
    expect(r).toMatchObject({
      action: 'stop',
      outcome: 'invalid_submission',
      run_id: RULES_RUN_ID,
      submitted_errors: errors,
      terminal_enforced: true,
    });
    expect(r.handoff?.stop_detail).toBe('invalid note submission: kind unknown');
    expect(r.warning).toBeUndefined();
    expect(invalidSubmissionResult('note', runningState(), errors, 'd', false)).toMatchObject({
      terminal_enforced: false,
      warning: 'the stop could not be recorded; do not call the helper again',
    });
  });

  it('a final handoff is done, not stored, with a fallback handoff', () => {
    const errors = [issue('status', 'bad')];
    const r = invalidFinishResult('finish', runningState(), errors, true);
    expect(r).toMatchObject({
      action: 'done',
      outcome: 'invalid_submission',
      stored: false,
      persistence: 'not-stored',
      submitted_errors: errors,
      terminal_enforced: true,
    });
    expect(r.fallback_handoff?.stop_detail).toBe(INVALID_FINISH_DETAIL);
    expect(validateHandoff(r.fallback_handoff).ok).toBe(true);
    expect(invalidFinishResult('finish', runningState(), errors, false).warning).toBe(
      'the stop could not be recorded; retire this invocation and do not call the helper again',
    );
  });
});
