/**
 * Making a chain graph's commit durable (layer 3, effects): one journal append, described as a
 * {@link ChainGraphCommit} with its cite when the journal is the run store's.
 */
import type { Baton } from '../../chain/baton.js';
import type { ChainJournal } from '../../chain/journal.js';
import type { StoreChainJournal } from '../../chain/store-journal.js';
import { describeThrown } from '../../delegate/describe-thrown.js';
import type { ChainGraphCommit } from './chain-state.js';

function citeOf(journal: ChainJournal, baton: Baton): string | null {
  const commits = (journal as Partial<StoreChainJournal>).commits;
  if (typeof commits !== 'function') return null;
  const found = commits(baton.baton_id).findLast((c) => c.snapshot_id === baton.snapshot_id);
  return found?.cite ?? null;
}

/**
 * Appends `baton` (with its last receipt) to `journal` and says what was committed; a journal that
 * refuses (`busy`, `journal_conflict`, a store failure) gives `{ ok: false, detail }`. Never throws.
 *
 * @example
 * ```ts
 * const c = await commitToJournal(journal, commit.baton); if (c.ok) c.commit.cite; // '…#2'
 * ```
 */
export async function commitToJournal(
  journal: ChainJournal,
  baton: Baton,
): Promise<
  { readonly ok: true; readonly commit: ChainGraphCommit } | { readonly ok: false; readonly detail: string }
> {
  const receipt = baton.stage_receipts[baton.stage_receipts.length - 1] ?? null;
  try {
    await journal.commit({ baton, receipt });
  } catch (e) {
    return { ok: false, detail: `the journal did not commit ${baton.snapshot_id}: ${describeThrown(e)}` };
  }
  return { ok: true, commit: describeCommit(journal, baton) };
}

/**
 * The commit of `baton` as a chain graph reports it, with its cite when `journal` is the run
 * store's and holds it.
 *
 * @example
 * ```ts
 * describeCommit(journal, b2); // { stage: 'route', revision: 2, snapshot_id: 'trip-1::r2::…', cite: '…#2' }
 * ```
 */
export function describeCommit(journal: ChainJournal, baton: Baton): ChainGraphCommit {
  const receipt = baton.stage_receipts[baton.stage_receipts.length - 1] ?? null;
  return {
    stage: receipt?.stage_name ?? null,
    revision: baton.revision,
    snapshot_id: baton.snapshot_id,
    cite: citeOf(journal, baton),
  };
}

/**
 * Loads the journal's last commit of `batonId`; a journal that cannot be read gives
 * `{ ok: false, detail }`. Never throws.
 *
 * @example
 * ```ts
 * const l = await loadFromJournal(journal, 'trip-1'); if (l.ok) l.last?.revision;
 * ```
 */
export async function loadFromJournal(
  journal: ChainJournal,
  batonId: string,
): Promise<
  { readonly ok: true; readonly last: Baton | undefined } | { readonly ok: false; readonly detail: string }
> {
  try {
    return { ok: true, last: await journal.loadLast(batonId) };
  } catch (e) {
    return { ok: false, detail: `the journal could not be read for '${batonId}': ${describeThrown(e)}` };
  }
}
