/**
 * Journaling a delegation (layer 3, effects): the dispatch becomes a run's manifest before the
 * worker runs, the handoff its `handoff` event after the checks, cited `<run_id>#<seq>`
 * (src/store `formatCite`). A store answers with outcomes, never throws; a store that throws
 * anyway is answered as an `indeterminate` result.
 */
import type { Dispatch, Handoff } from '../contract/index.js';
import { formatCite, type Store, type StoreResult, storeResult } from '../store/index.js';
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
 * Appends the delegation's handoff to its run (`setHandoff`); the cite is set when the event is in
 * the journal (`committed`, or `journal_only` when only the disposable cache failed).
 *
 * @example
 * ```ts
 * (await journalHandoff(store, runId, handoff)).cite; // '20261130T100000Z-0a1b2c3d#1'
 * ```
 */
export async function journalHandoff(
  store: Store,
  runId: string,
  handoff: Handoff,
): Promise<JournaledHandoff> {
  let r: StoreResult;
  try {
    r = await store.setHandoff(runId, handoff);
  } catch (e) {
    return {
      result: storeResult('indeterminate', runId, { detail: `the store threw: ${describeThrown(e)}` }),
    };
  }
  const stored = (r.outcome === 'committed' || r.outcome === 'journal_only') && typeof r.seq === 'number';
  return stored ? { result: r, cite: formatCite(runId, r.seq as number) } : { result: r };
}

/**
 * One line naming a store's refusal, for a stop detail.
 *
 * @example
 * ```ts
 * storeRefusal({ outcome: 'nothing_written', code: 'busy', detail: 'run is locked' }); // 'nothing_written (busy): run is locked'
 * ```
 */
export function storeRefusal(r: Pick<StoreResult, 'outcome' | 'code' | 'detail'>): string {
  return `${r.outcome}${r.code === undefined ? '' : ` (${r.code})`}${r.detail === undefined ? '' : `: ${r.detail}`}`;
}
