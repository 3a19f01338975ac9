/**
 * Recording a stop: the stopped state keeps knowledge and the unpersisted item, and the result is
 * enforced when the stop or an earlier in-flight record is on disk — otherwise it says to retire.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import {
  STOP_ENFORCED_BY_INFLIGHT,
  STOP_NOT_ENFORCED,
  type StopPlan,
  stoppedState,
  stopResult,
} from '../../src/persist/stop-rules.js';
import { RULES_RUN_ID, runningState } from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';

function plan(extra: Partial<StopPlan> = {}): StopPlan {
  const state = runningState({
    inflight: { op: 'append', kind: 'note', at: AT, pending: null },
  });
  return {
    verb: 'note',
    state,
    knowledge: state.knowledge,
    unpersisted: { kind: 'note', seq: null, status: 'unconfirmed', note: 'n' },
    outcome: 'indeterminate',
    detail: 'run-store indeterminate at fsync: x',
    finish: false,
    inflightSaved: true,
    ...extra,
  };
}

describe('stoppedState', () => {
  it('clears the in-flight record, adds the unpersisted item and the stop marker', () => {
    const s = stoppedState(plan(), AT);
    expect(s.inflight).toBeNull();
    expect(s.unpersisted).toEqual([{ kind: 'note', seq: null, status: 'unconfirmed', note: 'n' }]);
    expect(s.stopped).toEqual({
      outcome: 'indeterminate',
      detail: 'run-store indeterminate at fsync: x',
      at: AT,
    });
    expect(s.finished).toBeNull();
    expect(s.last_seq).toBe(1);
  });

  it('a finish is also marked finished: not-stored', () => {
    expect(stoppedState(plan({ finish: true }), AT).finished).toBe('not-stored');
  });
});

describe('stopResult', () => {
  it('saved: stop, enforced, no warning, an operational-error handoff with the detail', () => {
    const r = stopResult(plan(), true);
    expect(r).toMatchObject({
      verb: 'note',
      action: 'stop',
      outcome: 'indeterminate',
      run_id: RULES_RUN_ID,
      terminal_enforced: true,
    });
    expect(r.warning).toBeUndefined();
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(r.handoff?.stop_reason).toBe('operational-error');
    expect(r.handoff?.stop_detail).toBe('run-store indeterminate at fsync: x');
  });

  it('unsaved: enforced by the in-flight record when it was saved, else a retire warning', () => {
    expect(stopResult(plan(), false)).toMatchObject({
      terminal_enforced: true,
      warning: STOP_ENFORCED_BY_INFLIGHT,
    });
    expect(stopResult(plan({ inflightSaved: false }), false)).toMatchObject({
      terminal_enforced: false,
      warning: STOP_NOT_ENFORCED,
    });
  });

  it('a finish is done, not stored, with a fallback handoff; persistence follows the item status', () => {
    const r = stopResult(plan({ finish: true, verb: 'finish' }), true);
    expect(r).toMatchObject({ action: 'done', stored: false, persistence: 'unconfirmed' });
    expect(r.handoff).toBeUndefined();
    expect(validateHandoff(r.fallback_handoff).ok).toBe(true);
    const refused = plan({
      finish: true,
      unpersisted: { kind: 'handoff', seq: null, status: 'not-stored', note: 'n' },
    });
    expect(stopResult(refused, true).persistence).toBe('not-stored');
    const unsaved = plan({
      finish: true,
      unpersisted: { kind: 'handoff', seq: null, status: 'control-state-unsaved', note: 'n' },
    });
    expect(stopResult(unsaved, true).persistence).toBe('not-stored');
  });

  it('without knowledge the handoff is a protocol-error one, still valid', () => {
    const r = stopResult(plan({ knowledge: null }), true);
    expect(validateHandoff(r.handoff).ok).toBe(true);
  });
});
