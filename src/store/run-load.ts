/**
 * Assembling a `run-store-load/v1` result from its parts (pure), shared by every backend. The shape
 * is the reference's: `damaged` a boolean, `warnings` objects `{code, line?, …}` in the reference's
 * order (the journal's defect, then the cache), a missing cache while the journal holds a handoff
 * `stale`; this store adds `damage` (the defect's detail, or null) and the
 * `storage_root_differs` warning (last).
 */
import { canonicalJson } from '../canonical/index.js';
import { CHAIN_EVENT_SCHEMA, type ChainManifest, type ChainStoreEvent } from './chain-schema.js';
import { eventSchemaOf, type HandoffCache, type Manifest, type StoreEvent } from './schema.js';
import type {
  AnyLoadResult,
  ChainRunLoad,
  HandoffCacheState,
  JournalDamage,
  LoadResult,
  LoadWarning,
  RunLoad,
} from './store.js';

/** The fixed `note` of a load result. */
export const LOAD_NOTE =
  'historical evidence, not certification: the manifest and the validated journal prefix as observed at load time';

/**
 * The cache state and, when stale, why: `absent` without a cache and without a handoff event;
 * `current` when it equals the last handoff event (same seq, same canonical payload); `stale`
 * otherwise — unreadable or invalid, present without a handoff event, another seq or payload, or
 * missing while the journal holds a handoff (as in the reference).
 *
 * @example
 * ```ts
 * cacheState(null, null); // { state: 'absent', why: null }
 * cacheState(null, lastHandoff); // { state: 'stale', why: 'missing' }
 * ```
 */
export function cacheState(
  cache: HandoffCache | null | 'invalid',
  effective: StoreEvent | null,
): { readonly state: HandoffCacheState; readonly why: string | null } {
  if (cache === null)
    return effective === null ? { state: 'absent', why: null } : { state: 'stale', why: 'missing' };
  if (cache === 'invalid') return { state: 'stale', why: 'unreadable or not a valid run-store-handoff/v1' };
  if (effective === null)
    return { state: 'stale', why: 'cache present but no handoff in the observed journal prefix' };
  if (cache.seq !== effective.seq)
    return { state: 'stale', why: `cache seq ${cache.seq} vs journal ${effective.seq}` };
  return canonicalJson(cache.payload) === canonicalJson(effective.payload)
    ? { state: 'current', why: null }
    : { state: 'stale', why: `cache payload differs from the handoff at seq ${effective.seq}` };
}

/** The journal's defect as a warning of the reference's shape. */
function damageWarning(d: JournalDamage): LoadWarning {
  return d.code === 'truncated_tail' && d.bytes !== undefined
    ? { code: d.code, line: d.line, bytes: d.bytes, detail: d.detail }
    : { code: d.code, line: d.line, detail: d.detail };
}

/**
 * The load's warnings in the reference's order: the journal's defect, the cache (`why` when it is
 * stale), then this store's extras.
 */
function loadWarnings(
  damaged: JournalDamage | null,
  staleWhy: string | null,
  extra: readonly LoadWarning[],
): LoadWarning[] {
  const warnings: LoadWarning[] = [];
  if (damaged !== null) warnings.push(damageWarning(damaged));
  if (staleWhy !== null) warnings.push({ code: 'handoff_cache_stale', detail: staleWhy });
  warnings.push(...extra);
  return warnings;
}

/**
 * Builds the load result.
 *
 * @example
 * ```ts
 * const load = assembleLoad(manifest, events, null, null);
 * load.effective_handoff; // last handoff event or null
 * ```
 */
export function assembleLoad(
  manifest: Manifest,
  events: readonly StoreEvent[],
  damaged: JournalDamage | null,
  cache: HandoffCache | null | 'invalid',
  extraWarnings: readonly LoadWarning[] = [],
): RunLoad {
  let effective: StoreEvent | null = null;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as StoreEvent;
    if (e.kind === 'handoff') {
      effective = e;
      break;
    }
  }
  const { state, why } = cacheState(cache, effective);
  return {
    schema: 'run-store-load/v1',
    run_id: manifest.run_id,
    event_schema: eventSchemaOf(manifest),
    manifest,
    events,
    effective_handoff: effective,
    handoff_cache: state,
    damaged: damaged !== null,
    damage: damaged,
    warnings: loadWarnings(damaged, why, extraWarnings),
    note: LOAD_NOTE,
  };
}

/**
 * Builds the load result of a chain run.
 *
 * @example
 * ```ts
 * const load = assembleChainLoad(manifest, events, null);
 * load.last_baton.revision; // the last committed revision
 * ```
 */
export function assembleChainLoad(
  manifest: ChainManifest,
  events: readonly ChainStoreEvent[],
  damaged: JournalDamage | null,
  extraWarnings: readonly LoadWarning[] = [],
): ChainRunLoad {
  return {
    schema: 'run-store-load/v1',
    run_id: manifest.run_id,
    event_schema: CHAIN_EVENT_SCHEMA,
    manifest,
    events,
    last_baton: events[events.length - 1]?.payload.baton ?? manifest.start_baton,
    effective_handoff: null,
    handoff_cache: 'absent',
    damaged: damaged !== null,
    damage: damaged,
    warnings: loadWarnings(damaged, null, extraWarnings),
    note: LOAD_NOTE,
  };
}

/**
 * Narrows a load of any run to a run-contract load (what `Store.load` returns): a chain run is
 * refused with `kind_unsupported`; every other result passes through unchanged.
 *
 * @example
 * ```ts
 * const r = contractLoadOnly(runId, await store.loadRun(runId));
 * ```
 */
export function contractLoadOnly(runId: string, r: AnyLoadResult): LoadResult {
  if (r.ok && 'last_baton' in r.value)
    return {
      ok: false,
      code: 'kind_unsupported',
      run_id: runId,
      detail: `${runId} is a chain run (run-store-manifest/chain-v1): load it with loadRun`,
    };
  return r as LoadResult;
}

/**
 * The `storage_root_differs` warning when a manifest records another storage root than the one
 * it was loaded from (none otherwise).
 *
 * @example
 * ```ts
 * assembleLoad(manifest, events, null, cache, storageRootWarnings(manifest.storage_root, root));
 * ```
 */
export function storageRootWarnings(recorded: string, loadedFrom: string): LoadWarning[] {
  return recorded === loadedFrom
    ? []
    : [
        {
          code: 'storage_root_differs',
          detail: `the manifest records storage root ${recorded}; loaded from ${loadedFrom}`,
        },
      ];
}
