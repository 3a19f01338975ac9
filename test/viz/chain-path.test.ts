/**
 * Chain journal → chain-machine path (pure) and its overlay on the chain machine: every commit is
 * running → validating → committed over observed edges, a complete trace ends accepted, an
 * incomplete one is unfinished, a run started from a checkpoint starts at ready.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine } from '../../machines/index.js';
import { createStoreChainJournal } from '../../src/chain/index.js';
import { createMemoryStore, isChainRunLoad } from '../../src/store/index.js';
import {
  chainInspectReport,
  chainInspectText,
  chainJournalPath,
  machineGraph,
  overlayPath,
} from '../../src/viz/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';

const STAGES = ['intent', 'route', 'pay'];
const R = '20261201T120000Z-0123abcd';
const graph = machineGraph(chainMachine as unknown as AnyStateMachine);

function load(startRevision: number, commits: string[]) {
  return {
    run_id: R,
    manifest: {
      stages: STAGES,
      start_baton: { revision: startRevision, snapshot_id: `b::r${startRevision}::x` },
    },
    events: commits.map((stage, i) => ({
      seq: i + 1,
      payload: {
        baton: { revision: startRevision + i + 1, snapshot_id: `b::r${startRevision + i + 1}::x` },
        receipt: { stage_name: stage },
      },
    })),
  };
}

describe('chainJournalPath', () => {
  it('a complete run: ready, three states per commit, accepted; every step an observed edge', () => {
    const p = chainJournalPath(load(0, STAGES));
    expect(p.steps.map((s) => s.state)).toEqual([
      'ready',
      ...STAGES.flatMap(() => ['running', 'validating', 'committed']),
      'accepted',
    ]);
    expect(p.steps.map((s) => s.cite)).toEqual([
      `${R}#manifest`,
      `${R}#1`,
      `${R}#1`,
      `${R}#1`,
      `${R}#2`,
      `${R}#2`,
      `${R}#2`,
      `${R}#3`,
      `${R}#3`,
      `${R}#3`,
      `${R}#3`,
    ]);
    expect(p.finished).toBe(true);
    expect(p.limits).toHaveLength(1);
    const o = overlayPath(graph, p.steps);
    expect(o.gaps).toEqual([]);
    expect(o.steps.slice(1).every((s) => s.edge !== null && s.inferred.length === 0)).toBe(true);
    expect(o.current).toBe('chain.accepted');
    expect(o.nodeVisits['chain.running']).toBe(3);
  });

  it('an incomplete run is unfinished at its last commit and names the next stage', () => {
    const p = chainJournalPath(load(0, ['intent']));
    expect(p.steps.at(-1)?.state).toBe('committed');
    expect(p.finished).toBe(false);
    expect(p.limits[1]).toContain('revision 1 of 3 (next stage route)');
    expect(overlayPath(graph, p.steps).current).toBe('chain.committed');
    expect(chainJournalPath(load(0, [])).steps.map((s) => s.state)).toEqual(['ready']);
  });

  it('a run started from a checkpoint: ready, the remaining commit, accepted', () => {
    const p = chainJournalPath(load(2, ['pay']));
    expect(p.steps.map((s) => s.state)).toEqual(['ready', 'running', 'validating', 'committed', 'accepted']);
    expect(p.steps[0]?.label).toBe(`${R}#manifest start baton r2`);
    expect(overlayPath(graph, p.steps).gaps).toEqual([]);
  });
});

describe('chainInspectReport', () => {
  it('summarises a stored chain run and draws it over the chain machine', async () => {
    const store = createMemoryStore({ now: () => new Date('2026-11-30T10:00:00Z') });
    const chain = tripChain();
    const journal = createStoreChainJournal(store, chain);
    await chain.run(tripBaton(chain), { journal });
    const l = await store.loadRun(journal.runOf('trip-1') as string);
    if (!l.ok || !isChainRunLoad(l.value)) throw new Error('not a chain run');
    const r = chainInspectReport(l.value, graph);
    expect(r.manifest).toMatchObject({ chain_id: 'trip-chain', contract_id: 'trip', stages: STAGES });
    expect(r.events.map((e) => [e.stage, e.revision])).toEqual([
      ['intent', 1],
      ['route', 2],
      ['pay', 3],
    ]);
    expect(r.last_baton.trace).toEqual(STAGES);
    const text = chainInspectText(r, graph);
    expect(text).toContain('path over the chain machine (accepted, revision 3 of 3)');
    expect(text).toContain('running route via done: journal [requiresPresent]');
  });
});
