/**
 * The run-persistence controller against a scriptable store: the failure-policy table (each store
 * outcome → the helper's action), busy retry, terminal enforcement, state-file exclusivity and
 * in-flight recovery, parent knowledge vs committed history, progress absorption.
 */
import { readFile, writeFile } from 'node:fs/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import type { PersistController } from '../../src/persist/controller.js';
import {
  batchReview,
  controller,
  dispatch,
  type FaultyStore,
  faultyStateFs,
  faultyStore,
  note,
  readStateFile,
  replan,
  stuckHandoff,
  tempDir,
  workerHandoff,
} from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

async function started(store: FaultyStore = faultyStore()) {
  const ctl = controller(dir, store);
  const r = await ctl.c.start({ dispatch: dispatch(), trackerSessionId: 'sid-1' });
  expect(r.action).toBe('continue');
  return { ...ctl, store, runId: r.run_id as string };
}

const res = (runId: string, outcome: string, extra: Record<string, unknown> = {}) => ({
  raw: { schema: 'run-store-result/v1', outcome, run_id: runId, ...extra },
});

describe('the executable sequence through the library', () => {
  it('start → note → review → replan → dispatch → handoff → finish: dense seqs, cites, status', async () => {
    const { c, runId, store } = await started();
    const n = await c.note(note());
    expect(n).toMatchObject({ action: 'continue', seq: 1, cite: `${runId}#1` });
    expect((await c.review(batchReview())).seq).toBe(2);
    expect((await c.replan(replan([`${runId}#1`, `${runId}#2`]))).seq).toBe(3);
    expect((await c.dispatch(dispatch())).seq).toBe(4);
    expect((await c.handoff(workerHandoff())).seq).toBe(5);
    const final = { ...workerHandoff(), failed_avenues: [`${runId}#1`] };
    const f = await c.finish(final);
    expect(f).toMatchObject({ action: 'done', stored: true, seq: 6, cite: `${runId}#6` });
    const s = await c.status();
    expect(s.final_handoff).toEqual({ cite: `${runId}#6`, handoff: final, outcome: 'committed' });
    const load = await store.load(runId);
    expect(load.ok && load.value.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(load.ok && load.value.effective_handoff?.payload).toEqual(final);
    // terminal after finish: no store call
    const before = store.mutations.length;
    expect((await c.note(note())).action).toBe('stop');
    expect(store.mutations.length).toBe(before);
  });
});

describe('failure policy: store outcome → action', () => {
  it('busy once: sleeps 1 s then retries once and continues', async () => {
    const { c, store, sleeps, runId } = await started();
    store.script(res(runId, 'nothing_written', { code: 'busy' }));
    const r = await c.note(note());
    expect(r).toMatchObject({ action: 'continue', seq: 1 });
    expect(sleeps).toEqual([1000]);
    expect(store.mutations.filter((m) => m === 'append:note')).toHaveLength(2);
  });

  it('busy twice: one retry only, then stop refused:busy, not-stored', async () => {
    const { c, store, sleeps, runId } = await started();
    store.script(
      res(runId, 'nothing_written', { code: 'busy' }),
      res(runId, 'nothing_written', { code: 'busy' }),
    );
    const r = await c.note(note());
    expect(r).toMatchObject({ action: 'stop', outcome: 'refused:busy', terminal_enforced: true });
    expect(r.unpersisted).toMatchObject({ kind: 'note', seq: null, status: 'not-stored' });
    expect(sleeps).toEqual([1000]);
    expect(store.mutations.filter((m) => m === 'append:note')).toHaveLength(2);
  });

  it('other refusal: stop with an operational-error handoff naming the code; later calls never touch the store', async () => {
    const { c, store, sleeps, runId } = await started();
    store.script(res(runId, 'nothing_written', { code: 'journal_damaged', detail: 'corrupt line 3' }));
    const r = await c.note(note());
    expect(r).toMatchObject({ action: 'stop', outcome: 'refused:journal_damaged' });
    expect(sleeps).toEqual([]);
    expect(r.handoff?.stop_reason).toBe('operational-error');
    expect(r.handoff?.stop_detail).toBe('run-store journal_damaged: corrupt line 3');
    expect(r.handoff?.next_action).toBe('stop');
    expect(validateHandoff(r.handoff).ok).toBe(true);
    expect(r.cite).toBeUndefined();
    const n = store.mutations.length;
    const again = await c.dispatch(dispatch());
    expect(again).toMatchObject({ action: 'stop', outcome: 'terminal', terminal_enforced: true });
    const fin = await c.finish(stuckHandoff());
    expect(fin).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      outcome: 'terminal',
    });
    expect(store.mutations.length).toBe(n);
  });

  it('indeterminate: stop, unconfirmed, no retry, no cite', async () => {
    const { c, store, sleeps, runId } = await started();
    store.script(res(runId, 'indeterminate', { seq: 1, step: 'fsync' }));
    const r = await c.note(note());
    expect(r).toMatchObject({ action: 'stop', outcome: 'indeterminate' });
    expect(r.unpersisted?.status).toBe('unconfirmed');
    expect(r.seq).toBeUndefined();
    expect(r.cite).toBeUndefined();
    expect(sleeps).toEqual([]);
    expect(store.mutations).toEqual(['create', 'append:note']);
  });

  const malformed: [string, (runId: string) => unknown][] = [
    ['no result', () => ({ raw: undefined })],
    ['non-object', () => ({ raw: 'committed' })],
    ['wrong schema', (id) => ({ raw: { schema: 'x/v1', outcome: 'committed', run_id: id, seq: 1 } })],
    ['unknown outcome', (id) => res(id, 'ok', { seq: 1 })],
    ['foreign run id', () => res('20261130T100000Z-ffffffff', 'committed', { seq: 1 })],
    ['bad seq', (id) => res(id, 'committed', { seq: 7 })],
    ['committed without seq', (id) => res(id, 'committed')],
    ['journal_only for an append', (id) => res(id, 'journal_only', { seq: 1 })],
    ['refusal without code', (id) => res(id, 'nothing_written')],
    ['a throw', () => ({ throws: new Error('EIO') })],
  ];
  for (const [name, make] of malformed) {
    it(`malformed (${name}): stop, unconfirmed, no inferred success`, async () => {
      const { c, store, runId } = await started();
      store.script(make(runId) as never);
      const r = await c.note(note());
      expect(r).toMatchObject({ action: 'stop', outcome: 'malformed' });
      expect(r.unpersisted?.status).toBe('unconfirmed');
      expect(r.cite).toBeUndefined();
      expect(r.handoff?.stop_detail).toMatch(/^run-store result malformed \(uncertain\)/);
    });
  }

  it('finish committed → done, stored, cite', async () => {
    const { c, runId } = await started();
    expect(await c.finish(stuckHandoff())).toMatchObject({
      action: 'done',
      stored: true,
      cite: `${runId}#1`,
      outcome: 'committed',
    });
  });

  it('finish journal_only → done, stored, warning, never re-appended', async () => {
    const { c, store, runId } = await started();
    store.script(res(runId, 'journal_only', { seq: 1, step: 'cache' }));
    const r = await c.finish(stuckHandoff());
    expect(r).toMatchObject({ action: 'done', stored: true, cite: `${runId}#1`, outcome: 'journal_only' });
    expect(r.warning).toContain('handoff cache not confirmed');
    expect(store.mutations.filter((m) => m === 'set-handoff')).toHaveLength(1);
    expect((await c.status()).final_handoff).toMatchObject({ outcome: 'journal_only', cite: `${runId}#1` });
  });

  it('finish refused → done, stored:false, not-stored, fallback, no cite', async () => {
    const { c, store, runId } = await started();
    store.script(res(runId, 'nothing_written', { code: 'write_failed' }));
    const r = await c.finish(stuckHandoff());
    expect(r).toMatchObject({ action: 'done', stored: false, persistence: 'not-stored' });
    expect(r.cite).toBeUndefined();
    expect(r.fallback_handoff?.stop_detail).toMatch(/^run-store write_failed/);
  });

  it('finish indeterminate or malformed → done, stored:false, unconfirmed', async () => {
    for (const s of ['indeterminate', 'malformed'] as const) {
      const sub = await tempDir();
      try {
        const store = faultyStore();
        const ctl = controller(sub.dir, store);
        const st = await ctl.c.start({ dispatch: dispatch() });
        const runId = st.run_id as string;
        store.script(s === 'indeterminate' ? res(runId, 'indeterminate', { seq: 1 }) : { raw: null });
        const r = await ctl.c.finish(stuckHandoff());
        expect(r).toMatchObject({ action: 'done', stored: false, persistence: 'unconfirmed', outcome: s });
        expect(r.cite).toBeUndefined();
      } finally {
        await sub.cleanup();
      }
    }
  });

  it('an invalid finish submission → done, stored:false, not-stored, submitted_errors, store not called', async () => {
    const { c, store } = await started();
    const r = await c.finish({ ...stuckHandoff(), status: 'bogus' });
    expect(r).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      outcome: 'invalid_submission',
    });
    expect(r.submitted_errors?.length).toBeGreaterThan(0);
    expect(store.mutations).toEqual(['create']);
  });

  it('a store that cannot be opened: stop store_unavailable, not-stored, the note folded by text', async () => {
    const { store } = await started();
    const broken = controller(dir, store, {
      openStore: () => {
        throw new Error('EACCES');
      },
    });
    const r = await broken.c.note(note('omega fails'));
    expect(r).toMatchObject({
      action: 'stop',
      outcome: 'store_unavailable',
      terminal_enforced: true,
      unpersisted: { kind: 'note', seq: null, status: 'not-stored' },
    });
    expect(r.handoff?.failed_avenues).toEqual(['omega fails']);
    expect(store.mutations).toEqual(['create']);
  });

  it('an invalid mutation submission is rejected before the store (replan citing a later seq)', async () => {
    const { c, store, runId } = await started();
    const r = await c.replan(replan([`${runId}#1`]));
    expect(r).toMatchObject({ action: 'stop', outcome: 'invalid_submission' });
    expect(store.mutations).toEqual(['create']);
  });
});

