/**
 * Which state a verb may act on, and the status report: no state is a usage error, an unreadable
 * one an unenforced stop, another root than the bound one a usage error; status reports the state.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import {
  rootMismatch,
  STATE_UNREADABLE_WARNING,
  unusableStateResult,
} from '../../src/persist/state-binding.js';
import { statusResult } from '../../src/persist/status-report.js';
import { RULES_RUN_ID, runningState } from './fixtures.js';

describe('unusable state', () => {
  it('missing: usage, run start first', () => {
    expect(unusableStateResult('note', { reason: 'missing', detail: 'x' }, '/tmp/s.json')).toMatchObject({
      action: 'usage',
      code: 'no_state',
      message: 'no invocation state at /tmp/s.json: run start first',
    });
  });

  it('unreadable or invalid: a stop nothing enforces, with a protocol-error handoff', () => {
    for (const reason of ['unreadable', 'invalid'] as const) {
      const r = unusableStateResult('finish', { reason, detail: '/tmp/s.json: not JSON' }, '/tmp/s.json');
      expect(r).toMatchObject({
        verb: 'finish',
        action: 'stop',
        outcome: 'state_unreadable',
        message: '/tmp/s.json: not JSON',
        terminal_enforced: false,
        warning: STATE_UNREADABLE_WARNING,
      });
      expect(validateHandoff(r.handoff).ok).toBe(true);
      expect(r.handoff?.stop_detail).toBe('run-persist state unreadable: /tmp/s.json: not JSON');
    }
  });
});

describe('rootMismatch', () => {
  it('proceeds without a requested root or with the bound one; refuses another', () => {
    expect(rootMismatch('note', runningState(), null)).toBeNull();
    expect(rootMismatch('note', runningState(), '/repo/.handoff')).toBeNull();
    expect(rootMismatch('note', runningState(), '/elsewhere')).toMatchObject({
      action: 'usage',
      code: 'root_mismatch',
      message: 'this invocation is bound to storage root /repo/.handoff; /elsewhere refused',
    });
  });
});

describe('statusResult', () => {
  it('reports the state, knowledge split into current and accumulated, and terminality', () => {
    const s = runningState();
    const r = statusResult(s);
    expect(r).toMatchObject({
      verb: 'status',
      action: 'status',
      run_id: RULES_RUN_ID,
      last_seq: 1,
      history: s.history,
      current: s.knowledge?.current,
      accumulated: s.knowledge?.accumulated,
      unpersisted_items: [],
      terminal: false,
    });
    const none = statusResult(runningState({ knowledge: null, run_id: null }));
    expect(none).toMatchObject({ current: null, accumulated: null, terminal: true });
  });
});
