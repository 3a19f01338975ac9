export { type AdvanceOptions, advanceBaseline } from './advance.js';
export { type CheckOptions, checkBaseline } from './check.js';
export type { BaselineCheck, CheckEntry, CheckResult, EntryStatus } from './check-schema.js';
export {
  BASELINE_CHECK_SCHEMA,
  BaselineCheckSchema,
  CHECK_RESULTS,
  CheckEntrySchema,
  ENTRY_STATUSES,
  EntryStatusSchema,
} from './check-schema.js';
export type { Classification, Observation } from './classify.js';
export {
  CHECK_EXIT_CODES,
  checkEntryOf,
  checkExitCode,
  classifyEntry,
  summarizeStatuses,
} from './classify.js';
export {
  assertCustody,
  CustodyChain,
  type CustodyChainOptions,
  DRIFT_RECOMMENDATIONS,
} from './custody.js';
export {
  type ContentDigest,
  HASH_CHUNK_BYTES,
  hashDescriptor,
  lenientRealpath,
  observePath,
  SMALL_FILE_BYTES,
} from './observe.js';
export { absoluteLexical, type ResolvedSelectors, resolveSelectors } from './paths.js';
export { entryOf, type RecordOptions, recordBaseline } from './record.js';
export { EXIT_DRIFT, EXIT_INPUT, EXIT_OPERATIONAL } from './refusal.js';
export { parseBaselineBytes, requireBaseline } from './require-baseline.js';
export type { BaselineEntry, FileBaseline } from './schema.js';
export { BaselineEntrySchema, FILE_BASELINE_SCHEMA, FileBaselineSchema, uncoveredPaths } from './schema.js';
