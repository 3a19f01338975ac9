/**
 * One journal mutation as pure rules: the mutation of each verb, the in-flight state, and what a
 * policy decision makes of state and result — commit (with its cite in history and knowledge) or
 * a stop that keeps the submission as unpersisted knowledge.
 */
import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { CACHE_NOT_CONFIRMED, decide } from '../../src/persist/failure-policy.js';
import type { Knowledge } from '../../src/persist/knowledge.js';
import {
  appendMutation,
  BOOKKEEPING_FAILED,
  commitOf,
  commitResult,
  committedState,
  finishMutation,
  inflightState,
  inflightUnsavedStop,
  notCalledStop,
  sourceNoteMutation,
  unstoredKnowledge,
  unstoredStop,
} from '../../src/persist/mutation-rules.js';
import {
  batchReview,
  dispatch,
  note,
  RULES_RUN_ID,
  runningState,
  stuckHandoff,
  workerHandoff,
} from './fixtures.js';

const AT = '2026-11-30T10:00:00Z';
const k0 = (): Knowledge => runningState().knowledge as Knowledge;
const cite2 = `${RULES_RUN_ID}#2`;

describe('the mutation of each verb', () => {
  it('a note joins as a failed avenue (its cite when committed, else its text)', () => {
    const m = appendMutation('note', note('exact bar'));
    expect([m.verb, m.op, m.kind]).toEqual(['note', 'append', 'note']);
    expect(m.absorb(k0(), cite2).accumulated.failed_avenues).toEqual([cite2]);
    expect(m.absorb(k0(), null).accumulated.failed_avenues).toEqual(['exact bar']);
  });

  it('a dispatch becomes the current task; a worker handoff joins; review and replan change nothing', () => {
    const redispatch = { ...dispatch(), target: 'Mathlib/Foo.lean:99' };
    expect(appendMutation('dispatch', redispatch).absorb(k0(), cite2).current.target).toBe(
      'Mathlib/Foo.lean:99',
    );
    expect(appendMutation('handoff', workerHandoff()).absorb(k0(), cite2).accumulated.files_changed).toEqual([
      '/repo/Mathlib/Foo.lean',
    ]);
    const k = k0();
    expect(appendMutation('review', batchReview()).absorb(k, cite2)).toBe(k);
    expect(appendMutation('replan', {}).absorb(k, cite2)).toBe(k);
  });

  it('finish sets the handoff; the source-note is a marked note of start', () => {
    const f = finishMutation(stuckHandoff());
    expect([f.verb, f.op, f.kind]).toEqual(['finish', 'set-handoff', 'handoff']);
    const k = k0();
    expect(f.absorb(k, cite2)).toBe(k);
    const s = sourceNoteMutation({ kind: 'source-note', text: '{}', lean: null });
    expect([s.verb, s.op, s.kind, s.sourceNote]).toEqual(['start', 'append', 'note', true]);
  });
});

describe('before the store call', () => {
  it('records the submission in flight (kind finish for the final handoff)', () => {
    const m = appendMutation('note', note());
    expect(inflightState(runningState(), m, false, AT).inflight).toEqual({
      op: 'append',
      kind: 'note',
      at: AT,
      pending: note(),
    });
    const f = finishMutation(stuckHandoff());
    expect(inflightState(runningState(), f, true, AT).inflight?.kind).toBe('finish');
  });

  it('unstored knowledge keeps a submission by text, never a final handoff', () => {
    const m = appendMutation('note', note('exact bar'));
    expect(unstoredKnowledge(k0(), m, false).accumulated.failed_avenues).toEqual(['exact bar']);
    const k = k0();
    expect(unstoredKnowledge(k, finishMutation(workerHandoff()), true)).toBe(k);
  });

  it('an unsaved in-flight record stops before the store: not-stored, not enforced', () => {
    const p = inflightUnsavedStop(runningState(), appendMutation('note', note('exact bar')), false);
    expect(p).toMatchObject({
      outcome: 'state_unwritable_before_store',
      detail: 'run-persist state unwritable before the store call; nothing was stored',
      inflightSaved: false,
      finish: false,
      unpersisted: { kind: 'note', seq: null, status: 'not-stored' },
    });
    expect(p.knowledge?.accumulated.failed_avenues).toEqual(['exact bar']);
  });

  it('a store that cannot be opened was not called; knowledge null stays null', () => {
    const m = appendMutation('note', note('exact bar'));
    const p = notCalledStop(runningState(), m, 'cannot open the store: EACCES', false);
    expect(p).toMatchObject({
      outcome: 'store_unavailable',
      detail: 'cannot open the store: EACCES',
      unpersisted: { kind: 'note', seq: null, status: 'not-stored', note: 'the store was not called' },
    });
    expect(p.knowledge?.accumulated.failed_avenues).toEqual(['exact bar']);
    expect(notCalledStop(runningState({ knowledge: null }), m, 'x', false).knowledge).toBeNull();
    const k = k0();
    expect(
      notCalledStop(runningState({ knowledge: k }), finishMutation(workerHandoff()), 'x', true).knowledge,
    ).toBe(k);
  });
});

