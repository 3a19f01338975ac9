/**
 * Journaling a delegation (layer 3, effects): the dispatch becomes a run's manifest before the
 * worker runs, the handoff its `handoff` event after the checks, cited `<run_id>#<seq>`
 * (src/store `formatCite`). A store answers with outcomes, never throws; a store that throws
 * anyway is answered as an `indeterminate` result.
 */
import type { Dispatch, Handoff } from '../contract/index.js';
import {
  formatCite,
  isBatchStore,
  type Store,
  type StoreResult,
  storeResult,
  type TraceStep,
} from '../store/index.js';
import { describeThrown } from './describe-thrown.js';

/**
 * A created run, or the store's refusal.
 *
 * @example
 * ```ts
 * const j: JournaledDispatch = await journalDispatch(store, dispatch); if (j.ok) j.runId;
 * ```
 */
export type JournaledDispatch =
  | { readonly ok: true; readonly runId: string; readonly result: StoreResult }
  | { readonly ok: false; readonly result: StoreResult };

/**
 * The store's answer to the handoff, with its cite when the event is in the journal.
 *
 * @example
 * ```ts
 * const { cite, result }: JournaledHandoff = await journalHandoff(store, runId, handoff);
 * ```
 */
export interface JournaledHandoff {
  readonly result: StoreResult;
  readonly cite?: string;
}

/**
 * Creates the run of a delegation: its manifest holds the dispatch (cite `<run_id>#manifest`).
 *
 * @example
 * ```ts
 * const j = await journalDispatch(store, dispatch); // { ok: true, runId: '20261130T100000Z-0a1b2c3d', … }
 * ```
 */
export async function journalDispatch(store: Store, dispatch: Dispatch): Promise<JournaledDispatch> {
  let r: StoreResult;
  try {
    r = await store.createRun({ dispatch, trackerSessionId: null });
  } catch (e) {
    return {
      ok: false,
      result: storeResult('indeterminate', null, { detail: `the store threw: ${describeThrown(e)}` }),
    };
  }
  return r.outcome === 'committed' && typeof r.run_id === 'string'
    ? { ok: true, runId: r.run_id, result: r }
    : { ok: false, result: r };
}

/**
 * Appends the delegation's handoff to its run — with the delegation machine's transitions as its
 * batch trace (`appendBatch`) when there are any and the store keeps batches, else `setHandoff`;
 * the cite is set when the event is in the journal (`committed`, or `journal_only` when only the
 * disposable cache failed).
 *
 * @example
 * ```ts
 * (await journalHandoff(store, runId, handoff, trace.take())).cite; // '20261130T100000Z-0a1b2c3d#1'
 * ```
 */
export async function journalHandoff(
  store: Store,
  runId: string,
  handoff: Handoff,
  trace: readonly TraceStep[] = [],
): Promise<JournaledHandoff> {
  let r: StoreResult;
  try {
    r =
      trace.length > 0 && isBatchStore(store)
        ? await store.appendBatch(runId, [{ kind: 'handoff', payload: handoff }], { trace })
        : await store.setHandoff(runId, handoff);
  } catch (e) {
    return {
      result: storeResult('indeterminate', runId, { detail: `the store threw: ${describeThrown(e)}` }),
    };
  }
  const stored = (r.outcome === 'committed' || r.outcome === 'journal_only') && typeof r.seq === 'number';
  return stored ? { result: r, cite: formatCite(runId, r.seq as number) } : { result: r };
}

export { storeRefusal } from './store-refusal.js';
