/**
 * The controller over an in-memory state store: the same executable sequence as with a state file
 * (dense seqs, cites, status, terminal enforcement), nothing written but the journal, a second
 * start refused as `state_exists`, and the real fs store counting exactly one journal sync per
 * event with no state file anywhere.
 */
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { nodeFsLayer } from '../../src/durable/index.js';
import { memoryStateStore } from '../../src/persist/index.js';
import { createFsStore } from '../../src/store/index.js';
import { batchReview, controller, dispatch, faultyStore, note, replan, workerHandoff } from './fixtures.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'persist-memory-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('memoryStateStore', () => {
  it('runs the whole sequence with no state file and refuses a second start', async () => {
    const store = faultyStore();
    const { c } = controller(dir, store, { stateStore: memoryStateStore() });
    const s = await c.start({ dispatch: dispatch(), trackerSessionId: null });
    expect(s.action).toBe('continue');
    const runId = s.run_id as string;
    expect(await c.note(note())).toMatchObject({ action: 'continue', seq: 1, cite: `${runId}#1` });
    expect((await c.review(batchReview())).seq).toBe(2);
    expect((await c.replan(replan([`${runId}#1`]))).seq).toBe(3);
    expect((await c.finish(workerHandoff())).cite).toBe(`${runId}#4`);
    expect((await c.status()).history).toEqual([
      { seq: 1, kind: 'note', cite: `${runId}#1` },
      { seq: 2, kind: 'review', cite: `${runId}#2` },
      { seq: 3, kind: 'replan', cite: `${runId}#3` },
      { seq: 4, kind: 'handoff', cite: `${runId}#4` },
    ]);
    expect((await c.note(note())).action).toBe('stop');
    expect(await readdir(dir)).toEqual([]);
    const again = await c.start({ dispatch: dispatch(), trackerSessionId: null });
    expect(again).toMatchObject({ action: 'startup-error', code: 'state_exists' });
  });

  it('over the fs store: one journal sync per event, nothing else synced after the create', async () => {
    const fsl = nodeFsLayer();
    let syncs = 0;
    const counting = {
      ...fsl,
      fsync: (fd: number) => {
        syncs += 1;
        fsl.fsync(fd);
      },
    };
    const store = createFsStore({ root: join(dir, 'store'), fs: counting });
    const { c } = controller(dir, store, { stateStore: memoryStateStore() });
    expect((await c.start({ dispatch: dispatch(), trackerSessionId: null })).action).toBe('continue');
    const afterCreate = syncs;
    for (let i = 0; i < 5; i++) expect((await c.note(note())).action).toBe('continue');
    expect(syncs - afterCreate).toBe(5);
    expect((await readdir(dir)).sort()).toEqual(['store']);
  });
});
