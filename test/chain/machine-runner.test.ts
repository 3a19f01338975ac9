import { describe, expect, it } from 'vitest';
import { createMemoryChainJournal, runChainMachine } from '../../src/chain/index.js';
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
