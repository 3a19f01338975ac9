/**
 * chainGraph inside a real @langchain/langgraph StateGraph: each stage a node, the seam check and
 * the durable baton commit between nodes, retry from the checkpoint under the same stage_run_id,
 * the run store as the journal — and hostile stages and nodes (forged batons from a stage or from
 * a node between stages, a state update behind the graph's back, stages throwing non-Errors or
 * mutating their delta after returning it) refused, never committed.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { END, MemorySaver, START, StateGraph } from '@langchain/langgraph';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  ADMIT_NODE,
  admitNode,
  ChainGraphAnnotation,
  type ChainGraphState,
  type ChainWiring,
  chainGraph,
  chainGraphOutcome,
  routeAfterSeam,
  seamNode,
} from '../../../src/adapters/langgraph/index.js';
import {
  type Baton,
  batonFingerprint,
  createMemoryChainJournal,
  createStoreChainJournal,
  snapshotId,
  stageDelta,
} from '../../../src/chain/index.js';
import { HandoffError } from '../../../src/errors/index.js';
import { fsStore, goodStages, RUN_ID, tripBaton, tripChain } from './fixtures.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'handoff-langgraph-chain-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A baton with one fact changed and its fingerprint recomputed: internally consistent, never committed. */
function forge(b: Baton, key: string, value: unknown): Baton {
  const records = b.records.map((r) => (r.key === key ? { ...r, value } : r));
  const body = { ...b, records };
  const fingerprint = batonFingerprint(body);
  return { ...body, fingerprint, snapshot_id: snapshotId(b.baton_id, b.revision, fingerprint) };
}

