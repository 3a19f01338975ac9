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
import type {
  AnyLoadResult,
  AppendBatchOptions,
  BatchEntry,
  BatchesLoadResult,
  ChainRunLoad,
  CreateRunInput,
  LoadResult,
  RunLoad,
  StoreCode,
  StoreEventKind,
  StoreOutcome,
  StoreResult,
} from './store-types.js';

export type {
  AnyLoadResult,
  AppendBatchOptions,
  BatchEntry,
  BatchesLoad,
  BatchesLoadResult,
  BatchStatus,
  ChainRunLoad,
  CreateRunInput,
  HandoffCacheState,
  JournalDamage,
  LoadedBatch,
  LoadResult,
  LoadWarning,
  LoadWarningCode,
  RunLoad,
  StoreCode,
  StoreEventKind,
  StoreOutcome,
  StoreResult,
  TraceStep,
} from './store-types.js';
/** Every {@link StoreCode}, for validation of foreign results (the catalogue's store list). */
export { STORE_CODES };

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
   * Group commit: appends `entries` as one batch — every payload validated first (nothing is
   * written when one is refused), seqs `last+1 … last+n`, one lock acquisition, one write and one
   * sync of the journal. All-or-nothing: a batch torn by a crash loads as a torn tail (none of its
   * events is in the valid prefix), and no event of it is acknowledged before the sync. The result
   * has `first_seq` and `seq` (the last). `options.trace` (machine transitions since the previous
   * boundary) is stored with the batch where a plain run-store/v1 reader does not see it.
   * Optional so that other implementations of this interface keep compiling; the fs, memory and
   * PostgreSQL backends implement it.
   *
   * @example
   * ```ts
   * const r = await store.appendBatch?.(runId, [
   *   { kind: 'handoff', payload: handoff },
   *   { kind: 'review', payload: review },
   * ], { trace });
   * if (r?.outcome === 'committed') cites(r.first_seq!, r.seq!);
   * ```
   */
  appendBatch?(
    runId: string,
    entries: readonly BatchEntry[],
    options?: AppendBatchOptions,
  ): Promise<StoreResult>;
  /**
   * Reads the run's batch records (no lock): each recorded batch (≥ 2 events, or given a trace)
   * with its seqs, sha256, trace and status against the journal's valid prefix (`complete`,
   * `aborted`, `torn`, `unreached`), and warnings for damaged record lines. This is where the
   * transition trace is read (`handoff audit`); `load` stays `run-store-load/v1`. Optional like
   * {@link Store.appendBatch}.
   *
   * @example
   * ```ts
   * const b = await store.readBatches?.(runId);
   * if (b?.ok) for (const x of b.value.batches) if (x.status === 'complete') replay(x.trace);
   * ```
   */
  readBatches?(runId: string): Promise<BatchesLoadResult>;
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

/** A store with group commit and its batch records (the fs and memory backends). */
export type BatchStore = Store & Required<Pick<Store, 'appendBatch' | 'readBatches'>>;

/**
 * True when the store implements group commit and reads its batch records.
 *
 * @example
 * ```ts
 * if (isBatchStore(store)) await store.appendBatch(runId, entries, { trace });
 * ```
 */
export function isBatchStore(store: Store): store is BatchStore {
  return typeof store.appendBatch === 'function' && typeof store.readBatches === 'function';
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