describe('invocation state', () => {
  it('is created exclusively: a second start is state_exists and creates nothing', async () => {
    const { c, store } = await started();
    const r = await c.start({ dispatch: dispatch() });
    expect(r).toMatchObject({ action: 'startup-error', code: 'state_exists' });
    expect(store.mutations).toEqual(['create']);
  });

  it('an invalid first dispatch is startup-error invalid_dispatch with no state and no run', async () => {
    const store = faultyStore();
    const { c, statePath } = controller(dir, store);
    const r = await c.start({ dispatch: { ...dispatch(), scope: 'everything' } });
    expect(r).toMatchObject({ action: 'startup-error', code: 'invalid_dispatch' });
    await expect(readFile(statePath)).rejects.toThrow();
    expect(store.mutations).toEqual([]);
  });

  it('a different --root on a later call is a usage refusal', async () => {
    const { store } = await started();
    const other = controller(dir, store, { requestedRoot: '/elsewhere' });
    expect(await other.c.note(note())).toMatchObject({ action: 'usage', code: 'root_mismatch' });
  });

  it('committed but resolution unsaved → stop state_unwritable with committed cite; the next process stops on the unresolved record', async () => {
    const store = faultyStore();
    const fs = faultyStateFs([3]); // 1 = start resolution, 2 = in-flight, 3 = resolution
    const ctl = controller(dir, store, { stateFs: fs });
    const st = await ctl.c.start({ dispatch: dispatch() });
    const runId = st.run_id as string;
    const r = await ctl.c.handoff(workerHandoff());
    expect(r).toMatchObject({
      action: 'stop',
      outcome: 'state_unwritable',
      committed: { seq: 1, cite: `${runId}#1` },
    });
    expect(r.handoff?.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    const state = await readStateFile(ctl.statePath);
    expect(state.inflight).toMatchObject({ op: 'append', kind: 'handoff' });
    // a later helper process
    const later = controller(dir, store);
    const n = store.mutations.length;
    const r2 = await later.c.note(note());
    expect(r2).toMatchObject({ action: 'stop', outcome: 'terminal', terminal_enforced: true });
    expect(r2.unpersisted).toMatchObject({ kind: 'handoff', status: 'unconfirmed', seq: null });
    expect(r2.handoff?.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    expect(store.mutations.length).toBe(n);
    expect((await later.c.status()).stopped).toMatchObject({ outcome: 'terminal' });
  });

  it('in-flight record unsaved → the store is never called; no write succeeded → terminal_enforced false', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store, { stateFs: faultyStateFs([2, 3]) });
    await ctl.c.start({ dispatch: dispatch() });
    const r = await ctl.c.note(note('exact bar'));
    expect(r).toMatchObject({
      action: 'stop',
      outcome: 'state_unwritable_before_store',
      terminal_enforced: false,
    });
    expect(r.warning).toMatch(/retire this invocation/);
    expect(r.unpersisted).toMatchObject({ status: 'not-stored' });
    expect(r.unpersisted?.note).toMatch(/will not survive/);
    expect(r.handoff?.failed_avenues).toEqual(['exact bar']);
    expect(store.mutations).toEqual(['create']);
  });

  it('a crashed process (in-flight left behind) stops the next call with the pending knowledge folded once', async () => {
    const { c, statePath, store } = await started();
    const s = await readStateFile(statePath);
    s.inflight = { op: 'append', kind: 'handoff', at: '2026-11-30T10:00:00Z', pending: workerHandoff() };
    await writeFile(statePath, JSON.stringify(s));
    const r = await c.review(batchReview());
    expect(r).toMatchObject({ action: 'stop', outcome: 'terminal' });
    expect(r.handoff?.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    expect(r.handoff?.artifacts).toHaveLength(1);
    expect(store.mutations).toEqual(['create']);
  });
});

describe('finish bookkeeping', () => {
  it('committed but the resolution cannot be saved → still done, stored, cite, plus a bookkeeping warning', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store, { stateFs: faultyStateFs([3]) });
    const runId = (await ctl.c.start({ dispatch: dispatch() })).run_id as string;
    const r = await ctl.c.finish(stuckHandoff());
    expect(r).toMatchObject({
      action: 'done',
      stored: true,
      outcome: 'committed',
      seq: 1,
      cite: `${runId}#1`,
    });
    expect(r.warning).toMatch(/bookkeeping failed/);
    expect(r.persistence).toBeUndefined();
    const load = await store.load(runId);
    expect(load.ok && load.value.effective_handoff?.payload).toEqual(stuckHandoff());
    // the on-disk state is left unresolved: a later call stops without touching the store
    const n = store.mutations.length;
    expect(await controller(dir, store).c.note(note())).toMatchObject({
      action: 'stop',
      outcome: 'terminal',
    });
    expect(store.mutations.length).toBe(n);
  });

  it('journal_only with failed bookkeeping keeps both warnings and stays stored', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store, { stateFs: faultyStateFs([3]) });
    const runId = (await ctl.c.start({ dispatch: dispatch() })).run_id as string;
    store.script(res(runId, 'journal_only', { seq: 1, step: 'cache' }));
    const r = await ctl.c.finish(stuckHandoff());
    expect(r).toMatchObject({ action: 'done', stored: true, outcome: 'journal_only', cite: `${runId}#1` });
    expect(r.warning).toMatch(/handoff cache not confirmed.*bookkeeping failed/);
  });

  it('busy on finish: one retry after 1 s, then stored', async () => {
    const { c, store, sleeps, runId } = await started();
    store.script(res(runId, 'nothing_written', { code: 'busy' }));
    expect(await c.finish(stuckHandoff())).toMatchObject({
      action: 'done',
      stored: true,
      cite: `${runId}#1`,
    });
    expect(sleeps).toEqual([1000]);
    expect(store.mutations.filter((m) => m === 'set-handoff')).toHaveLength(2);
  });

  it('early finish state-save failure: done, stored:false, not-stored, full fallback, store never called', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store);
    await ctl.c.start({ dispatch: dispatch() });
    await ctl.c.handoff(workerHandoff());
    const failing = controller(dir, store, { stateFs: faultyStateFs([1]) });
    const r = await failing.c.finish(stuckHandoff());
    expect(r).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      outcome: 'state_unwritable_before_store',
      terminal_enforced: true,
    });
    expect(r.cite).toBeUndefined();
    expect(r.fallback_handoff?.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    expect(validateHandoff(r.fallback_handoff).ok).toBe(true);
    expect(store.mutations).toEqual(['create', 'append:handoff']);
    // the stop was recorded: a later call stops
    expect((await ctl.c.note(note())).outcome).toBe('terminal');
  });

  it('a store that cannot be opened at finish: done, not-stored, and the run is terminal afterwards', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store);
    await ctl.c.start({ dispatch: dispatch() });
    await ctl.c.handoff(workerHandoff());
    const broken = controller(dir, store, {
      openStore: () => {
        throw new Error('EACCES');
      },
    });
    const r = await broken.c.finish(stuckHandoff());
    expect(r).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      outcome: 'store_unavailable',
      terminal_enforced: true,
      unpersisted: { kind: 'handoff', seq: null, status: 'not-stored' },
    });
    expect(r.fallback_handoff?.stop_detail).toMatch(/cannot open the store: EACCES/);
    expect(r.fallback_handoff?.files_changed).toEqual(['/repo/Mathlib/Foo.lean']);
    // finish is terminal even though the store was never reached
    const n = store.mutations.length;
    expect(await ctl.c.note(note())).toMatchObject({ action: 'stop', outcome: 'terminal' });
    expect((await ctl.c.status()).finished).toBe('not-stored');
    expect(store.mutations.length).toBe(n);
  });

  it('no control-state write succeeds on finish: terminal_enforced false with a retire warning', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store);
    await ctl.c.start({ dispatch: dispatch() });
    const failing = controller(dir, store, { stateFs: faultyStateFs([1, 2]) });
    const r = await failing.c.finish(stuckHandoff());
    expect(r).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      terminal_enforced: false,
    });
    expect(r.warning).toMatch(/retire this invocation/);
    expect(store.mutations).toEqual(['create']);
  });

  it('an invalid finish whose stop cannot be saved: still done, not-stored, fallback, terminal_enforced false', async () => {
    const store = faultyStore();
    const ctl = controller(dir, store);
    await ctl.c.start({ dispatch: dispatch() });
    const failing = controller(dir, store, { stateFs: faultyStateFs([1]) });
    const r = await failing.c.finish({ ...stuckHandoff(), next_action: 'nope' });
    expect(r).toMatchObject({
      action: 'done',
      stored: false,
      persistence: 'not-stored',
      outcome: 'invalid_submission',
      terminal_enforced: false,
    });
    expect(r.warning).toMatch(/retire this invocation/);
    expect(r.submitted_errors?.length).toBeGreaterThan(0);
    expect(validateHandoff(r.fallback_handoff).ok).toBe(true);
    expect(store.mutations).toEqual(['create']);
  });
});

