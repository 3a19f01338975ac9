import { describe, expect, it } from 'vitest';
import { createMemoryChainJournal, isSeamError, runChainMachine, stageDelta } from '../../src/chain/index.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

describe('runChainMachine (the seam machine driven with the chain’s actors)', () => {
  it('reaches the same accepted baton as chain.run and journals every revision', async () => {
    const chain = tripChain();
    const viaRun = await chain.run(tripBaton(chain));
    const journal = createMemoryChainJournal();
    const viaMachine = await runChainMachine(tripChain(), tripBaton(chain), { journal });
    expect(viaMachine.status).toBe('accepted');
    expect(viaMachine.baton.fingerprint).toBe(viaRun.baton.fingerprint);
    expect(viaMachine.acceptance?.artifact_id).toBe(viaRun.baton.snapshot_id);
    expect(journal.entries('trip-1').map((e) => e.baton.revision)).toEqual([0, 1, 2, 3]);
    expect(viaMachine.states).toEqual([
      'ready',
      'running',
      'validating',
      'committed',
      'running',
      'validating',
      'committed',
      'running',
      'validating',
      'committed',
      'accepted',
    ]);
  });

  it('retries a failed seam with the same stage_run_id and pays once', async () => {
    const payments = new Map<string, number>();
    const s = goodStages(payments);
    const runIds: string[] = [];
    let fail = true;
    const chain = tripChain({
      ...s,
      pay: async (v, c) => {
        runIds.push(v.stage_run_id);
        const d = await s.pay(v, c);
        if (fail) {
          fail = false;
          throw new Error('lost the reply');
        }
        return d;
      },
    });
    const r = await runChainMachine(chain, tripBaton(chain), { retryWhen: (f) => f.code === 'stage_failed' });
    expect(r.status).toBe('accepted');
    expect(runIds).toHaveLength(2);
    expect(runIds[0]).toBe(runIds[1]);
    expect([...payments.values()]).toEqual([1]);
    expect(r.states).toContain('failed');
  });

  it('stops at the seam holding the checkpoint when not retried', async () => {
    const s = goodStages();
    const chain = tripChain({ ...s, route: () => ({ facts: [] }) });
    const b0 = tripBaton(chain);
    const r = await runChainMachine(chain, b0);
    expect(r.status).toBe('stopped');
    expect(r.failure).toMatchObject({ code: 'promised_fact_missing', stage: 'route' });
    expect(r.baton.revision).toBe(1);
    expect(r.baton.trace).toEqual(['intent']);
  });

  it('a journal failure holds the checkpoint as commit_failed', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    let commits = 0;
    const journal = {
      async commit() {
        commits++;
        if (commits === 3) throw new Error('disk full');
      },
      async loadLast() {
        return undefined;
      },
    };
    const r = await runChainMachine(chain, b0, { journal });
    expect(r.status).toBe('stopped');
    expect(r.failure).toMatchObject({ code: 'commit_failed', stage: 'route', detail: 'Error: disk full' });
    expect(r.baton.revision).toBe(1);
  });
});

describe('HandoffChain.run / advance / resume go through the seam machine', () => {
  it('run retries a failed seam in the same run when retryWhen asks (same stage_run_id, one payment)', async () => {
    const payments = new Map<string, number>();
    const s = goodStages(payments);
    const runIds: string[] = [];
    let fail = true;
    const chain = tripChain({
      ...s,
      pay: async (v, c) => {
        runIds.push(v.stage_run_id);
        const d = await s.pay(v, c);
        if (fail) {
          fail = false;
          throw new Error('lost the reply');
        }
        return d;
      },
    });
    const seen: [string, number][] = [];
    const r = await chain.run(tripBaton(chain), {
      retryWhen: (f, attempt) => {
        seen.push([f.code, attempt]);
        return f.code === 'stage_failed';
      },
    });
    expect(seen).toEqual([['stage_failed', 1]]);
    expect(r.baton.trace).toEqual(['intent', 'route', 'pay']);
    expect(runIds).toEqual([runIds[0], runIds[0]]);
    expect(r.receipts[2]?.stage_run_id).toBe(runIds[0]);
    expect([...payments.values()]).toEqual([1]);
  });

  it('run never retries past the contract’s max_attempts (3), then throws the SeamError', async () => {
    const s = goodStages();
    let calls = 0;
    const chain = tripChain({
      ...s,
      route: () => {
        calls++;
        throw new Error('down');
      },
    });
    const err = await chain.run(tripBaton(chain), { retryWhen: () => true }).catch((e: unknown) => e);
    expect(isSeamError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'stage_failed', stage: 'route', detail: 'Error: down' });
    expect(calls).toBe(3);
  });

  it('run rethrows the journal’s own error when a commit cannot be made durable', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const inner = createMemoryChainJournal();
    const full = new Error('disk full');
    let commits = 0;
    const journal = {
      async commit(e: Parameters<typeof inner.commit>[0]) {
        commits++;
        if (commits === 3) throw full;
        return inner.commit(e);
      },
      loadLast: (id: string) => inner.loadLast(id),
    };
    await expect(chain.run(b0, { journal })).rejects.toBe(full);
    expect((await inner.loadLast('trip-1'))?.revision).toBe(1);
    const refused = new Error('not now');
    const onCommit = async () => {
      throw refused;
    };
    await expect(tripChain().run(tripBaton(chain), { onCommit })).rejects.toBe(refused);
  });

  it('advance runs exactly one seam: the next stage never starts and nothing is journaled', async () => {
    const s = goodStages();
    const calls = { intent: 0, route: 0, pay: 0 };
    const chain = tripChain({
      intent: (v, c) => {
        calls.intent++;
        return s.intent(v, c);
      },
      route: (v, c) => {
        calls.route++;
        return s.route(v, c);
      },
      pay: s.pay,
    });
    const b0 = tripBaton(chain);
    const c1 = await chain.advance(b0);
    await new Promise((res) => setTimeout(res, 20));
    expect(calls).toEqual({ intent: 1, route: 0, pay: 0 });
    expect(c1).toMatchObject({
      ok: true,
      receipt: { stage_name: 'intent', input_fingerprint: b0.fingerprint },
    });
    expect(c1.baton.revision).toBe(1);
    const full = await chain.run(b0);
    expect(full.receipts[0]).toEqual(c1.receipt);
    const failing = tripChain({ ...s, route: () => stageDelta({}) });
    const err = await failing.advance(c1.baton).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'promised_fact_missing', stage: 'route' });
    expect(isSeamError(err) && err.checkpoint).toBe(c1.baton);
    await expect(chain.advance(full.baton)).rejects.toMatchObject({ code: 'chain_complete' });
  });
});
