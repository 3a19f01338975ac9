/**
 * The Store contract suite: the behaviour every backend (memory, fs, and later PostgreSQL) must
 * show through the `Store` interface alone. A backend registers with `describeStoreContract`.
 */
import { describe, expect, it } from 'vitest';
import { canonicalJson, sha256Hex } from '../../src/canonical/index.js';
import type { Baton, StageReceipt } from '../../src/chain/index.js';
import { fastCanonicalJsonUtf8 } from '../../src/store/canonical-fast.js';
import { type ChainRunStore, isChainRunStore, resolveCite, type Store } from '../../src/store/index.js';
import { MAX_RECORD_DEPTH } from '../../src/validation/index.js';
import { nest } from '../canonical/deep.js';
import {
  batchReview,
  chainCommits,
  chainRunInput,
  dispatch,
  note,
  replan,
  reviewOfDepth,
  solvedHandoff,
  stuckHandoff,
  stuckReview,
} from './fixtures.js';

/** What a backend provides to the suite. */
export interface StoreHarness {
  /**
   * A fresh, empty store whose clock reads 2026-11-30T10:00:00Z; run-id suffixes come from
   * `runIdSuffix` when given (else random).
   */
  make(options?: { runIdSuffix?: () => string }): Promise<Store>;
  /** Makes the run's lock appear held by someone else (true) or released (false). */
  holdLock(store: Store, runId: string, held: boolean): Promise<void>;
  /**
   * What the backend claims to implement beyond the core interface. The group-commit cases run
   * only when `appendBatch` is true (else they are reported as skipped, never as passed), and
   * then fail if the store lacks the method; the batch-record cases likewise need `readBatches`.
   */
  readonly capabilities?: StoreCapabilities;
}

/** Optional parts of the Store interface a backend declares to the contract suite. */
export interface StoreCapabilities {
  /** `Store.appendBatch` (group commit). */
  readonly appendBatch?: boolean;
  /** `Store.readBatches` (the batch records and their traces). */
  readonly readBatches?: boolean;
}

/** The store's appendBatch, or a failure: the harness declared the capability. */
function batchOf(store: Store): NonNullable<Store['appendBatch']> {
  const f = store.appendBatch;
  if (typeof f !== 'function') throw new Error(`${store.backend} declares appendBatch but has none`);
  return f.bind(store);
}

/** The store's readBatches, or a failure: the harness declared the capability. */
function readBatchesOf(store: Store): NonNullable<Store['readBatches']> {
  const f = store.readBatches;
  if (typeof f !== 'function') throw new Error(`${store.backend} declares readBatches but has none`);
  return f.bind(store);
}

/** The journal line of an event as the reference writes it (with its newline). */
function lineOf(e: { kind: string; payload: unknown; schema: string; seq: number; ts: string }): string {
  return `${fastCanonicalJsonUtf8({ kind: e.kind, payload: e.payload, schema: e.schema, seq: e.seq, ts: e.ts })}\n`;
}

const TRACE = [
  {
    machine: 'cycle',
    from: 'work.dispatch',
    event: 'DISPATCHED',
    to: 'work.await_worker',
    actor: 'dispatch',
  },
  { machine: 'cycle', from: 'work.await_worker', event: 'HANDOFF', to: 'review', guard: 'isStuck' },
  { machine: 'cycle', from: 'review', event: 'REVIEWED', to: 'replan ⊢' },
];

/**
 * Registers the contract tests for one backend.
 *
 * @example
 * ```ts
 * describeStoreContract('memory', { make: async () => createMemoryStore(...), holdLock: ... });
 * ```
 */
