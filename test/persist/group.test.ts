/**
 * Group commit through the controller: a cycle boundary's review, replan and next dispatch written
 * with one store call — checked in order (the replan cites the review before it), one
 * `appendBatch` with `atomic: false`, consecutive seqs and cites; an invalid member stops the group
 * before anything is written; a refused group stops with nothing stored; a store without
 * `appendBatch` gets the events one by one; over the fs store the group costs one fsync.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFsLayer } from '../../src/durable/index.js';
import { memoryStateStore } from '../../src/persist/index.js';
import { createFsStore, createMemoryStore, type Store } from '../../src/store/index.js';
import { batchReview, controller, dispatch, faultyStore, fixedClock, replan } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'persist-group-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function started(store: Store) {
  const { c } = controller(dir, store, { stateStore: memoryStateStore() });
  const s = await c.start({ dispatch: dispatch(), trackerSessionId: null });
  expect(s.action).toBe('continue');
  return { c, runId: s.run_id as string };
}

describe('PersistController.group', () => {
  it('one appendBatch: consecutive seqs, cites, the replan citing the review in the same group', async () => {
    const inner = createMemoryStore({ now: fixedClock });
    const calls: string[] = [];
    const store: Store = {
      ...inner,
      appendBatch: (runId, entries, options) => {
        calls.push(`batch ${entries.map((e) => e.kind).join(',')} atomic=${String(options?.atomic)}`);
        return inner.appendBatch(runId, entries, options);
      },
      append: (...a) => {
        calls.push('append');
        return inner.append(...a);
      },
    };
    const { c, runId } = await started(store);
    const r = await c.group([
      { verb: 'review', payload: batchReview() },
      { verb: 'replan', payload: replan([`${runId}#1`]) },
      { verb: 'dispatch', payload: dispatch() },
    ]);
    expect(r).toMatchObject({ action: 'continue', seq: 3, cite: `${runId}#3` });
    expect(r.cites).toEqual([`${runId}#1`, `${runId}#2`, `${runId}#3`]);
    expect(calls).toEqual(['batch review,replan,dispatch atomic=false']);
    const history = (await c.status()).history as { kind: string }[];
    expect(history.map((h) => h.kind)).toEqual(['review', 'replan', 'dispatch']);
    const l = await inner.load(runId);
    expect(l.ok && l.value.events.map((e) => e.kind)).toEqual(['review', 'replan', 'dispatch']);
  });

  it('an invalid member (a replan citing a seq the group does not reach) stops before anything is written', async () => {
    const inner = createMemoryStore({ now: fixedClock });
    const { c, runId } = await started(inner);
    const r = await c.group([
      { verb: 'review', payload: batchReview() },
      { verb: 'replan', payload: replan([`${runId}#2`]) },
    ]);
    expect(r).toMatchObject({ action: 'stop', outcome: 'invalid_submission' });
    const l = await inner.load(runId);
    expect(l.ok && l.value.events.length).toBe(0);
  });

  it('a busy store twice: stop, nothing stored, the group listed as unpersisted', async () => {
    const inner = createMemoryStore({ now: fixedClock });
    const { c, runId } = await started(inner);
    inner.holdLock(runId, true);
    const r = await c.group([
      { verb: 'review', payload: batchReview() },
      { verb: 'dispatch', payload: dispatch() },
    ]);
    expect(r).toMatchObject({ action: 'stop', outcome: 'refused:busy' });
    expect(r.unpersisted).toMatchObject({ kind: 'review+dispatch', status: 'not-stored' });
  });

  it('a store without appendBatch gets the events one by one', async () => {
    const store = faultyStore();
    expect(store.appendBatch).toBeUndefined();
    const { c, runId } = await started(store);
    const r = await c.group([
      { verb: 'review', payload: batchReview() },
      { verb: 'dispatch', payload: dispatch() },
    ]);
    expect(r).toMatchObject({ action: 'continue', seq: 2 });
    expect(r.cites).toEqual([`${runId}#1`, `${runId}#2`]);
    expect(store.mutations.filter((m) => m.startsWith('append'))).toEqual([
      'append:review',
      'append:dispatch',
    ]);
  });

  it('over the fs store the group is one write and one fsync', async () => {
    const fsl = nodeFsLayer();
    let syncs = 0;
    const fs = {
      ...fsl,
      fsync: (fd: number) => {
        syncs += 1;
        fsl.fsync(fd);
      },
    };
    const { c, runId } = await started(createFsStore({ root: join(dir, 'store'), fs }));
    const before = syncs;
    const r = await c.group([
      { verb: 'review', payload: batchReview() },
      { verb: 'replan', payload: replan([`${runId}#1`]) },
      { verb: 'dispatch', payload: dispatch() },
    ]);
    expect(r.action).toBe('continue');
    expect(syncs - before).toBe(1);
  });
});