describe('chainGraph: the commit boundary between nodes', () => {
  it('runs admit → intent → route → pay, committing every baton before the next node', async () => {
    const calls: string[] = [];
    const chain = tripChain(goodStages(calls));
    const journal = createMemoryChainJournal();
    const app = chainGraph(chain, { journal }).compile();
    expect(Object.keys(app.getGraph().nodes)).toEqual([START, ADMIT_NODE, 'intent', 'route', 'pay', END]);
    const final = await app.invoke({ baton: tripBaton(chain) });
    const o = chainGraphOutcome(final);
    expect(o.status).toBe('accepted');
    expect(o.baton?.trace).toEqual(['intent', 'route', 'pay']);
    expect(o.acceptance).toMatchObject({ decision: 'accepted', artifact_id: o.baton?.snapshot_id });
    expect(o.commits.map((c) => [c.stage, c.revision, c.cite])).toEqual([
      [null, 0, null],
      ['intent', 1, null],
      ['route', 2, null],
      ['pay', 3, null],
    ]);
    expect(journal.entries('trip-1').map((e) => e.baton.snapshot_id)).toEqual(
      o.commits.map((c) => c.snapshot_id),
    );
    expect(calls).toHaveLength(3);
    expect(Object.isFrozen(o.baton)).toBe(true);
  });

  it('journals to the fs run store: one chain run, cites for the start and every commit', async () => {
    const store = fsStore(root);
    try {
      const chain = tripChain();
      const journal = createStoreChainJournal(store, chain);
      const final = await chainGraph(chain, { journal })
        .compile()
        .invoke({ baton: tripBaton(chain) });
      const runId = journal.runOf('trip-1');
      expect(runId).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
      expect(final.commits.map((c) => c.cite)).toEqual([
        `${runId}#manifest`,
        `${runId}#1`,
        `${runId}#2`,
        `${runId}#3`,
      ]);
      const loaded = await store.loadRun(runId as string);
      expect(loaded.ok && loaded.value.events.map((e) => e.kind)).toEqual([
        'baton-commit',
        'baton-commit',
        'baton-commit',
      ]);
    } finally {
      store.close();
    }
  });

  it('a failed stage is retried from its checkpoint under the same stage_run_id, in the same run', async () => {
    const store = fsStore(root);
    try {
      const seen: string[] = [];
      const stages = goodStages();
      let failures = 0;
      const chain = tripChain({
        ...stages,
        route: (view, ctx) => {
          seen.push(view.stage_run_id);
          if (failures++ < 2) throw 'the maps service is down'; // not an Error
          return stages.route(view, ctx);
        },
      });
      const journal = createStoreChainJournal(store, chain);
      const retried: [string, number][] = [];
      const app = chainGraph(chain, {
        journal,
        retryWhen: (f, attempt) => {
          retried.push([f.detail, attempt]);
          return f.code === 'stage_failed';
        },
      }).compile();
      const final = await app.invoke({ baton: tripBaton(chain) });
      expect(chainGraphOutcome(final).status).toBe('accepted');
      expect(seen).toHaveLength(3);
      expect(new Set(seen).size).toBe(1);
      expect(retried).toEqual([
        ['string: the maps service is down', 1],
        ['string: the maps service is down', 2],
      ]);
      const runId = journal.runOf('trip-1') as string;
      expect(final.commits.map((c) => c.cite)).toEqual([
        `${runId}#manifest`,
        `${runId}#1`,
        `${runId}#2`,
        `${runId}#3`,
      ]);
    } finally {
      store.close();
    }
  });

  it('a stopped run resumes in a new store and journal object: same run, same stage_run_id, cites continue', async () => {
    let down = true;
    const stages = goodStages();
    const seen: string[] = [];
    const chain = tripChain({
      ...stages,
      route: (view, ctx) => {
        seen.push(view.stage_run_id);
        if (down) throw new Error('down');
        return stages.route(view, ctx);
      },
    });
    const first = fsStore(root);
    let runId: string | undefined;
    let failure: string | null | undefined;
    try {
      const journal = createStoreChainJournal(first, chain);
      const stopped = await chainGraph(chain, { journal })
        .compile()
        .invoke({ baton: tripBaton(chain) });
      runId = journal.runOf('trip-1');
      failure = stopped.failure?.stage_run_id;
    } finally {
      first.close();
    }
    down = false;
    const second = fsStore(root); // another process would open the store the same way
    try {
      const journal = createStoreChainJournal(second, chain);
      const checkpoint = await journal.loadLast('trip-1');
      const final = await chainGraph(chain, { journal })
        .compile()
        .invoke({ baton: checkpoint as Baton });
      expect(chainGraphOutcome(final).status).toBe('accepted');
      expect(journal.runOf('trip-1')).toBe(runId);
      expect(seen).toEqual([failure, failure]);
      expect(final.commits.map((c) => c.cite)).toEqual([`${runId}#2`, `${runId}#3`]);
    } finally {
      second.close();
    }
  });

  it('the retry budget is the contract’s max_attempts (3): then the graph stops at the checkpoint', async () => {
    let runs = 0;
    const chain = tripChain({
      ...goodStages(),
      route: () => {
        runs += 1;
        throw new RangeError('no route');
      },
    });
    const journal = createMemoryChainJournal();
    const final = await chainGraph(chain, { journal, retryWhen: () => true })
      .compile()
      .invoke({ baton: tripBaton(chain) });
    const o = chainGraphOutcome(final);
    expect(runs).toBe(3);
    expect(o.status).toBe('stopped');
    expect(o.failure).toMatchObject({ code: 'stage_failed', stage: 'route', detail: 'RangeError: no route' });
    expect(o.failure?.checkpoint).toBe(o.baton?.snapshot_id);
    expect(o.baton?.revision).toBe(1);
    expect(final.attempt).toBe(3);
    expect(journal.entries('trip-1')).toHaveLength(2);
  });

  it('a stage returning a forged baton instead of a delta is refused, nothing committed', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const journal = createMemoryChainJournal();
    const hostile = tripChain({ ...goodStages(), route: () => forge(b0, 'request_id', 'req-evil') });
    const final = await chainGraph(hostile, { journal })
      .compile()
      .invoke({ baton: tripBaton(hostile) });
    const o = chainGraphOutcome(final);
    expect(o.failure).toMatchObject({ code: 'invalid_stage_delta', stage: 'route' });
    expect(o.baton?.revision).toBe(1);
    expect(journal.entries('trip-1').map((e) => e.baton.revision)).toEqual([0, 1]);
  });

  it('a value that fails its fact rule is refused at the seam, never committed', async () => {
    const chain = tripChain({
      ...goodStages(),
      route: () => stageDelta({ depart_by: { value: '23:30', evidence: ['maps://route/9'] } }),
    });
    const journal = createMemoryChainJournal();
    const final = await chainGraph(chain, { journal, retryWhen: () => true })
      .compile()
      .invoke({ baton: tripBaton(chain) });
    expect(final.failure).toMatchObject({ code: 'fact_semantic_violation', stage: 'route' });
    expect(final.failure?.detail).toContain('departure 23:30 is later than 20:00');
    expect(journal.entries('trip-1')).toHaveLength(2);
  });

  it('a stage mutating its delta or its view after returning changes nothing committed', async () => {
    const chain = tripChain({
      ...goodStages(),
      route: (view) => {
        const delta = stageDelta({
          depart_by: { value: '18:00', evidence: ['maps://route/42'] },
        }) as unknown as {
          facts: { value: unknown }[];
        };
        setImmediate(() => {
          (delta.facts[0] as { value: unknown }).value = '23:59';
          try {
            (view.facts as Record<string, unknown>).city = 'Beijing';
          } catch {
            // a read-only view
          }
        });
        return delta;
      },
    });
    const final = await chainGraph(chain)
      .compile()
      .invoke({ baton: tripBaton(chain) });
    await new Promise((r) => setImmediate(r));
    const b = final.baton;
    expect(b.records.find((r) => r.key === 'depart_by')?.value).toBe('18:00');
    expect(b.records.find((r) => r.key === 'city')?.value).toBe('Shanghai');
    expect(chainGraphOutcome(final).status).toBe('accepted');
  });
});

