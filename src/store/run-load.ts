/**
 * Assembling a `run-store-load/v1` result from its parts (pure), shared by every backend.
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
  RunLoad,
} from './store.js';

/** The fixed `note` of a load result. */
export const LOAD_NOTE =
  'historical evidence, not certification: the manifest and the validated journal prefix as observed at load time';

/**
 * The cache state: `absent` without a cache, `current` when it equals the last handoff event
 * (same seq, same canonical payload), `stale` otherwise.
 *
 * @example
 * ```ts
 * cacheState(null, events); // 'absent'
 * ```
 */
export function cacheState(
  cache: HandoffCache | null | 'invalid',
  effective: StoreEvent | null,
): HandoffCacheState {
  if (cache === null) return 'absent';
  if (cache === 'invalid' || effective === null) return 'stale';
  return cache.seq === effective.seq && canonicalJson(cache.payload) === canonicalJson(effective.payload)
    ? 'current'
    : 'stale';
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
  extraWarnings: readonly string[] = [],
): RunLoad {
  let effective: StoreEvent | null = null;
  for (let i = events.length - 1; i >= 0; i--) {
    const e = events[i] as StoreEvent;
    if (e.kind === 'handoff') {
      effective = e;
      break;
    }
  }
  const state = cacheState(cache, effective);
  const warnings = [...extraWarnings];
  if (state === 'stale') warnings.push('handoff_cache_stale');
  if (damaged !== null) warnings.push(damaged.code);
  return {
    schema: 'run-store-load/v1',
    run_id: manifest.run_id,
    event_schema: eventSchemaOf(manifest),
    manifest,
    events,
    effective_handoff: effective,
    handoff_cache: state,
    damaged,
    warnings,
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
  extraWarnings: readonly string[] = [],
): ChainRunLoad {
  const warnings = [...extraWarnings];
  if (damaged !== null) warnings.push(damaged.code);
  return {
    schema: 'run-store-load/v1',
    run_id: manifest.run_id,
    event_schema: CHAIN_EVENT_SCHEMA,
    manifest,
    events,
    last_baton: events[events.length - 1]?.payload.baton ?? manifest.start_baton,
    effective_handoff: null,
    handoff_cache: 'absent',
    damaged,
    warnings,
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