export function describeStoreContract(name: string, h: StoreHarness): void {
  describe(`Store contract: ${name}`, () => {
    it('creates a run whose id follows the format and whose manifest holds the first dispatch', async () => {
      const store = await h.make();
      const c = await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid' });
      expect(c).toMatchObject({ schema: 'run-store-result/v1', outcome: 'committed' });
      expect(c.run_id).toMatch(/^20261130T100000Z-[0-9a-f]{8}$/);
      const l = await store.load(c.run_id as string);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.manifest).toMatchObject({
        run_id: c.run_id,
        tracker_session_id: 'sid',
        dispatch: dispatch(),
      });
      expect(l.value.events).toEqual([]);
      expect(l.value.handoff_cache).toBe('absent');
      expect(await store.listRuns()).toEqual([c.run_id]);
    });

    it('two runs of the same task in the same second are two runs (random id suffix)', async () => {
      const store = await h.make();
      const a = await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid' });
      const b = await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid' });
      expect([a.outcome, b.outcome]).toEqual(['committed', 'committed']);
      expect(a.run_id).not.toBe(b.run_id);
      expect([...(await store.listRuns())].sort()).toEqual([a.run_id, b.run_id].sort());
    });

    it('an id that exists is refused (run_exists) and nothing is overwritten', async () => {
      const store = await h.make({ runIdSuffix: () => '0a1b2c3d' });
      const c = await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid' });
      expect(c).toMatchObject({ outcome: 'committed', run_id: '20261130T100000Z-0a1b2c3d' });
      expect(await store.createRun({ dispatch: dispatch(), trackerSessionId: 'other' })).toMatchObject({
        outcome: 'nothing_written',
        code: 'run_exists',
      });
      const l = await store.load(c.run_id as string);
      expect(l.ok && l.value.manifest.tracker_session_id).toBe('sid');
      expect(await store.listRuns()).toEqual([c.run_id]);
    });

    it('appends every kind with dense seqs and resolvable cites', async () => {
      const store = await h.make();
      const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
      const kinds: [Parameters<Store['append']>[1], unknown][] = [
        ['note', note()],
        ['review', stuckReview()],
        ['review', batchReview()],
        ['replan', replan([`${id}#1`, `${id}#2`])],
        ['dispatch', dispatch()],
        ['handoff', stuckHandoff()],
      ];
      for (const [i, [kind, payload]] of kinds.entries()) {
        expect(await store.append(id, kind, payload)).toMatchObject({
          outcome: 'committed',
          run_id: id,
          seq: i + 1,
        });
      }
      expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'committed', seq: 7 });
      const l = await store.load(id);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(l.value.events.map((e) => e.payload)).toEqual([...kinds.map(([, p]) => p), solvedHandoff()]);
      expect(l.value.effective_handoff?.seq).toBe(7);
      expect(l.value.handoff_cache).toBe('current');
      expect(l.value.damaged).toBe(false);
      for (let seq = 1; seq <= 7; seq++) expect(resolveCite(l.value, `${id}#${seq}`).ok).toBe(true);
      expect(resolveCite(l.value, `${id}#8`).ok).toBe(false);
    });

    it('refuses before writing: invalid payloads, v2 kinds in v1 runs, bad cites, bad ids, unknown runs', async () => {
      const store = await h.make();
      const v1 = (await store.createRun({ dispatch: dispatch(), eventSchema: 'v1' })).run_id as string;
      const v2 = (await store.createRun({ dispatch: dispatch(), trackerSessionId: 'x' })).run_id as string;
      expect(await store.append(v1, 'replan', replan())).toMatchObject({ code: 'kind_unsupported' });
      expect(await store.append(v2, 'note', { kind: 'note', text: 'x', lean: null })).toMatchObject({
        code: 'invalid_payload',
      });
      expect(await store.append(v2, 'replan', replan([`${v2}#1`]))).toMatchObject({
        code: 'invalid_payload',
      });
      expect(await store.append(v2, 'replan', replan([`${v1}#1`]))).toMatchObject({
        code: 'invalid_payload',
      });
      expect(await store.setHandoff(v2, { ...solvedHandoff(), status: 'stuck' })).toMatchObject({
        code: 'invalid_payload',
      });
      expect(await store.append('../etc', 'note', note())).toMatchObject({ code: 'bad_run_id' });
      expect(await store.append('20261130T100000Z-00000000', 'note', note())).toMatchObject({
        outcome: 'nothing_written',
      });
      expect(await store.createRun({ dispatch: {} })).toMatchObject({ code: 'invalid_dispatch' });
      for (const id of [v1, v2]) {
        const l = await store.load(id);
        expect(l.ok && l.value.events.length).toBe(0);
      }
    });

    it('refuses records nested deeper than MAX_RECORD_DEPTH on every write and is never poisoned by them', async () => {
      // the process has serialized deep values before (warm, optimized writers go deeper)
      for (let i = 0; i < 3; i++) {
        canonicalJson(reviewOfDepth(4_200));
        fastCanonicalJsonUtf8(reviewOfDepth(4_200));
      }
      const store = await h.make();
      const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
      expect(await store.append(id, 'note', note('before'))).toMatchObject({ outcome: 'committed', seq: 1 });
      const tooDeep = {
        outcome: 'nothing_written',
        code: 'invalid_payload',
        detail: expect.stringMatching(/nests deeper than 64/),
      };
      for (const depth of [MAX_RECORD_DEPTH + 1, 4_200, 100_000]) {
        expect(await store.append(id, 'review', reviewOfDepth(depth))).toMatchObject(tooDeep);
      }
      expect(await store.append(id, 'dispatch', { ...dispatch(), parameters: nest(100_000) })).toMatchObject(
        tooDeep,
      );
      expect(await store.setHandoff(id, { ...solvedHandoff(), stop_detail: nest(100_000) })).toMatchObject(
        tooDeep,
      );
      expect(
        await store.createRun({
          dispatch: { ...dispatch(), parameters: nest(100_000) },
          trackerSessionId: 'deep',
        }),
      ).toMatchObject({
        outcome: 'nothing_written',
        code: 'invalid_dispatch',
        detail: expect.stringMatching(/nests deeper/),
      });
      // a review exactly at the limit is committed and reads back whole
      const atLimit = reviewOfDepth(MAX_RECORD_DEPTH);
      expect(await store.append(id, 'review', atLimit)).toMatchObject({ outcome: 'committed', seq: 2 });
      expect(await store.append(id, 'note', note('after'))).toMatchObject({ outcome: 'committed', seq: 3 });
      const l = await store.load(id);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.damaged).toBe(false);
      expect(l.value.events.map((e) => e.kind)).toEqual(['note', 'review', 'note']);
      expect(canonicalJson(l.value.events[1]?.payload)).toBe(canonicalJson(atLimit));
      expect(await store.listRuns()).toEqual([id]);
    });

    it('keeps non-ASCII text as given (Lean goals, astral, U+2028, controls) and refuses what UTF-8 cannot encode', async () => {
      const store = await h.make();
      const d = dispatch();
      const goal = 'a b : ℕ\nh : a < b\n⊢ a ≤ b 😀';
      const id = (await store.createRun({ dispatch: { ...d, context: { ...d.context, goal_state: goal } } }))
        .run_id as string;
      const text = 'closes ⊢ a ≤ b; 😀 ﬀ; \u2028; \u0001\u007f; "q" \\ /';
      expect(await store.append(id, 'note', note(text))).toMatchObject({ outcome: 'committed', seq: 1 });
      const unencodable = {
        outcome: 'nothing_written',
        code: 'invalid_payload',
        detail: expect.stringMatching(/lone surrogate/),
      };
      expect(await store.append(id, 'note', note('half \ud83d'))).toMatchObject(unencodable);
      expect(
        await store.setHandoff(id, { ...solvedHandoff(), attempted_tools: ['lean\udc00'] }),
      ).toMatchObject(unencodable);
      expect(
        await store.createRun({
          dispatch: { ...d, context: { ...d.context, goal_state: '\udc00' } },
          trackerSessionId: 'x',
        }),
      ).toMatchObject({ outcome: 'nothing_written', code: 'invalid_dispatch' });
      expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'committed', seq: 2 });
      const l = await store.load(id);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.manifest.dispatch.context.goal_state).toBe(goal);
      expect((l.value.events[0]?.payload as { text?: string } | undefined)?.text).toBe(text);
      expect([l.value.damaged, l.value.damage, l.value.warnings, l.value.handoff_cache]).toEqual([
        false,
        null,
        [],
        'current',
      ]);
      expect(await store.listRuns()).toEqual([id]);
    });

    it('a held lock is busy for mutations, visible to isLocked, and invisible to readers', async () => {
      const store = await h.make();
      const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
      expect(await store.isLocked(id)).toBe(false);
      await h.holdLock(store, id, true);
      expect(await store.isLocked(id)).toBe(true);
      expect(await store.append(id, 'note', note())).toMatchObject({
        outcome: 'nothing_written',
        code: 'busy',
      });
      expect((await store.load(id)).ok).toBe(true);
      await h.holdLock(store, id, false);
      expect(await store.append(id, 'note', note())).toMatchObject({ outcome: 'committed', seq: 1 });
    });

    const batchCaps = h.capabilities ?? {};
    const batchDescribe = batchCaps.appendBatch === true ? describe : describe.skip;
    const recordsIt = batchCaps.readBatches === true ? it : it.skip;

    batchDescribe('group commit (appendBatch)', () => {
      it('commits a batch after plain appends: dense seqs, first_seq/seq, a replan citing an earlier event of the batch', async () => {
        const store = await h.make();
        const batch = batchOf(store);
        const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
        expect(await store.append(id, 'note', note('before'))).toMatchObject({
          outcome: 'committed',
          seq: 1,
        });
        const r = await batch(id, [
          { kind: 'dispatch', payload: dispatch() },
          { kind: 'handoff', payload: stuckHandoff() },
          { kind: 'review', payload: stuckReview() },
          { kind: 'replan', payload: replan([`${id}#1`, `${id}#3`, `${id}#4`]) },
        ]);
        expect(r).toMatchObject({
          schema: 'run-store-result/v1',
          outcome: 'committed',
          run_id: id,
          first_seq: 2,
          seq: 5,
        });
        expect(await store.append(id, 'note', note('after'))).toMatchObject({ outcome: 'committed', seq: 6 });
        const l = await store.load(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.events.map((e) => [e.seq, e.kind])).toEqual([
          [1, 'note'],
          [2, 'dispatch'],
          [3, 'handoff'],
          [4, 'review'],
          [5, 'replan'],
          [6, 'note'],
        ]);
        expect(l.value.events[3]?.payload).toEqual(stuckReview());
        expect([l.value.damaged, l.value.damage, l.value.warnings]).toEqual([false, null, []]);
        // a handoff in a batch is a handoff event, and the cache is refreshed with it
        expect(l.value.effective_handoff?.seq).toBe(3);
        expect(l.value.handoff_cache).toBe('current');
        for (let seq = 1; seq <= 6; seq++) expect(resolveCite(l.value, `${id}#${seq}`).ok).toBe(true);
      });

      it('refuses the whole batch before writing: the first bad entry names its code and index', async () => {
        const store = await h.make();
        const batch = batchOf(store);
        const v1 = (await store.createRun({ dispatch: dispatch(), eventSchema: 'v1' })).run_id as string;
        const id = (await store.createRun({ dispatch: dispatch(), trackerSessionId: 'x' })).run_id as string;
        expect(await store.append(id, 'note', note('a'))).toMatchObject({ seq: 1 });
        const nothing = (code: string, index?: number) => ({
          outcome: 'nothing_written',
          code,
          ...(index === undefined ? {} : { detail: expect.stringContaining(`entries[${index}]`) }),
        });
        expect(await batch(id, [])).toMatchObject(nothing('invalid_payload'));
        expect(
          await batch(id, [
            { kind: 'note', payload: note('b') },
            { kind: 'note', payload: note('c') },
            { kind: 'note', payload: { kind: 'note', text: 'x', lean: null } },
            { kind: 'review', payload: reviewOfDepth(MAX_RECORD_DEPTH + 1) },
          ]),
        ).toMatchObject(nothing('invalid_payload', 2));
        // a cite of the batch's own seq or a later one is refused (seq 3 cites 3)
        expect(
          await batch(id, [
            { kind: 'note', payload: note('b') },
            { kind: 'replan', payload: replan([`${id}#3`]) },
          ]),
        ).toMatchObject(nothing('invalid_payload', 1));
        expect(await batch(id, [{ kind: 'note', payload: note('half \ud83d') }])).toMatchObject(
          nothing('invalid_payload', 0),
        );
        expect(
          await batch(v1, [
            { kind: 'note', payload: note('b') },
            { kind: 'review', payload: batchReview() },
          ]),
        ).toMatchObject(nothing('kind_unsupported', 1));
        expect(
          await batch(id, [{ kind: 'note', payload: note('b') }], {
            trace: [{ machine: 'cycle', from: 'a', event: 'GO' } as never],
          }),
        ).toMatchObject(nothing('invalid_payload'));
        // a lone surrogate in a trace step cannot be written as canonical JSON (a pair can)
        const lone = await batch(id, [{ kind: 'note', payload: note('b') }], {
          trace: [{ machine: 'cycle', from: 'a', event: 'GO \udc00', to: 'b' }],
        });
        expect(lone).toMatchObject(nothing('invalid_payload'));
        expect(lone.detail).toMatch(/trace\[0\]: event holds a lone surrogate/);
        expect(await batch('../etc', [{ kind: 'note', payload: note() }])).toMatchObject(
          nothing('bad_run_id'),
        );
        expect(await batch('20261130T100000Z-00000000', [{ kind: 'note', payload: note() }])).toMatchObject({
          outcome: 'nothing_written',
        });
        for (const [run, n] of [
          [id, 1],
          [v1, 0],
        ] as const) {
          const l = await store.load(run);
          if (!l.ok) throw new Error(l.detail);
          expect(l.value.events.length).toBe(n);
          expect(l.value.damaged).toBe(false);
        }
        expect(
          await batch(id, [
            { kind: 'note', payload: note('b') },
            { kind: 'note', payload: note('c') },
          ]),
        ).toMatchObject({
          outcome: 'committed',
          first_seq: 2,
          seq: 3,
        });
      });

      it('a held lock makes a batch busy; nothing is written and the lock is never broken', async () => {
        const store = await h.make();
        const batch = batchOf(store);
        const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
        await h.holdLock(store, id, true);
        expect(
          await batch(id, [
            { kind: 'note', payload: note('a') },
            { kind: 'note', payload: note('b') },
          ]),
        ).toMatchObject({ outcome: 'nothing_written', code: 'busy' });
        expect(await store.isLocked(id)).toBe(true);
        const l = await store.load(id);
        expect(l.ok && l.value.events.length).toBe(0);
        await h.holdLock(store, id, false);
        expect(await batch(id, [{ kind: 'note', payload: note('a') }])).toMatchObject({
          outcome: 'committed',
          first_seq: 1,
          seq: 1,
        });
      });

      it('a one-event batch is an append; non-ASCII payloads and traces are kept as given', async () => {
        const store = await h.make();
        const batch = batchOf(store);
        const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
        const text = 'closes ⊢ a ≤ b; 😀 \u2028';
        expect(await batch(id, [{ kind: 'note', payload: note(text) }])).toMatchObject({
          first_seq: 1,
          seq: 1,
        });
        expect(await batch(id, [{ kind: 'note', payload: note('traced') }], { trace: TRACE })).toMatchObject({
          first_seq: 2,
          seq: 2,
        });
        const l = await store.load(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.events[0]?.payload).toEqual(note(text));
        expect(l.value.events.map((e) => e.seq)).toEqual([1, 2]);
      });

      recordsIt(
        'records each batch of ≥ 2 events or with a trace: seqs, sha256 of its journal lines, trace',
        async () => {
          const store = await h.make();
          const batch = batchOf(store);
          const read = readBatchesOf(store);
          const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
          const none = await read(id);
          if (!none.ok) throw new Error(none.detail);
          expect(none.value).toEqual({
            schema: 'run-store-batches/v1',
            run_id: id,
            batches: [],
            warnings: [],
          });
          await batch(id, [{ kind: 'note', payload: note('plain') }]); // seq 1: no record
          await store.append(id, 'note', note('append')); // seq 2
          await batch(id, [
            { kind: 'note', payload: note('b1') },
            { kind: 'note', payload: note('b2') },
            { kind: 'note', payload: note('b3') },
          ]); // 3..5
          await batch(id, [{ kind: 'handoff', payload: stuckHandoff() }], { trace: TRACE }); // 6
          const b = await read(id);
          if (!b.ok) throw new Error(b.detail);
          const l = await store.load(id);
          if (!l.ok) throw new Error(l.detail);
          const sha = (f: number, t: number) =>
            sha256Hex(
              Buffer.from(
                l.value.events
                  .slice(f - 1, t)
                  .map(lineOf)
                  .join(''),
                'utf8',
              ),
            );
          expect(b.value.warnings).toEqual([]);
          expect(b.value.batches.map(({ line: _line, ...x }) => x)).toEqual([
            { first_seq: 3, last_seq: 5, count: 3, sha256: sha(3, 5), trace: [], status: 'complete' },
            { first_seq: 6, last_seq: 6, count: 1, sha256: sha(6, 6), trace: TRACE, status: 'complete' },
          ]);
          expect(await read('../x')).toMatchObject({ ok: false, code: 'bad_run_id' });
          expect(await read('20261130T100000Z-00000000')).toMatchObject({ ok: false });
        },
      );

      it('chain runs: a batch of baton commits chains within the batch; one out of sequence refuses it all', async () => {
        const store = await h.make();
        if (!isChainRunStore(store)) throw new Error(`${name} holds no chain runs`);
        const batch = batchOf(store);
        const { batons } = await chainCommits();
        const commit = (b: Baton) => ({ baton: b, receipt: b.stage_receipts.at(-1) as StageReceipt });
        const id = (await store.createChainRun(chainRunInput(batons[0] as Baton))).run_id as string;
        expect(
          await batch(id, [
            { kind: 'baton-commit', payload: commit(batons[1] as Baton) },
            { kind: 'baton-commit', payload: commit(batons[3] as Baton) },
          ]),
        ).toMatchObject({
          outcome: 'nothing_written',
          code: 'baton_out_of_sequence',
          detail: expect.stringContaining('entries[1]'),
        });
        expect(
          await batch(id, [
            { kind: 'baton-commit', payload: commit(batons[1] as Baton) },
            { kind: 'baton-commit', payload: commit(batons[2] as Baton) },
          ]),
        ).toMatchObject({ outcome: 'committed', first_seq: 1, seq: 2 });
        expect(await store.append(id, 'baton-commit', commit(batons[3] as Baton))).toMatchObject({ seq: 3 });
        const l = await store.loadRun(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.events.map((e) => e.seq)).toEqual([1, 2, 3]);
        expect(l.value.damaged).toBe(false);
      });
    });

    describe('chain runs (run-store-manifest/chain-v1, baton-commit)', () => {
      const chainStore = async (options?: { runIdSuffix?: () => string }): Promise<ChainRunStore> => {
        const store = await h.make(options);
        if (!isChainRunStore(store)) throw new Error(`${name} holds no chain runs`);
        return store;
      };
      const commit = (b: Baton) => ({ baton: b, receipt: b.stage_receipts.at(-1) as StageReceipt });

      it('creates a chain run whose manifest holds the contract, stages and start baton; commits chain by seq', async () => {
        // a fixed run-id suffix, so a second create of the same id is refused (run_exists)
        const store = await chainStore({ runIdSuffix: () => 'c4a1b2d3' });
        const { batons } = await chainCommits();
        const c = await store.createChainRun(chainRunInput(batons[0] as Baton));
        expect(c).toMatchObject({ schema: 'run-store-result/v1', outcome: 'committed' });
        const id = c.run_id as string;
        expect(id).toBe('20261130T100000Z-c4a1b2d3');
        for (const [i, b] of batons.slice(1).entries()) {
          expect(await store.append(id, 'baton-commit', commit(b))).toMatchObject({
            outcome: 'committed',
            run_id: id,
            seq: i + 1,
          });
        }
        const l = await store.loadRun(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.event_schema).toBe('run-store-event/chain-v1');
        expect(l.value.manifest).toMatchObject({
          schema: 'run-store-manifest/chain-v1',
          run_id: id,
          chain_id: 'trip-chain',
          baton_id: 'trip-1',
          contract_digest: batons[0]?.contract_digest,
          stages: ['intent', 'route', 'pay'],
          prior_run: null,
          event_schema: 'run-store-event/chain-v1',
        });
        expect(l.value.events.map((e) => [e.seq, e.kind])).toEqual([
          [1, 'baton-commit'],
          [2, 'baton-commit'],
          [3, 'baton-commit'],
        ]);
        expect(l.value.events.map((e) => (e.payload as { baton: Baton }).baton.fingerprint)).toEqual(
          batons.slice(1).map((b) => b.fingerprint),
        );
        expect('last_baton' in l.value && l.value.last_baton.snapshot_id).toBe(batons[3]?.snapshot_id);
        expect(l.value.damaged).toBe(false);
        expect(await store.listRuns()).toEqual([id]);
        // the run-contract load keeps its type: a chain run is not a run-contract run
        expect(await store.load(id)).toMatchObject({ ok: false, code: 'kind_unsupported' });
        expect(await store.createChainRun(chainRunInput(batons[0] as Baton))).toMatchObject({
          outcome: 'nothing_written',
          code: 'run_exists',
        });
      });

      it('refuses before writing: out-of-sequence commits, foreign batons, wrong kinds, bad manifests', async () => {
        const store = await chainStore();
        const { batons, otherBatons } = await chainCommits();
        const id = (await store.createChainRun(chainRunInput(batons[0] as Baton))).run_id as string;
        const b1 = batons[1] as Baton;
        const b2 = batons[2] as Baton;
        // revision 2 cannot follow the start baton (revision 0)
        expect(await store.append(id, 'baton-commit', commit(b2))).toMatchObject({
          outcome: 'nothing_written',
          code: 'baton_out_of_sequence',
        });
        expect(await store.append(id, 'baton-commit', commit(b1))).toMatchObject({
          outcome: 'committed',
          seq: 1,
        });
        // the same commit again does not follow revision 1
        expect(await store.append(id, 'baton-commit', commit(b1))).toMatchObject({
          code: 'baton_out_of_sequence',
        });
        // r2 whose carried-forward receipt of r1 was altered (receipts are outside the fingerprint)
        const forged = {
          ...b2,
          stage_receipts: [
            { ...(b2.stage_receipts[0] as StageReceipt), evidence_refs: ['forged://x'] },
            b2.stage_receipts[1],
          ],
        };
        expect(
          await store.append(id, 'baton-commit', { baton: forged, receipt: b2.stage_receipts[1] }),
        ).toMatchObject({
          code: 'baton_out_of_sequence',
        });
        expect(await store.append(id, 'baton-commit', commit(b2))).toMatchObject({
          outcome: 'committed',
          seq: 2,
        });
        // revision 3 of a different history (another route value) does not start from our r2
        expect(await store.append(id, 'baton-commit', commit(otherBatons[3] as Baton))).toMatchObject({
          code: 'baton_out_of_sequence',
        });
        const b3 = batons[3] as Baton;
        // receipt not the baton's own, tampered fingerprint, missing receipt
        expect(
          await store.append(id, 'baton-commit', { baton: b3, receipt: b1.stage_receipts[0] }),
        ).toMatchObject({ code: 'invalid_payload' });
        expect(
          await store.append(id, 'baton-commit', {
            ...commit(b2),
            baton: { ...b2, fingerprint: '0'.repeat(16) },
          }),
        ).toMatchObject({ code: 'invalid_payload' });
        expect(await store.append(id, 'baton-commit', { baton: b2 })).toMatchObject({
          code: 'invalid_payload',
        });
        // run-contract kinds are not chain kinds, and the reverse
        expect(await store.append(id, 'note', note())).toMatchObject({ code: 'kind_unsupported' });
        expect(await store.setHandoff(id, solvedHandoff())).toMatchObject({ code: 'kind_unsupported' });
        const contractRun = (await store.createRun({ dispatch: dispatch() })).run_id as string;
        expect(await store.append(contractRun, 'baton-commit', commit(b2))).toMatchObject({
          code: 'kind_unsupported',
        });
        // a start baton of another contract, a blank chain id, a bad timestamp
        const bad = chainRunInput(batons[0] as Baton);
        expect(
          await store.createChainRun({
            ...bad,
            startBaton: otherBatons[0],
            contract: { ...(bad.contract as object), version: 9 },
          }),
        ).toMatchObject({
          code: 'invalid_payload',
        });
        expect(await store.createChainRun({ ...bad, chainId: ' ' })).toMatchObject({
          code: 'invalid_payload',
        });
        expect(await store.createChainRun({ ...bad, now: 'yesterday' })).toMatchObject({
          code: 'bad_timestamp',
        });
        expect(
          await store.createChainRun({
            ...chainRunInput(batons[2] as Baton),
            stages: ['route', 'intent', 'pay'],
            now: '2026-11-30T10:09:00Z',
          }),
        ).toMatchObject({ code: 'invalid_payload' });
        const l = await store.loadRun(id);
        expect(l.ok && l.value.events.length).toBe(2);
        expect((await store.loadRun(contractRun)).ok && (await store.load(contractRun)).ok).toBe(true);
      });

      it('refuses baton commits and chain runs nested deeper than MAX_RECORD_DEPTH; the run stays usable', async () => {
        const store = await chainStore();
        const { batons } = await chainCommits();
        const b0 = batons[0] as Baton;
        const b1 = batons[1] as Baton;
        const id = (await store.createChainRun(chainRunInput(b0))).run_id as string;
        const deepB1 = { ...b1, records: [{ ...(b1.records[0] as object), value: nest(100_000) }] };
        expect(await store.append(id, 'baton-commit', { ...commit(b1), baton: deepB1 })).toMatchObject({
          outcome: 'nothing_written',
          code: 'invalid_payload',
          detail: expect.stringMatching(/baton: nests deeper than 64/),
        });
        const input = chainRunInput(b0);
        expect(
          await store.createChainRun({
            ...input,
            startBaton: { ...b0, intent: nest(100_000) },
            now: '2026-11-30T10:01:00Z',
          }),
        ).toMatchObject({ code: 'invalid_payload', detail: expect.stringMatching(/nests deeper/) });
        expect(
          await store.createChainRun({ ...input, contract: nest(100_000), now: '2026-11-30T10:02:00Z' }),
        ).toMatchObject({ code: 'invalid_payload', detail: expect.stringMatching(/nests deeper/) });
        expect(await store.append(id, 'baton-commit', commit(b1))).toMatchObject({
          outcome: 'committed',
          seq: 1,
        });
        const l = await store.loadRun(id);
        expect(l.ok && l.value.damaged).toBe(false);
        expect(l.ok && l.value.events.length).toBe(1);
      });

      it('a held lock makes baton commits busy; the lock is never broken', async () => {
        const store = await chainStore();
        const { batons } = await chainCommits();
        const id = (await store.createChainRun(chainRunInput(batons[0] as Baton))).run_id as string;
        await h.holdLock(store, id, true);
        expect(await store.isLocked(id)).toBe(true);
        expect(await store.append(id, 'baton-commit', commit(batons[1] as Baton))).toMatchObject({
          outcome: 'nothing_written',
          code: 'busy',
        });
        expect(await store.isLocked(id)).toBe(true);
        expect((await store.loadRun(id)).ok).toBe(true);
        await h.holdLock(store, id, false);
        expect(await store.append(id, 'baton-commit', commit(batons[1] as Baton))).toMatchObject({
          outcome: 'committed',
          seq: 1,
        });
      });

      it('a chain run may start from a checkpoint and name the run it continues', async () => {
        const store = await chainStore();
        const { batons } = await chainCommits();
        const first = (await store.createChainRun(chainRunInput(batons[0] as Baton))).run_id as string;
        const c = await store.createChainRun({
          ...chainRunInput(batons[2] as Baton),
          priorRun: first,
          now: '2026-11-30T10:05:00Z',
        });
        expect(c.outcome).toBe('committed');
        const id = c.run_id as string;
        expect(await store.append(id, 'baton-commit', commit(batons[3] as Baton))).toMatchObject({ seq: 1 });
        const l = await store.loadRun(id);
        if (!l.ok) throw new Error(l.detail);
        expect(l.value.manifest).toMatchObject({ prior_run: first, start_baton: { revision: 2 } });
        expect(l.value.events).toHaveLength(1);
      });
    });
  });
}
