/**
 * Run persistence: the controller that drives the run store with the failure policy, the
 * invocation state, parent knowledge, progress, and prior-run reuse (preview, custody, start).
 * Public names only: the policy's helpers, knowledge reducers, reuse matching and the state
 * file's reader stay internal.
 */
export type {
  PersistControllerOptions,
  PreparedPriorRun,
  StartInput,
} from './controller.js';
export { PersistController } from './controller.js';
export type { DriftEntry, DriftReport } from './drift-report.js';
export { buildDriftReport } from './drift-report.js';
export type { Persistence, PolicyDecision } from './failure-policy.js';
export { decide } from './failure-policy.js';
export type { Knowledge, KnowledgePart } from './knowledge.js';
export { KnowledgeSchema, operationalErrorHandoff } from './knowledge.js';
export type { Progress, ProgressCheck } from './progress.js';
export { checkProgress, PROGRESS_SCHEMA, ProgressSchema } from './progress.js';
export type { PersistAction, PersistResult } from './result.js';
export { persistResult, RESULT_SCHEMA } from './result.js';
export type {
  CustodyDerivation,
  ReuseEnv,
  ReuseInvocation,
  ReuseOutcome,
  ReuseRefusal,
  ReuseRefusalCode,
} from './reuse.js';
export { deriveCustody, preparePriorStart, reusePreview, specificJustification } from './reuse.js';
export { operationalErrorHandoffForTask } from './reuse-handoff.js';
export type { CustodyResult, ReuseReport } from './reuse-report.js';
export { CUSTODY_SCHEMA, REUSE_SCHEMA, ReuseReportSchema } from './reuse-report.js';
export type { SourceNote } from './source-note.js';
export { parseSourceNote, SOURCE_NOTE_SCHEMA, SourceNoteSchema } from './source-note.js';
export type { StateFs } from './state-file.js';
export { STATE_LOG_SCHEMA } from './state-log.js';
export type { PersistState } from './state-schema.js';
export { PersistStateSchema, STATE_SCHEMA } from './state-schema.js';
export {
  type FileStateStoreOptions,
  fileStateStore,
  MIN_COMPACT_BYTES,
  memoryStateStore,
  type StateStore,
} from './state-store.js';
export type { StoreVerdict, VerdictExpectation } from './store-verdict.js';
export { classifyStoreResult, STORE_RESULT_SCHEMA } from './store-verdict.js';
