/**
 * The `Store` interface: a durable, append-only run journal (run-store/v1) independent of where it
 * lives. The file-system backend (`createFsStore`) is the default; an in-memory backend
 * (`createMemoryStore`) serves tests; a database backend can implement the same contract.
 *
 * Contract every backend honours:
 * - Mutations (`createRun`, `append`, `setHandoff`) validate the payload before writing anything,
 *   take an exclusive per-run lock for the duration of the mutation (an existing lock is `busy`
 *   and is never broken) and return a {@link StoreResult} — they never throw for a refusal or an
 *   I/O failure.
 * - `committed` is returned only once the event is durable (written and synced). A failure after
 *   writing may have begun is `indeterminate` (with the failing `step`), never `committed`, never
 *   `nothing_written`.
 * - Seqs are dense from 1; events are never rewritten; the manifest is immutable.
 * - Readers (`load`, `listRuns`, `isLocked`) take no lock.
 */
import { STORE_CODES } from '../errors/error-codes.js';
import type { CreateChainRunInput } from './chain-rules.js';
import type { CHAIN_EVENT_SCHEMA, ChainEventKind, ChainManifest, ChainStoreEvent } from './chain-schema.js';
import type { EventKind, EventSchemaId, EventSchemaVersion, Manifest, StoreEvent } from './schema.js';

/** The four outcomes of a mutation. */
export type StoreOutcome = 'committed' | 'nothing_written' | 'journal_only' | 'indeterminate';

/**
 * Refusal codes (outcome `nothing_written`) and load failure codes: the store's list of the
 * error-code catalogue, {@link STORE_CODES}.
 */
export type StoreCode = (typeof STORE_CODES)[number];

/** Every {@link StoreCode}, for validation of foreign results (the catalogue's store list). */
export { STORE_CODES };

/** Every event kind a store accepts: the run-contract kinds and the chain kind `baton-commit`. */
export type StoreEventKind = EventKind | ChainEventKind;

/**
 * A mutation result (`run-store-result/v1`).
 * - create → `{ outcome, run_id, run_directory }` (+ `code`/`detail` when refused);
 * - append / set-handoff → `{ outcome, run_id, seq }` (+ `detail`; `seq` is the committed seq, or
 *   the seq that was being written for `indeterminate`; absent when nothing was written);
 * - `code` is set for `nothing_written`; `step` names the failing step for `indeterminate`
 *   (and for `journal_only`, the cache step that failed).
 *
 * `run_id` is null only when a create was refused before the id could be derived.
 */
export interface StoreResult {
  readonly schema: 'run-store-result/v1';
  readonly outcome: StoreOutcome;
  readonly run_id: string | null;
  readonly run_directory?: string;
  readonly seq?: number;
  readonly code?: StoreCode;
  readonly step?: string;
  readonly detail?: string;
}

/** Input of {@link Store.createRun}. */
export interface CreateRunInput {
  /** The first dispatch (run-contract/v1); validated before anything is written (`invalid_dispatch`). */
  readonly dispatch: unknown;
  /** Tracker session id, or null (guided runs have none). */
  readonly trackerSessionId?: string | null;
  /** A prior run id this run reuses, or null. Must be in the run-id format (`bad_run_id`). */
  readonly priorRun?: string | null;
  /** Creation time `YYYY-MM-DDTHH:MM:SSZ` (`bad_timestamp` otherwise); defaults to the store clock. */
  readonly now?: string;
  /** Event schema of the run: `v1` (dispatch, handoff, note) or `v2` (adds review, replan). Default `v2`. */
  readonly eventSchema?: EventSchemaVersion;
}

/** Damage found in a journal by {@link Store.load}. `line` is 1-based. */
export interface JournalDamage {
  readonly code: 'truncated_tail' | 'corrupt';
  readonly line: number;
  readonly detail: string;
}

