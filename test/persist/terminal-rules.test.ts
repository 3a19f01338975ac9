/**
 * Terminal enforcement: which states refuse mutations, how an unresolved in-flight record is
 * retired into a stop (its pending submission folded into knowledge once, never a final
 * handoff), and the terminal result.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import type { Inflight } from '../../src/persist/state-schema.js';
import { STOP_ENFORCED_BY_INFLIGHT } from '../../src/persist/stop-rules.js';
import {
  foldPending,
  isTerminal,
  retireInflight,
  terminalResult,
  unresolvedInflight,
} from '../../src/persist/terminal-rules.js';
import { dispatch, note, RULES_RUN_ID, runningState, workerHandoff } from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';
const inflight = (op: Inflight['op'], kind: string, pending: unknown): Inflight => ({
  op,
  kind,
  at: AT,
  pending,
});
const stopped = { outcome: 'refused:busy', detail: 'run-store busy: locked', at: AT };

describe('isTerminal and unresolvedInflight', () => {
  it('stopped, finished, in flight or without a run is terminal', () => {
    expect(isTerminal(runningState())).toBe(false);
    expect(isTerminal(runningState({ stopped }))).toBe(true);
    expect(isTerminal(runningState({ finished: 'stored' }))).toBe(true);
    expect(isTerminal(runningState({ inflight: inflight('append', 'note', null) }))).toBe(true);
    expect(isTerminal(runningState({ run_id: null }))).toBe(true);
  });

  it('only an in-flight record of a run neither stopped nor finished is unresolved', () => {
    const inf = inflight('append', 'note', null);
    expect(unresolvedInflight(runningState({ inflight: inf }))).toEqual(inf);
    expect(unresolvedInflight(runningState({ inflight: inf, stopped }))).toBeNull();
    expect(unresolvedInflight(runningState({ inflight: inf, finished: 'not-stored' }))).toBeNull();
    expect(unresolvedInflight(runningState())).toBeNull();
  });
});

describe('foldPending', () => {
  const k = runningState().knowledge as NonNullable<ReturnType<typeof runningState>['knowledge']>;

  it('folds a note by text, a worker handoff, a dispatch and a progress part', () => {
    expect(foldPending(k, inflight('append', 'note', note('exact bar'))).accumulated.failed_avenues).toEqual([
      'exact bar',
    ]);
    expect(foldPending(k, inflight('append', 'handoff', workerHandoff())).accumulated.files_changed).toEqual([
      '/repo/Mathlib/Foo.lean',
    ]);
    const redispatch = { ...dispatch(), target: 'Mathlib/Foo.lean:99' };
    expect(foldPending(k, inflight('append', 'dispatch', redispatch)).current.target).toBe(
      'Mathlib/Foo.lean:99',
    );
    expect(
      foldPending(k, inflight('progress', 'progress', { files_changed: ['/repo/B.lean'] })).accumulated
        .files_changed,
    ).toEqual(['/repo/B.lean']);
  });

  it('never folds a final handoff; ignores invalid, empty and unknown pending records', () => {
    expect(foldPending(k, inflight('set-handoff', 'finish', workerHandoff()))).toBe(k);
    expect(foldPending(k, inflight('append', 'handoff', { bogus: true }))).toBe(k);
    expect(foldPending(k, inflight('append', 'dispatch', { bogus: true }))).toBe(k);
    expect(foldPending(k, inflight('append', 'note', { kind: 1 }))).toBe(k);
    expect(foldPending(k, inflight('append', 'note', null))).toBe(k);
    expect(foldPending(k, inflight('append', 'note', 'text'))).toBe(k);
    expect(foldPending(k, inflight('append', 'review', { schema: 'review-record/v1' }))).toBe(k);
  });
});

describe('retireInflight', () => {
  it('a store call becomes an unconfirmed item and a terminal stop, its submission folded', () => {
    const s = runningState({ inflight: inflight('append', 'note', note('exact bar')) });
    const r = retireInflight(s, s.inflight as Inflight, AT);
    expect(r.unpersisted).toEqual({
      kind: 'note',
      seq: null,
      status: 'unconfirmed',
      note: 'persistence unconfirmed; no citation available from this state (unresolved append note)',
    });
    expect(r.state.inflight).toBeNull();
    expect(r.state.unpersisted).toEqual([r.unpersisted]);
    expect(r.state.stopped).toEqual({
      outcome: 'terminal',
      detail: 'unresolved in-flight append note',
      at: AT,
    });
    expect(r.state.knowledge?.accumulated.failed_avenues).toEqual(['exact bar']);
  });

  it('a progress record was saved: control-state-saved; no knowledge stays no knowledge', () => {
    const s = runningState({ inflight: inflight('progress', 'progress', {}), knowledge: null });
    const r = retireInflight(s, s.inflight as Inflight, AT);
    expect(r.unpersisted.status).toBe('control-state-saved');
    expect(r.state.knowledge).toBeNull();
  });
});

describe('terminalResult', () => {
  it('names the earlier stop; always enforced', () => {
    const r = terminalResult('note', runningState({ stopped }), false);
    expect(r).toMatchObject({ verb: 'note', action: 'stop', outcome: 'terminal', run_id: RULES_RUN_ID });
    expect(r.terminal_enforced).toBe(true);
    expect(r.handoff?.stop_detail).toBe(
      'run persistence stopped earlier (refused:busy): run-store busy: locked',
    );
    expect(r.unpersisted).toBeUndefined();
    expect(r.warning).toBeUndefined();
  });

  it('names the earlier finish; a finish call is done, not stored', () => {
    const r = terminalResult('finish', runningState({ finished: 'stored' }), true);
    expect(r).toMatchObject({ action: 'done', stored: false, persistence: 'not-stored' });
    expect(r.fallback_handoff?.stop_detail).toBe('run persistence finished earlier (stored)');
    expect(validateHandoff(r.fallback_handoff).ok).toBe(true);
    expect(terminalResult('note', runningState({ run_id: null }), false).handoff?.stop_detail).toBe(
      'run persistence finished earlier (unknown)',
    );
  });

  it('reports a just-retired item, and a warning when its retirement was not saved', () => {
    const item = { kind: 'handoff', seq: null, status: 'unconfirmed' as const, note: 'n' };
    const r = terminalResult('note', runningState({ stopped }), false, {
      unpersisted: item,
      retireUnsaved: true,
    });
    expect(r.unpersisted).toEqual(item);
    expect(r.warning).toBe(STOP_ENFORCED_BY_INFLIGHT);
    expect(r.terminal_enforced).toBe(true);
    expect(validateHandoff(r.handoff).ok).toBe(true);
  });
});
