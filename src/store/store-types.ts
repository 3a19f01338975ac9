/**
 * The store's records as types only — results, load shapes, inputs, codes — with no behaviour and
 * no imports but other type-only record modules. The leaf of src/store: the pure rules
 * (`chain-rules`, `cite`, `journal-parse`, `validate-payload`) import their types from here, so
 * none of them depends on `store.ts` (the Store interface and its helpers), and `store.ts` may use
 * them all without an import cycle. `store.ts` re-exports every name.
 */
import type { STORE_CODES } from '../errors/error-codes.js';
import type { CHAIN_EVENT_SCHEMA, ChainEventKind, ChainManifest, ChainStoreEvent } from './chain-schema.js';
import type { EventKind, EventSchemaId, EventSchemaVersion, Manifest, StoreEvent } from './schema.js';

/** The four outcomes of a mutation. */
export type StoreOutcome = 'committed' | 'nothing_written' | 'journal_only' | 'indeterminate';

/**
 * Refusal codes (outcome `nothing_written`) and load failure codes: the store's list of the
 * error-code catalogue, {@link STORE_CODES}.
 */
export type StoreCode = (typeof STORE_CODES)[number];

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
  /** {@link Store.appendBatch} only: the first seq of the batch (`seq` is its last). */
  readonly first_seq?: number;
  readonly code?: StoreCode;
  readonly step?: string;
  readonly detail?: string;
}

/** One event of a batch given to {@link Store.appendBatch}: a kind and its payload, validated as `append` validates them. */
export interface BatchEntry {
  readonly kind: StoreEventKind;
  readonly payload: unknown;
}

/**
 * One machine transition recorded with a batch (compact): the machine's id, the state value
 * before and after (dotted paths, e.g. `work.await_worker`), the event type, and the guard or
 * actor that decided it when there was one. `handoff audit` replays these through the machine
 * definition.
 */
export interface TraceStep {
  readonly machine: string;
  readonly from: string;
  readonly event: string;
  readonly to: string;
  readonly guard?: string;
  readonly actor?: string;
}

/** Options of {@link Store.appendBatch}. */
export interface AppendBatchOptions {
  /** The machine transitions since the previous boundary; stored with the batch's record. */
  readonly trace?: readonly TraceStep[];
  /**
   * `false`: group commit without all-or-nothing — the events share one write and one sync (no
   * record synced ahead of them), and a crash may leave a prefix of them, as it could of the same
   * events appended one by one. None is acknowledged before the shared sync. Default `true`.
   */
  readonly atomic?: boolean;
}

/**
 * What became of a recorded batch on load ({@link BatchesLoad}):
 * - `complete`: every event of the batch is in the valid prefix and its bytes match the record;
 * - `aborted`: none of its events was written (a failure or crash after the record, before the
 *   journal write), or a later record re-used its seqs (superseded) — not damage;
 * - `torn`: the batch is only partly in the journal, or its bytes differ from the record: the
 *   valid prefix ends before its first seq;
 * - `unreached`: after the end of the valid prefix (an earlier torn batch or journal damage).
 */
export type BatchStatus = 'complete' | 'aborted' | 'torn' | 'unreached';

/** One batch record as loaded ({@link Store.readBatches}), with its 1-based line in the sidecar. */
export interface LoadedBatch {
  /** 1-based line of the record in the batch sidecar. */
  readonly line: number;
  readonly first_seq: number;
  readonly last_seq: number;
  readonly count: number;
  /** sha256 (hex) of the batch's exact journal bytes (its lines with their newlines). */
  readonly sha256: string;
  /** The machine transitions recorded with the batch (empty when none were given). */
  readonly trace: readonly TraceStep[];
  readonly status: BatchStatus;
}

/**
 * The batch records of a run (`run-store-batches/v1`), read beside its load: every record in
 * sidecar order with its status, and the warnings about damaged sidecar lines. A run without
 * recorded batches has `batches: []`.
 */
export interface BatchesLoad {
  readonly schema: 'run-store-batches/v1';
  readonly run_id: string;
  readonly batches: readonly LoadedBatch[];
  /** `batch_record_damaged` warnings (`{code, line, detail}`). */
  readonly warnings: readonly LoadWarning[];
}

/** Result of {@link Store.readBatches}: the batch records, or a refusal code (as for a load). */
export type BatchesLoadResult =
  | { readonly ok: true; readonly value: BatchesLoad }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };

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
  /** `truncated_tail`: the bytes after the last newline. */
  readonly bytes?: number;
  readonly detail: string;
}

/**
 * Codes of {@link LoadWarning}: the reference's three, this store's `storage_root_differs`, and
 * `batch_record_damaged` (a line of the batch sidecar `batches.jsonl` that is not a valid batch
 * record; only runs written with {@link Store.appendBatch} have that file).
 */
export type LoadWarningCode =
  | 'truncated_tail'
  | 'corrupt'
  | 'handoff_cache_stale'
  | 'storage_root_differs'
  | 'batch_record_damaged';

/**
 * One warning of a load, in the reference's shape (`{code, line?, …}`):
 * - `truncated_tail` `{code, line, bytes, detail}` and `corrupt` `{code, line, detail}`: the
 *   journal's first defect (the same as `damage`);
 * - `handoff_cache_stale` `{code, detail}`: the cache is unreadable, invalid, or not the last
 *   handoff event — or missing while the journal holds a handoff;
 * - `storage_root_differs` `{code, detail}` (this store's addition): the manifest records another
 *   storage root than the one it was loaded from (a moved or copied store);
 * - `batch_record_damaged` `{code, line, detail}` (this store's addition): line `line` of the batch
 *   sidecar is not a valid batch record (a torn last line after a crash, or an edit); the events
 *   are never judged by it.
 */
export interface LoadWarning {
  readonly code: LoadWarningCode;
  readonly line?: number;
  readonly bytes?: number;
  readonly detail?: string;
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
  /** True when the journal has damage after the valid prefix (the reference's boolean). */
  readonly damaged: boolean;
  /** The damage after the valid prefix (this store's detail), or null when the journal is whole. */
  readonly damage: JournalDamage | null;
  /** Warnings `{code, line?, …}`: the damage, `handoff_cache_stale`, `storage_root_differs`. */
  readonly warnings: readonly LoadWarning[];
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
  readonly damaged: boolean;
  readonly damage: JournalDamage | null;
  readonly warnings: readonly LoadWarning[];
  readonly note: string;
}

/** Result of {@link Store.loadRun}: a run of any kind, or a refusal code. */
export type AnyLoadResult =
  | { readonly ok: true; readonly value: RunLoad | ChainRunLoad }
  | { readonly ok: false; readonly code: StoreCode; readonly run_id: string | null; readonly detail: string };
