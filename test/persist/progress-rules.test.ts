/**
 * Inline progress as pure rules: the part in flight, then absorbed; the stops when either save
 * fails; the recorded result with the accumulated changed files.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import {
  invalidProgressResult,
  progressPlan,
  progressRecordedResult,
  progressUnresolvedResult,
  progressUnsavedStop,
} from '../../src/persist/progress-rules.js';
import { RULES_RUN_ID, runningState } from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';

describe('progress', () => {
  it('an invalid record is a startup error with its issues', () => {
    const r = invalidProgressResult('progress', runningState(), [
      { path: 'files_changed', code: 'x', message: 'outside ownership', extra: 1 } as never,
    ]);
    expect(r).toMatchObject({ action: 'startup-error', code: 'invalid_progress', run_id: RULES_RUN_ID });
    expect(r.errors).toEqual([{ path: 'files_changed', code: 'x', message: 'outside ownership' }]);
  });

  it('plans the in-flight state, then the resolved state with the part absorbed', () => {
    const part = { files_changed: ['/repo/Mathlib/Foo.lean'] };
    const p = progressPlan(runningState(), part, AT);
    expect(p.inflight.inflight).toEqual({ op: 'progress', kind: 'progress', at: AT, pending: part });
    expect(p.inflight.knowledge).toEqual(runningState().knowledge);
    expect(p.resolved.inflight).toBeNull();
    expect(p.resolved.knowledge).toBe(p.knowledge);
    expect(p.knowledge.accumulated.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    expect(p.resolved.last_seq).toBe(1);
  });

  it('an unsaved in-flight record stops, not enforced, with the knowledge unsaved', () => {
    const p = progressPlan(runningState(), { files_changed: ['/repo/Mathlib/Foo.lean'] }, AT);
    expect(progressUnsavedStop('progress', runningState(), p.knowledge)).toMatchObject({
      verb: 'progress',
      outcome: 'progress_unsaved',
      detail: 'run-persist progress could not be saved',
      finish: false,
      inflightSaved: false,
      knowledge: p.knowledge,
      unpersisted: { kind: 'progress', status: 'control-state-unsaved' },
    });
  });

  it('an unresolved record stops, enforced by the record on disk', () => {
    const r = progressUnresolvedResult('progress', runningState(), runningState().knowledge as never);
    expect(r).toMatchObject({
      action: 'stop',
      outcome: 'state_unwritable',
      terminal_enforced: true,
      warning: 'the progress resolution could not be recorded',
      unpersisted: { kind: 'progress', seq: null, status: 'control-state-saved' },
    });
    expect(validateHandoff(r.handoff).ok).toBe(true);
  });

  it('recorded progress continues with the accumulated files', () => {
    const p = progressPlan(runningState(), { files_changed: ['/repo/Mathlib/Foo.lean'] }, AT);
    expect(progressRecordedResult('progress', runningState(), p.knowledge)).toMatchObject({
      action: 'continue',
      outcome: 'recorded',
      run_id: RULES_RUN_ID,
      progress_recorded: true,
      files_changed: ['/repo/Mathlib/Foo.lean'],
    });
  });
});