/** State of the disposable handoff cache relative to the journal. */
export type HandoffCacheState = 'absent' | 'current' | 'stale';

/**
 * A loaded run (`run-store-load/v1`): the manifest and the valid prefix of the journal.
 * Historical evidence, not certification.
 */
export interface RunLoad {
  readonly schema: 'run-store-load/v1';
  readonly run_id: string;
  readonly event_schema: EventSchemaId;
  readonly manifest: Manifest;
  /** The valid prefix of the journal, seq 1..n. */
  readonly events: readonly StoreEvent[];
  /** The last `handoff` event of the valid prefix, or null. */
  readonly effective_handoff: StoreEvent | null;
  readonly handoff_cache: HandoffCacheState;
  /** Damage after the valid prefix, or null when the journal is whole. */
  readonly damaged: JournalDamage | null;
  /** Warnings such as `handoff_cache_stale`. */
  readonly warnings: readonly string[];
  readonly note: string;
}

/** Result of {@link Store.load}: a loaded run, or a refusal code. */
export type LoadResult =
  | { readonly ok: true; readonly value: RunLoad }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

/**
 * A loaded chain run (`run-store-load/v1` of a `run-store-manifest/chain-v1` run): the manifest,
 * the valid prefix of its `baton-commit` events and the last committed baton (the start baton when
 * there is no commit). Chain runs have no handoff: `effective_handoff` is null, the cache `absent`.
 */
export interface ChainRunLoad {
  readonly schema: 'run-store-load/v1';
  readonly run_id: string;
  readonly event_schema: typeof CHAIN_EVENT_SCHEMA;
  readonly manifest: ChainManifest;
  readonly events: readonly ChainStoreEvent[];
  /** The last committed baton of the valid prefix (the manifest's start baton without events). */
  readonly last_baton: ChainManifest['start_baton'];
  readonly effective_handoff: null;
  readonly handoff_cache: 'absent';
  readonly damaged: JournalDamage | null;
  readonly warnings: readonly string[];
  readonly note: string;
}

/** Result of {@link Store.loadRun}: a run of any kind, or a refusal code. */
export type AnyLoadResult =
  | { readonly ok: true; readonly value: RunLoad | ChainRunLoad }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