describe('parent knowledge vs committed history', () => {
  it('a stop describes the work as it stands, with the failed submission folded in, never "no changes"', async () => {
    const { c, store, runId } = await started();
    await c.handoff(workerHandoff());
    store.script(res(runId, 'indeterminate', { seq: 2 }));
    const r = await c.note(note('simp loops'));
    expect(r.handoff).toMatchObject({
      files_changed: ['/repo/Mathlib/Foo.lean'],
      failed_avenues: ['continuity tactic times out', 'simp loops'],
    });
    expect(r.handoff?.file_baseline?.files[0]?.sha256).toBe('1'.repeat(64));
    const s = await c.status();
    expect(s.history).toEqual([{ seq: 1, kind: 'handoff', cite: `${runId}#1` }]);
    expect(s.unpersisted_items).toEqual([r.unpersisted]);
  });
});

describe('progress (inline passes)', () => {
  const advanced = (sha: string) => ({
    schema: 'file-baseline/v1' as const,
    files: [
      {
        path: '/repo/Mathlib/Foo.lean',
        realpath: '/repo/Mathlib/Foo.lean',
        exists: true,
        sha256: sha,
        size: 9,
      },
    ],
  });

  async function progressRun(): Promise<{ c: PersistController; store: FaultyStore }> {
    const x = await started();
    return { c: x.c, store: x.store };
  }

  it('records knowledge without a journal event; finish reconciles with set semantics', async () => {
    const { c, store } = await progressRun();
    const p = {
      schema: 'run-persist-progress/v1',
      files_changed: ['/repo/Mathlib/Foo.lean'],
      file_baseline: advanced('2'.repeat(64)),
      attempted_tools: ['lean_leansearch', 'simp'],
      best_candidates: [{ candidate: 'exact Continuous.comp hg hf', outcome: 'unknown identifier hg' }],
    };
    const r = await c.progress(p);
    expect(r).toMatchObject({
      action: 'continue',
      progress_recorded: true,
      files_changed: ['/repo/Mathlib/Foo.lean'],
    });
    expect(r.cite).toBeUndefined();
    expect(store.mutations).toEqual(['create']);
    const final = {
      ...stuckHandoff(),
      files_changed: ['/repo/Mathlib/Foo.lean'],
      file_baseline: advanced('2'.repeat(64)),
    };
    expect((await c.finish(final)).stored).toBe(true);
    const acc = (await c.status()).accumulated as { attempted_tools: string[]; best_candidates: unknown[] };
    expect(acc.attempted_tools).toEqual(['lean_leansearch', 'simp']);
    expect(acc.best_candidates).toHaveLength(1);
  });

  it('rejects a file outside ownership, changes without a baseline, and a baseline advancing an unreported file', async () => {
    const { c } = await progressRun();
    const outside = await c.progress({
      schema: 'run-persist-progress/v1',
      files_changed: ['/repo/Other.lean'],
    });
    expect(outside).toMatchObject({ action: 'startup-error', code: 'invalid_progress' });
    expect(outside.errors?.map((e) => e.code)).toContain('progress_outside_ownership');
    const noBase = await c.progress({
      schema: 'run-persist-progress/v1',
      files_changed: ['/repo/Mathlib/Foo.lean'],
    });
    expect(noBase.errors?.map((e) => e.code)).toContain('baseline_required');
    const silent = await c.progress({
      schema: 'run-persist-progress/v1',
      file_baseline: advanced('3'.repeat(64)),
    });
    expect(silent.errors?.map((e) => e.code)).toContain('baseline_outside_reported_changes');
    const extra = await c.progress({ schema: 'run-persist-progress/v1', surprise: 1 });
    expect(extra.code).toBe('invalid_progress');
    // nothing was absorbed and the run goes on
    expect((await c.note(note())).action).toBe('continue');
  });

  it('progress record unsaved → progress_unsaved; saved but unresolved → state_unwritable (control-state-saved)', async () => {
    const store = faultyStore();
    const a = controller(dir, store, { stateFs: faultyStateFs([2, 3]) });
    await a.c.start({ dispatch: dispatch() });
    const p = { schema: 'run-persist-progress/v1', attempted_tools: ['simp'] };
    const r = await a.c.progress(p);
    expect(r).toMatchObject({ action: 'stop', outcome: 'progress_unsaved', terminal_enforced: false });
    expect(r.unpersisted?.status).toBe('control-state-unsaved');
    expect(r.handoff?.attempted_tools).toEqual(['simp']);

    const sub = await tempDir();
    try {
      const b = controller(sub.dir, faultyStore(), { stateFs: faultyStateFs([3]) });
      await b.c.start({ dispatch: dispatch() });
      const r2 = await b.c.progress(p);
      expect(r2).toMatchObject({ action: 'stop', outcome: 'state_unwritable', terminal_enforced: true });
      expect(r2.unpersisted?.status).toBe('control-state-saved');
      const later = controller(sub.dir, faultyStore());
      const r3 = await later.c.note(note());
      expect(r3).toMatchObject({ action: 'stop', outcome: 'terminal' });
      expect(r3.unpersisted?.status).toBe('control-state-saved');
      expect(r3.handoff?.attempted_tools).toEqual(['simp']);
    } finally {
      await sub.cleanup();
    }
  });
});
