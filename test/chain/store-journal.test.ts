/**
 * The run-store ChainJournal (`createStoreChainJournal`): a chain's commits as a chain run of the
 * run store, on both backends — creation, commits and cites, resume with the same stage_run_id,
 * discovery, conflicts, busy, damage and contract mismatch.
 */
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  type Baton,
  createStoreChainJournal,
  isSeamError,
  type SeamError,
  stageDelta,
} from '../../src/chain/index.js';
import { type ChainRunStore, createFsStore, createMemoryStore, type FsStore } from '../../src/store/index.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A clock that advances one second per reading, so runs created in a row get distinct ids. */
function ticking(): () => Date {
  let t = Date.parse('2026-11-30T10:00:00Z');
  return () => {
    t += 1000;
    return new Date(t);
  };
}

const backends: [string, () => ChainRunStore][] = [
  ['memory', () => createMemoryStore({ now: ticking() })],
  [
    'fs',
    () => {
      const d = mkdtempSync(join(tmpdir(), 'chain-store-'));
      dirs.push(d);
      return createFsStore({ root: join(d, '.handoff'), env: {}, now: ticking(), gitTracked: () => [] });
    },
  ],
];

describe.each(backends)('store chain journal on the %s store', (_name, make) => {
  it('a run becomes one chain run: start baton in the manifest, one baton-commit per seam, cites', async () => {
    const store = make();
    const chain = tripChain();
    const journal = createStoreChainJournal(store, chain);
    const b0 = tripBaton(chain);
    const result = await chain.run(b0, { journal });
    const runId = journal.runOf('trip-1') as string;
    expect(runId).toMatch(/^20261130T\d{6}Z-[0-9a-f]{8}$/);
    expect(journal.commits('trip-1').map((c) => [c.cite, c.stage, c.revision])).toEqual([
      [`${runId}#manifest`, null, 0],
      [`${runId}#1`, 'intent', 1],
      [`${runId}#2`, 'route', 2],
      [`${runId}#3`, 'pay', 3],
    ]);
    const l = await store.loadRun(runId);
    if (!l.ok || !('last_baton' in l.value)) throw new Error('not a chain run');
    expect(l.value.manifest.start_baton.snapshot_id).toBe(b0.snapshot_id);
    expect(l.value.manifest.stages).toEqual(['intent', 'route', 'pay']);
    expect(l.value.events.map((e) => e.payload.receipt.receipt_id)).toEqual(
      result.receipts.map((r) => r.receipt_id),
    );
    // a fresh journal object finds the run and rebuilds the last baton (fingerprint re-checked)
    const again = createStoreChainJournal(store, chain);
    const last = (await again.loadLast('trip-1')) as Baton;
    expect(last.snapshot_id).toBe(result.baton.snapshot_id);
    expect(Object.isFrozen(last) && Object.isFrozen(last.records[0])).toBe(true);
    expect(again.runOf('trip-1')).toBe(runId);
    // re-running from the complete baton commits nothing new
    await chain.run(last, { journal: again });
    expect((await store.loadRun(runId)).ok && again.commits('trip-1')).toHaveLength(4);
    // without discovery a journal knows no run until it writes one
    expect(
      await createStoreChainJournal(store, chain, { discover: false }).loadLast('trip-1'),
    ).toBeUndefined();
  });

  it('a seam failure is retried from the checkpoint in the same run with the same stage_run_id; pay once', async () => {
    const store = make();
    const payments = new Map<string, number>();
    const stages = goodStages(payments);
    let routeCalls = 0;
    const seen: string[] = [];
    const chain = tripChain({
      ...stages,
      route: (view, ctx) => {
        seen.push(view.stage_run_id);
        routeCalls++;
        if (routeCalls === 1) throw new Error('maps service down');
        return stages.route(view, ctx);
      },
    });
    const journal = createStoreChainJournal(store, chain);
    let failure: SeamError | undefined;
    try {
      await chain.run(tripBaton(chain), { journal });
    } catch (e) {
      if (!isSeamError(e)) throw e;
      failure = e;
    }
    expect(failure?.code).toBe('stage_failed');
    const runId = journal.runOf('trip-1') as string;
    expect(journal.commits('trip-1')).toHaveLength(2);
    // another process would resume with a fresh journal object: same run, same stage run id
    const resumed = createStoreChainJournal(store, chain);
    const result = await chain.resume(resumed, 'trip-1');
    expect(resumed.runOf('trip-1')).toBe(runId);
    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
    expect(result.receipts[1]?.stage_run_id).toBe(seen[0]);
    expect([...payments.values()]).toEqual([1]);
    const l = await store.loadRun(runId);
    expect(l.ok && l.value.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(await store.listRuns()).toEqual([runId]);
  });

  it('a writer with a stale view gets journal_conflict for another history and a no-op for the same one', async () => {
    const store = make();
    const chainA = tripChain();
    const chainB = tripChain({
      ...goodStages(),
      route: () => stageDelta({ depart_by: { value: '17:30', evidence: ['maps://other'] } }),
    });
    const a = createStoreChainJournal(store, chainA);
    const b0 = tripBaton(chainA);
    const c1 = await chainA.advance(b0);
    await a.commit({ baton: b0, receipt: null });
    await a.commit({ baton: c1.baton, receipt: c1.receipt });
    const b = createStoreChainJournal(store, chainB);
    expect((await b.loadLast('trip-1'))?.revision).toBe(1);
    const a2 = await chainA.advance(c1.baton);
    await a.commit({ baton: a2.baton, receipt: a2.receipt });
    const b2 = await chainB.advance(c1.baton);
    await expect(b.commit({ baton: b2.baton, receipt: b2.receipt })).rejects.toMatchObject({
      code: 'journal_conflict',
    });
    // the same state as committed is a no-op, even from a view that was stale
    const stale = createStoreChainJournal(store, chainA);
    expect((await stale.loadLast('trip-1'))?.revision).toBe(2);
    await expect(b.commit({ baton: a2.baton, receipt: a2.receipt })).resolves.toBeUndefined();
    await expect(stale.commit({ baton: a2.baton, receipt: a2.receipt })).resolves.toBeUndefined();
    const l = await store.loadRun(a.runOf('trip-1') as string);
    expect(l.ok && l.value.events.map((e) => (e.payload as { baton: Baton }).baton.fingerprint)).toEqual([
      c1.baton.fingerprint,
      a2.baton.fingerprint,
    ]);
  });

  it('refuses a baton of another contract', async () => {
    const store = make();
    const chain = tripChain();
    const journal = createStoreChainJournal(store, chain);
    const b0 = tripBaton(chain);
    await expect(
      journal.commit({ baton: { ...b0, contract_digest: '0123456789abcdef' }, receipt: null }),
    ).rejects.toMatchObject({ code: 'journal_conflict' });
    expect(await store.listRuns()).toEqual([]);
  });
});

describe('store chain journal on the fs store: locks and damage', () => {
  const fsStore = (): FsStore => {
    const d = mkdtempSync(join(tmpdir(), 'chain-store-'));
    dirs.push(d);
    return createFsStore({ root: join(d, '.handoff'), env: {}, now: ticking(), gitTracked: () => [] });
  };

  it('a held run lock makes the commit busy, writes nothing and is never broken', async () => {
    const store = fsStore();
    const chain = tripChain();
    const journal = createStoreChainJournal(store, chain);
    const b0 = tripBaton(chain);
    await journal.commit({ baton: b0, receipt: null });
    const runId = journal.runOf('trip-1') as string;
    const lock = join(store.runDirectory(runId), '.lock');
    writeFileSync(lock, '{"pid":0}\n', { flag: 'wx' });
    await expect(chain.run(b0, { journal })).rejects.toMatchObject({ code: 'busy' });
    expect(await store.isLocked(runId)).toBe(true);
    const l = await store.loadRun(runId);
    expect(l.ok && l.value.events).toEqual([]);
    rmSync(lock);
    await expect(chain.run(b0, { journal })).resolves.toMatchObject({ baton: { revision: 3 } });
  });

  it('a torn last line: resume from the last valid commit in a new run naming the damaged one', async () => {
    const store = fsStore();
    const chain = tripChain({
      ...goodStages(),
      pay: () => {
        throw new Error('bank offline');
      },
    });
    const journal = createStoreChainJournal(store, chain);
    await expect(chain.run(tripBaton(chain), { journal })).rejects.toMatchObject({ code: 'stage_failed' });
    const damagedRun = journal.runOf('trip-1') as string;
    appendFileSync(join(store.runDirectory(damagedRun), 'events.jsonl'), '{"kind":"baton-com');
    const good = tripChain();
    const resumed = createStoreChainJournal(store, good);
    const last = (await resumed.loadLast('trip-1')) as Baton;
    expect(last.trace).toEqual(['intent', 'route']);
    const result = await good.run(last, { journal: resumed });
    expect(result.baton.revision).toBe(3);
    const newRun = resumed.runOf('trip-1') as string;
    expect(newRun).not.toBe(damagedRun);
    const l = await store.loadRun(newRun);
    if (!l.ok || !('last_baton' in l.value)) throw new Error('not a chain run');
    expect(l.value.manifest.prior_run).toBe(damagedRun);
    expect(l.value.manifest.start_baton.snapshot_id).toBe(last.snapshot_id);
    expect(l.value.events.map((e) => e.payload.receipt.stage_name)).toEqual(['pay']);
    const old = await store.loadRun(damagedRun);
    expect(old.ok && old.value.damage?.code).toBe('truncated_tail');
  });
});