/** A durable run journal. See the module comment for the contract. */
export interface Store {
  /** Backend name: `fs`, `memory`, `postgres`… */
  readonly backend: string;
  /** The store's identity as recorded in manifests' `storage_root` (a resolved path for fs). */
  readonly root: string;
  /**
   * Creates a run: derives the run id, publishes the immutable manifest and an empty journal.
   *
   * @example
   * ```ts
   * const r = await store.createRun({ dispatch, trackerSessionId: null, now: '2026-11-30T10:00:00Z' });
   * if (r.outcome === 'committed') use(r.run_id);
   * ```
   */
  createRun(input: CreateRunInput): Promise<StoreResult>;
  /**
   * Appends one event of `kind` with `payload` (validated per kind first) as the next seq. A
   * run-contract kind needs a run-contract run and `baton-commit` a chain run (`kind_unsupported`
   * otherwise); a `baton-commit` that does not follow the last commit is `baton_out_of_sequence`.
   *
   * @example
   * ```ts
   * const r = await store.append(runId, 'note', { kind: 'candidate', text: 'simp', lean: null });
   * ```
   */
  append(runId: string, kind: StoreEventKind, payload: unknown): Promise<StoreResult>;
  /**
   * Appends a `handoff` event and then refreshes the disposable cache; `journal_only` when the
   * event is committed but the cache could not be confirmed.
   *
   * @example
   * ```ts
   * const r = await store.setHandoff(runId, finalHandoff); // committed | journal_only | …
   * ```
   */
  setHandoff(runId: string, payload: unknown): Promise<StoreResult>;
  /**
   * Loads a run-contract run (no lock): manifest, the valid journal prefix, damage, cache state.
   * A chain run is refused with `kind_unsupported` (its records are not run-contract records; use
   * {@link Store.loadRun}), so callers that read dispatches never meet a chain manifest.
   *
   * @example
   * ```ts
   * const r = await store.load(runId); if (r.ok && r.value.damaged === null) …
   * ```
   */
  load(runId: string): Promise<LoadResult>;
  /**
   * Lists the run ids present in the store (well-formed ids only), sorted.
   *
   * @example
   * ```ts
   * const ids = await store.listRuns();
   * ```
   */
  listRuns(): Promise<readonly string[]>;
  /**
   * True when a mutation lock is currently held on the run (e.g. `prior_run_active`). Never breaks it.
   *
   * @example
   * ```ts
   * if (await store.isLocked(prior)) refuse('prior_run_active');
   * ```
   */
  isLocked(runId: string): Promise<boolean>;
  /**
   * Creates a handoff-chain run (`run-store-manifest/chain-v1`): the manifest holds the chain id,
   * the canonical task contract and its digest, the stage names and the start baton; the journal
   * then takes `baton-commit` events. Optional so that other implementations of this interface
   * keep compiling; the fs and memory backends implement it (see {@link ChainRunStore}).
   *
   * @example
   * ```ts
   * const r = await store.createChainRun?.({ chainId, contract, stages, startBaton: b0 });
   * ```
   */
  createChainRun?(input: CreateChainRunInput): Promise<StoreResult>;
  /**
   * Loads a run of any kind (no lock): a run-contract run exactly as {@link Store.load}, or a
   * chain run ({@link ChainRunLoad}). Optional, like {@link Store.createChainRun}.
   *
   * @example
   * ```ts
   * const r = await store.loadRun?.(runId); if (r?.ok && r.value.event_schema === 'run-store-event/chain-v1') …
   * ```
   */
  loadRun?(runId: string): Promise<AnyLoadResult>;
}

/** A store that holds chain runs too (the fs and memory backends). */
export type ChainRunStore = Store & Required<Pick<Store, 'createChainRun' | 'loadRun'>>;

/**
 * True when the store implements the chain run kind.
 *
 * @example
 * ```ts
 * if (!isChainRunStore(store)) throw new Error('this backend holds no chain runs');
 * ```
 */
export function isChainRunStore(store: Store): store is ChainRunStore {
  return typeof store.createChainRun === 'function' && typeof store.loadRun === 'function';
}

/**
 * True when a loaded run is a chain run.
 *
 * @example
 * ```ts
 * const r = await store.loadRun(id); if (r.ok && isChainRunLoad(r.value)) r.value.last_baton;
 * ```
 */
export function isChainRunLoad(load: RunLoad | ChainRunLoad): load is ChainRunLoad {
  return load.event_schema === 'run-store-event/chain-v1';
}

/**
 * Builds a result record.
 *
 * @example
 * ```ts
 * storeResult('nothing_written', runId, { code: 'busy', detail: 'run is locked' });
 * ```
 */
export function storeResult(
  outcome: StoreOutcome,
  runId: string | null,
  extra: Omit<StoreResult, 'schema' | 'outcome' | 'run_id'> = {},
): StoreResult {
  return { schema: 'run-store-result/v1', outcome, run_id: runId, ...extra };
}

/**
 * Shorthand for a refusal (`nothing_written` with a code).
 *
 * @example
 * ```ts
 * return refused(runId, 'bad_run_id', 'not a run id');
 * ```
 */
export function refused(runId: string | null, code: StoreCode, detail: string): StoreResult {
  return storeResult('nothing_written', runId, { code, detail });
}

/** CLI exit code of each outcome: 0 committed, 3 nothing_written, 5 journal_only, 6 indeterminate. */
export const OUTCOME_EXIT_CODES: Readonly<Record<StoreOutcome, number>> = {
  committed: 0,
  nothing_written: 3,
  journal_only: 5,
  indeterminate: 6,
};
