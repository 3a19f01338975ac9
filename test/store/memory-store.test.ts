import { describe, expect, it } from 'vitest';
import { createMemoryStore, resolveCite } from '../../src/store/index.js';
import { dispatch, fixedClock, note, replan, solvedHandoff } from './fixtures.js';

describe('memory store', () => {
  it('creates, appends dense seqs, resolves cites and reports the handoff cache', async () => {
    const store = createMemoryStore({ now: fixedClock() });
    const c = await store.createRun({ dispatch: dispatch() });
    expect(c.outcome).toBe('committed');
    const id = c.run_id as string;
    expect((await store.append(id, 'note', note())).seq).toBe(1);
    expect((await store.append(id, 'replan', replan([`${id}#1`]))).seq).toBe(2);
    expect(await store.append(id, 'replan', replan([`${id}#3`]))).toMatchObject({
      outcome: 'nothing_written',
      code: 'invalid_payload',
    });
    expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'committed', seq: 3 });
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(l.value.handoff_cache).toBe('current');
    expect(l.value.effective_handoff?.seq).toBe(3);
    expect(resolveCite(l.value, `${id}#2`)).toMatchObject({ ok: true, kind: 'event' });
    expect(resolveCite(l.value, `${id}#4`)).toMatchObject({ ok: false, reason: 'no_such_seq' });
  });
  it('reports busy, run_exists and scripted outcomes', async () => {
    const store = createMemoryStore({ now: fixedClock(), runIdSuffix: () => '0a1b2c3d' });
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect(id).toBe('20261130T100000Z-0a1b2c3d');
    expect(await store.createRun({ dispatch: dispatch() })).toMatchObject({ code: 'run_exists' });
    store.holdLock(id, true);
    expect(await store.append(id, 'note', note())).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    expect(await store.isLocked(id)).toBe(true);
    store.holdLock(id, false);
    store.scriptNext({ outcome: 'indeterminate', step: 'fsync' });
    expect(await store.append(id, 'note', note())).toMatchObject({
      outcome: 'indeterminate',
      seq: 1,
      step: 'fsync',
    });
    store.scriptNext({ outcome: 'journal_only', detail: 'cache' });
    expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'journal_only', seq: 1 });
    const l = await store.load(id);
    expect(l.ok && l.value.events.length).toBe(1);
  });
  it('scripted outcomes apply to a whole batch: all of its events or none', async () => {
    const store = createMemoryStore({ now: fixedClock() });
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    const batch = [
      { kind: 'note' as const, payload: note('a') },
      { kind: 'note' as const, payload: note('b') },
    ];
    store.scriptNext({ outcome: 'indeterminate', step: 'fsync' });
    expect(await store.appendBatch(id, batch)).toMatchObject({
      outcome: 'indeterminate',
      first_seq: 1,
      seq: 2,
      step: 'fsync',
    });
    store.scriptNext({ outcome: 'indeterminate', writes: true, step: 'fsync' });
    expect(await store.appendBatch(id, batch)).toMatchObject({
      outcome: 'indeterminate',
      first_seq: 1,
      seq: 2,
    });
    store.scriptNext({ outcome: 'nothing_written', code: 'write_failed' });
    expect(await store.appendBatch(id, batch)).toEqual({
      schema: 'run-store-result/v1',
      outcome: 'nothing_written',
      run_id: id,
      code: 'write_failed',
    });
    const l = await store.load(id);
    expect(l.ok && l.value.events.map((e) => e.seq)).toEqual([1, 2]);
    const b = await store.readBatches(id);
    expect(b.ok && b.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual([
      [1, 2, 'complete'],
    ]);
    expect(store.calls.filter((c) => c.op === 'append-batch')).toHaveLength(3);
  });
});