describe('after the store call', () => {
  it('a commit only for a decision with a seq, cited in this run', () => {
    expect(commitOf(RULES_RUN_ID, decide('mutation', { kind: 'committed', seq: 2 }))).toEqual({
      seq: 2,
      cite: cite2,
      outcome: 'committed',
      warning: null,
    });
    expect(
      commitOf(RULES_RUN_ID, decide('finish', { kind: 'journal_only', seq: 2, detail: null })),
    ).toMatchObject({
      outcome: 'journal_only',
      warning: CACHE_NOT_CONFIRMED,
    });
    expect(commitOf(RULES_RUN_ID, decide('mutation', { kind: 'malformed', reason: 'x' }))).toBeNull();
  });

  it('a committed append joins history and knowledge with its cite and resolves the in-flight record', () => {
    const m = appendMutation('note', note('exact bar'));
    const s0 = inflightState(runningState(), m, false, AT);
    const c = { seq: 2, cite: cite2, outcome: 'committed', warning: null };
    const s = committedState(s0, m, false, c);
    expect(s.last_seq).toBe(2);
    expect(s.history.at(-1)).toEqual({ seq: 2, kind: 'note', cite: cite2 });
    expect(s.inflight).toBeNull();
    expect(s.knowledge?.accumulated.failed_avenues).toEqual([cite2]);
    expect(s.finished).toBeNull();
    expect(s.source_note_cite).toBeNull();
    expect(committedState(s0, sourceNoteMutation({}), false, c).source_note_cite).toBe(cite2);
  });

  it('a committed finish stores the final handoff and absorbs it', () => {
    const h = workerHandoff();
    const c = { seq: 2, cite: cite2, outcome: 'journal_only', warning: CACHE_NOT_CONFIRMED };
    const s = committedState(runningState(), finishMutation(h), true, c);
    expect(s.finished).toBe('stored');
    expect(s.final_handoff).toEqual({ cite: cite2, handoff: h, outcome: 'journal_only' });
    expect(s.knowledge?.accumulated.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
  });

  it('results: continue; a failed bookkeeping stops with the commit; a finish is done with warnings', () => {
    const m = appendMutation('note', note());
    const c = { seq: 2, cite: cite2, outcome: 'committed', warning: null };
    const resolved = committedState(runningState(), m, false, c);
    expect(commitResult(m, false, resolved, c, true)).toEqual({
      schema: 'run-persist-result/v1',
      verb: 'note',
      action: 'continue',
      outcome: 'committed',
      run_id: RULES_RUN_ID,
      seq: 2,
      cite: cite2,
    });
    const stop = commitResult(m, false, resolved, c, false);
    expect(stop).toMatchObject({
      action: 'stop',
      outcome: 'state_unwritable',
      committed: { seq: 2, cite: cite2 },
      terminal_enforced: true,
      warning: BOOKKEEPING_FAILED,
    });
    expect(stop.handoff?.stop_detail).toBe(
      `run-persist state unwritable after a committed note (${cite2}); bookkeeping stopped the run`,
    );
    expect(validateHandoff(stop.handoff).ok).toBe(true);
    const f = finishMutation(workerHandoff());
    const fc = { ...c, outcome: 'journal_only', warning: CACHE_NOT_CONFIRMED };
    const fr = committedState(runningState(), f, true, fc);
    expect(commitResult(f, true, fr, fc, true)).toMatchObject({
      action: 'done',
      stored: true,
      outcome: 'journal_only',
      seq: 2,
      cite: cite2,
      warning: CACHE_NOT_CONFIRMED,
    });
    expect(commitResult(f, true, fr, fc, false).warning).toBe(
      `${CACHE_NOT_CONFIRMED}; ${BOOKKEEPING_FAILED}`,
    );
    expect(commitResult(f, true, fr, c, true).warning).toBeUndefined();
  });

  it('no commit: a stop enforced by the in-flight record, not-stored or unconfirmed', () => {
    const m = appendMutation('note', note('exact bar'));
    const refused = unstoredStop(
      runningState(),
      m,
      false,
      decide('mutation', { kind: 'refused', code: 'busy', detail: 'locked' }),
    );
    expect(refused).toMatchObject({
      outcome: 'refused:busy',
      detail: 'run-store busy: locked',
      inflightSaved: true,
      unpersisted: { status: 'not-stored', note: 'the store refused before writing; nothing was stored' },
    });
    expect(refused.knowledge?.accumulated.failed_avenues).toEqual(['exact bar']);
    const uncertain = unstoredStop(
      runningState(),
      finishMutation(workerHandoff()),
      true,
      decide('finish', { kind: 'indeterminate', step: 'fsync', detail: null }),
    );
    expect(uncertain).toMatchObject({
      outcome: 'indeterminate',
      finish: true,
      unpersisted: { kind: 'handoff', status: 'unconfirmed' },
    });
    expect(uncertain.knowledge?.accumulated.files_changed).toEqual([]);
  });
});
