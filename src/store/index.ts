/**
 * run-store/v1: the durable run journal. The {@link Store} interface, its records, cites and run
 * ids, an in-memory backend for tests, and the file-system backend.
 */

export { fastCanonicalJson } from './canonical-fast.js';
export type {
  ChainManifestBuild,
  ChainTail,
  CreateChainRunInput,
  ParsedChainJournal,
} from './chain-rules.js';
export {
  batonCommitProblem,
  buildChainManifest,
  checkBatonCommit,
  checkChainEventLine,
  parseChainJournal,
  startTail,
  tailOf,
} from './chain-rules.js';
export * from './chain-schema.js';
export type { Cite, ResolvedCite } from './cite.js';
export { formatCite, parseCite, resolveCite } from './cite.js';
// the fs store's injectable layer; its home is src/durable
export type { FsLayer, FsStat } from '../durable/index.js';
export { errnoOf, nodeFsLayer } from '../durable/index.js';
export type { RunPaths, StoreRootInput } from './fs-layout.js';
export { DEFAULT_STORE_DIR, RUN_FILES, RUN_STORE_ENV, resolveStoreRoot, runPaths } from './fs-layout.js';
export type { FsStore, FsStoreOptions } from './fs-store.js';
export { createFsStore, HELD_JOURNALS } from './fs-store.js';
export { gitTrackedUnder } from './git-index.js';
export type { ParsedJournal } from './journal-parse.js';
export { checkEventLine, isCanonicalText, parseJournal, scanLines } from './journal-parse.js';
export type { ManifestBuild, ManifestEnv } from './manifest.js';
export { buildManifest, RUNTIME_VERSION } from './manifest.js';
export type { MemoryStore, MemoryStoreOptions, ScriptedOutcome } from './memory-store.js';
export { createMemoryStore } from './memory-store.js';
export type { PgEventRow } from './pg-rows.js';
export { parseChainEventRows, parseEventRows, rowsToJournal } from './pg-rows.js';
export {
  ADVISORY_HELD_SQL,
  isPgSchemaName,
  PG_STORE_DEFAULT_SCHEMA,
  PG_STORE_SCHEMA_VERSION,
  pgAdvisoryKey,
  pgStoreDdl,
} from './pg-schema.js';
export type { PgStore, PgStoreOptions } from './pg-store.js';
export { createPgStore, PG_URL_ENV } from './pg-store.js';
export { formatTimestamp, isRunId, isTimestamp, makeRunId, randomRunIdSuffix } from './run-id.js';
export { assembleChainLoad, assembleLoad, cacheState, LOAD_NOTE } from './run-load.js';
export * from './schema.js';
export type {
  AnyLoadResult,
  ChainRunLoad,
  ChainRunStore,
  CreateRunInput,
  HandoffCacheState,
  JournalDamage,
  LoadResult,
  RunLoad,
  Store,
  StoreCode,
  StoreEventKind,
  StoreOutcome,
  StoreResult,
} from './store.js';
export {
  isChainRunLoad,
  isChainRunStore,
  OUTCOME_EXIT_CODES,
  refused,
  STORE_CODES,
  storeResult,
} from './store.js';
export type { AppendContext, PayloadCheck, RecordKind } from './validate-payload.js';
export {
  checkReplanCites,
  describeIssues,
  RECORD_KINDS,
  validateEventPayload,
  validateHandoffCache,
  validateRecord,
  validateStoredManifest,
} from './validate-payload.js';
