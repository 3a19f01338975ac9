/**
 * The Store contract suite: the behaviour every backend (memory, fs, and later PostgreSQL) must
 * show through the `Store` interface alone. A backend registers with `describeStoreContract`.
 */
import { describe, expect, it } from 'vitest';
import { resolveCite, type Store } from '../../src/store/index.js';
import { batchReview, dispatch, note, replan, solvedHandoff, stuckHandoff, stuckReview } from './fixtures.js';

/** What a backend provides to the suite. */
export interface StoreHarness {
  /** A fresh, empty store whose clock reads 2026-11-30T10:00:00Z. */
  make(): Promise<Store>;
  /** Makes the run's lock appear held by someone else (true) or released (false). */
  holdLock(store: Store, runId: string, held: boolean): Promise<void>;
}

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
      expect(await store.createRun({ dispatch: dispatch(), trackerSessionId: 'sid' })).toMatchObject({
        outcome: 'nothing_written',
        code: 'run_exists',
      });
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
      expect(l.value.damaged).toBeNull();
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
  });
}