describe('chainGraph: the journal is the truth about the baton', () => {
  /** START → admit → intent → forger → route → pay → END, the forger replacing the baton. */
  function withForger(wiring: ChainWiring, forger: (s: ChainGraphState) => Partial<ChainGraphState>) {
    return new StateGraph(ChainGraphAnnotation)
      .addNode(ADMIT_NODE, admitNode(wiring))
      .addNode('intent', seamNode(wiring, 'intent'))
      .addNode('forger', async (s: ChainGraphState) => forger(s))
      .addNode('route', seamNode(wiring, 'route'))
      .addNode('pay', seamNode(wiring, 'pay'))
      .addEdge(START, ADMIT_NODE)
      .addConditionalEdges(ADMIT_NODE, routeAfterSeam(wiring, null))
      .addEdge('intent', 'forger')
      .addEdge('forger', 'route')
      .addConditionalEdges('route', routeAfterSeam(wiring, 'route'))
      .addConditionalEdges('pay', routeAfterSeam(wiring, 'pay'))
      .compile();
  }

  it.each([
    ['an edited fact (fingerprint recomputed)', (b: Baton) => forge(b, 'city', 'Beijing')],
    [
      'an edited fact (fingerprint kept)',
      (b: Baton) => ({ ...b, records: b.records.map((r) => ({ ...r, value: 'x' })) }),
    ],
    ['the previous revision', (_b: Baton, b0: Baton) => b0],
    ['a baton of another id', (_b: Baton, b0: Baton) => ({ ...b0, baton_id: 'trip-9' })],
    ['not a baton at all', () => ({ revision: 1 }) as unknown as Baton],
  ])(
    'a node between stages returning %s: the next stage refuses it, nothing committed',
    async (_what, make) => {
      const chain = tripChain();
      const journal = createMemoryChainJournal();
      const b0 = tripBaton(chain);
      const app = withForger({ chain, journal, retryWhen: () => true }, (s) => ({
        baton: make(s.baton, b0),
      }));
      const final = await app.invoke({ baton: b0 });
      expect(final.failure).toMatchObject({ code: 'baton_not_committed', stage: 'route' });
      expect(chainGraphOutcome(final).status).toBe('stopped');
      expect(journal.entries('trip-1').map((e) => e.baton.revision)).toEqual([0, 1]);
      expect(journal.entries('trip-9')).toEqual([]);
    },
  );

  it('a node mutating the committed baton in place throws: batons in the state are frozen', async () => {
    const chain = tripChain();
    const journal = createMemoryChainJournal();
    const app = withForger({ chain, journal }, (s) => {
      (s.baton.records as unknown as { value: unknown }[])[0] = { value: 'req-evil' };
      return {};
    });
    await expect(app.invoke({ baton: tripBaton(chain) })).rejects.toThrow(TypeError);
    expect((await journal.loadLast('trip-1'))?.records[0]?.value).toBe('req-7');
  });

  it('a state update behind the graph’s back (updateState) is refused at the next node', async () => {
    const chain = tripChain();
    const journal = createMemoryChainJournal();
    const app = chainGraph(chain, { journal }).compile({
      checkpointer: new MemorySaver(),
      interruptBefore: ['route'],
    });
    const config = { configurable: { thread_id: 'trip-1' } };
    await app.invoke({ baton: tripBaton(chain) }, config);
    const paused = (await app.getState(config)).values as ChainGraphState;
    expect(paused.baton.revision).toBe(1);
    await app.updateState(config, { baton: forge(paused.baton, 'latest', '23:59') });
    const final = await app.invoke(null, config);
    expect(final.failure).toMatchObject({ code: 'baton_not_committed', stage: 'route' });
    expect(journal.entries('trip-1')).toHaveLength(2);
  });

  it('resumes from the journal: a checkpoint is admitted as the last commit and the chain runs on', async () => {
    const chain = tripChain({
      ...goodStages(),
      route: () => {
        throw new Error('down');
      },
    });
    const journal = createMemoryChainJournal();
    const stopped = await chainGraph(chain, { journal })
      .compile()
      .invoke({ baton: tripBaton(chain) });
    expect(stopped.failure?.code).toBe('stage_failed');
    const calls: string[] = [];
    const healed = tripChain(goodStages(calls));
    const last = await journal.loadLast('trip-1');
    const final = await chainGraph(healed, { journal })
      .compile()
      .invoke({ baton: last as Baton });
    expect(chainGraphOutcome(final).status).toBe('accepted');
    expect(calls).toEqual([stopped.failure?.stage_run_id, expect.stringMatching(/^trip-1::pay::r2::/)]);
  });

  it('a stale baton given to the graph is refused at the entry', async () => {
    const chain = tripChain();
    const journal = createMemoryChainJournal();
    const b0 = tripBaton(chain);
    await chainGraph(chain, { journal }).compile().invoke({ baton: b0 });
    const again = await chainGraph(chain, { journal }).compile().invoke({ baton: b0 });
    expect(again.failure).toMatchObject({ code: 'baton_not_committed', stage: ADMIT_NODE });
    expect(journal.entries('trip-1')).toHaveLength(4);
  });

  it('a crash between the journal and the graph: the node adopts the commit without running the stage again', async () => {
    const calls: string[] = [];
    const chain = tripChain(goodStages(calls));
    const journal = createMemoryChainJournal();
    const b0 = tripBaton(chain);
    const b1 = (await chain.advance(b0)).baton;
    await journal.commit({ baton: b0, receipt: null });
    await journal.commit({ baton: b1, receipt: b1.stage_receipts[0] ?? null });
    const wiring = { chain, journal };
    // the graph "lost" intent's result: the node for intent sees b0 again
    const update = await seamNode(wiring, 'intent')({ baton: b0 });
    expect(update.baton?.snapshot_id).toBe(b1.snapshot_id);
    expect(update.failure).toBeNull();
    expect(calls).toHaveLength(1); // only the advance above
  });

  it('a foreign or broken input baton is not a checkpoint', async () => {
    const chain = tripChain();
    const other = tripChain();
    const b0 = tripBaton(other);
    const app = chainGraph(chain).compile();
    const broken = await app.invoke({ baton: { ...b0, revision: 3 } });
    expect(broken.failure).toMatchObject({ code: 'invalid_checkpoint', stage: ADMIT_NODE });
    const none = await app.invoke({} as never);
    expect(none.failure).toMatchObject({ code: 'invalid_checkpoint', detail: 'the state holds no baton' });
  });

  it('a mis-wired graph: a node run out of order refuses with wrong_stage', async () => {
    const chain = tripChain();
    const journal = createMemoryChainJournal();
    const b0 = tripBaton(chain);
    await journal.commit({ baton: b0, receipt: null });
    const update = await seamNode({ chain, journal }, 'pay')({ baton: b0 });
    expect(update.failure).toMatchObject({ code: 'wrong_stage', stage: 'pay' });
  });

  it('a journal that refuses the commit: commit_failed, retried under the same stage_run_id', async () => {
    const chain = tripChain();
    const inner = createMemoryChainJournal();
    let refusals = 1;
    const journal = {
      loadLast: (id: string) => inner.loadLast(id),
      async commit(entry: Parameters<typeof inner.commit>[0]) {
        if (entry.baton.revision === 2 && refusals-- > 0) throw new HandoffError('busy', 'another writer');
        return inner.commit(entry);
      },
    };
    const codes: string[] = [];
    const final = await chainGraph(chain, {
      journal,
      retryWhen: (f) => {
        codes.push(f.code);
        return true;
      },
    })
      .compile()
      .invoke({ baton: tripBaton(chain) });
    expect(codes).toEqual(['commit_failed']);
    expect(chainGraphOutcome(final).status).toBe('accepted');
    expect(inner.entries('trip-1').map((e) => e.baton.revision)).toEqual([0, 1, 2, 3]);
  });

  it('a commit that landed but answered with an error: the retry adopts it and the stage does not run again', async () => {
    const calls: string[] = [];
    const chain = tripChain(goodStages(calls));
    const inner = createMemoryChainJournal();
    let lies = 1;
    const journal = {
      loadLast: (id: string) => inner.loadLast(id),
      async commit(entry: Parameters<typeof inner.commit>[0]) {
        await inner.commit(entry);
        if (entry.baton.revision === 2 && lies-- > 0)
          throw new HandoffError('store_indeterminate', 'the write may or may not be durable');
      },
    };
    const final = await chainGraph(chain, { journal, retryWhen: (f) => f.code === 'commit_failed' })
      .compile()
      .invoke({ baton: tripBaton(chain) });
    expect(chainGraphOutcome(final).status).toBe('accepted');
    expect(calls.map((c) => c.split('::')[1])).toEqual(['intent', 'route', 'pay']);
    expect(inner.entries('trip-1').map((e) => e.baton.revision)).toEqual([0, 1, 2, 3]);
    expect(final.commits.map((c) => c.revision)).toEqual([0, 1, 2, 3]); // r2 adopted, not committed twice
  });

  it('the router never throws: an unreadable failure or a throwing retry policy ends the graph', () => {
    const chain = tripChain();
    const journal = createMemoryChainJournal();
    const failure = {
      code: 'stage_failed',
      stage: 'route',
      detail: 'x',
      stage_run_id: null,
      checkpoint: null,
    };
    const throwing = routeAfterSeam(
      {
        chain,
        journal,
        retryWhen: () => {
          throw new Error('policy bug');
        },
      },
      'route',
    );
    expect(throwing({ failure, attempt: 1 })).toBe(END);
    const retrying = routeAfterSeam({ chain, journal, retryWhen: () => true }, 'route');
    expect(retrying({ failure, attempt: 1 })).toBe('route');
    expect(retrying({ failure, attempt: 3 })).toBe(END); // max_attempts
    expect(retrying({ failure: { ...failure, code: 'baton_not_committed' }, attempt: 1 })).toBe(END);
    const unreadable = Object.defineProperty({}, 'stage', {
      get() {
        throw new Error('gotcha');
      },
    });
    expect(retrying({ failure: unreadable, attempt: 1 })).toBe(END);
    expect(retrying({ failure: null, baton: { revision: 2 } })).toBe('pay');
    expect(retrying({ failure: null, baton: { revision: 3 } })).toBe(END);
    expect(retrying({ failure: null, baton: 'junk' })).toBe(END);
  });

  it('refuses a chain whose stage is named like the entry or a state channel', () => {
    const c = tripChain();
    const clash = Object.assign(Object.create(Object.getPrototypeOf(c)), c, {
      specs: [...c.specs.slice(0, 2), { ...c.specs[2], name: 'baton' }],
    });
    expect(() => chainGraph(clash)).toThrow(/cannot name a stage 'baton'/);
    expect(RUN_ID).toMatch(/^20261130T100000Z-/);
  });
});
