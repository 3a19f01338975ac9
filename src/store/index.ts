/**
 * run-store/v1: the durable run journal. The {@link Store} interface, its records, cites and run
 * ids, an in-memory backend for tests, and the file-system backend. The PostgreSQL backend is on
 * its own entry point (`handoff-runtime/pg`, src/pg), so this one never loads `pg`.
 *
 * Public names only, listed one by one: the backends' mechanisms (fs layer, fast canonical
 * check, journal scanning, manifest building, load assembly, git index probe) stay internal and
 * are imported from their files.
 */

export type { BatchJudgement, BatchRecord, JournalView, LinedRecord, ParsedBatches } from './batch-rules.js';
export { BATCH_SCHEMA, judgeBatches, parseBatchRecords, traceProblem } from './batch-rules.js';
export type { CreateChainRunInput, ParsedChainJournal } from './chain-rules.js';
export { parseChainJournal } from './chain-rules.js';
export {
  BATON_COMMIT_KIND,
  type BatonCommitPayload,
  BatonCommitPayloadSchema,
  CHAIN_EVENT_KINDS,
  CHAIN_EVENT_SCHEMA,
  CHAIN_MANIFEST_SCHEMA,
  type ChainEventKind,
  ChainEventLineSchema,
  type ChainManifest,
  ChainManifestSchema,
  type ChainStoreEvent,
  isChainManifest,
  type StoredManifest,
  StoredManifestSchema,
} from './chain-schema.js';
export type { Cite, ResolvedCite } from './cite.js';
export { formatCite, parseCite, resolveCite } from './cite.js';
export type { RunPaths, StoreRootInput } from './fs-layout.js';
export { DEFAULT_STORE_DIR, RUN_FILES, RUN_STORE_ENV, resolveStoreRoot, runPaths } from './fs-layout.js';
export type { RecoverOptions } from './fs-recover.js';
export { isProcessAlive, recoverRun } from './fs-recover.js';
export type { FsStore, FsStoreOptions } from './fs-store.js';
export { createFsStore } from './fs-store.js';
export type { ParsedJournal } from './journal-parse.js';
export { parseJournal } from './journal-parse.js';
export type { MemoryStore, MemoryStoreOptions, ScriptedOutcome } from './memory-store.js';
export { createMemoryStore } from './memory-store.js';
export {
  PG_NOTHING_TO_RECOVER,
  RECOVER_EXIT_CODES,
  RECOVER_NOTE_KIND,
  RECOVER_NOTE_PREFIX,
} from './recover-rules.js';
export type {
  LockOwner,
  RecoverAction,
  RecoverOutcome,
  RecoverReason,
  RecoverResult,
} from './recover-schema.js';
export { RECOVER_OUTCOMES, RECOVER_REASONS, RECOVER_SCHEMA, RecoverResultSchema } from './recover-schema.js';
export { formatTimestamp, isRunId, isTimestamp, makeRunId, randomRunIdSuffix } from './run-id.js';
export {
  CACHE_SCHEMA,
  EVENT_KINDS_V1,
  EVENT_KINDS_V2,
  EVENT_V1_SCHEMA,
  EVENT_V2_SCHEMA,
  type EventKind,
  EventKindSchema,
  EventLineSchema,
  type EventSchemaId,
  type EventSchemaVersion,
  EventSchemaVersionSchema,
  eventSchemaOf,
  type HandoffCache,
  HandoffCacheSchema,
  LOAD_SCHEMA,
  MANIFEST_V1_SCHEMA,
  MANIFEST_V2_SCHEMA,
  type Manifest,
  ManifestSchema,
  ManifestV1Schema,
  ManifestV2Schema,
  type NoteKind,
  NoteKindSchema,
  type NotePayload,
  NotePayloadSchema,
  REPLAN_SUMMARY_SCHEMA,
  RESULT_SCHEMA,
  REVIEW_RECORD_SCHEMA,
  ReplanBlockerSchema,
  type ReplanSummary,
  ReplanSummarySchema,
  ReviewOutputSchema,
  type ReviewRecord,
  ReviewRecordSchema,
  RUN_ID_PATTERN,
  RunIdSchema,
  SEQ_CITE_PATTERN,
  type StoreEvent,
  TIMESTAMP_PATTERN,
  TimestampSchema,
  type Triage,
  TriageSchema,
} from './schema.js';
export type {
  AnyLoadResult,
  AppendBatchOptions,
  BatchEntry,
  BatchesLoad,
  BatchesLoadResult,
  BatchStatus,
  BatchStore,
  ChainRunLoad,
  ChainRunStore,
  CreateRunInput,
  HandoffCacheState,
  JournalDamage,
  LoadedBatch,
  LoadResult,
  LoadWarning,
  LoadWarningCode,
  RunLoad,
  Store,
  StoreCode,
  StoreEventKind,
  StoreOutcome,
  StoreResult,
  TraceStep,
} from './store.js';
export {
  isBatchStore,
  isChainRunLoad,
  isChainRunStore,
  OUTCOME_EXIT_CODES,
  refused,
  STORE_CODES,
  storeResult,
} from './store.js';
export type { RecordKind } from './validate-payload.js';
export { describeIssues, RECORD_KINDS, validateRecord } from './validate-payload.js';
