export { type AdvanceBaselineOptions, advanceBaseline } from './advance.js';
export { type BaselineCheckOptions, checkBaseline } from './check.js';
export type {
  BaselineCheck,
  BaselineCheckEntry,
  BaselineCheckResult,
  BaselineEntryStatus,
} from './check-schema.js';
export {
  BASELINE_CHECK_RESULTS,
  BASELINE_CHECK_SCHEMA,
  BASELINE_ENTRY_STATUSES,
  BaselineCheckEntrySchema,
  BaselineCheckSchema,
  BaselineEntryStatusSchema,
} from './check-schema.js';
export type { EntryClassification, FileObservation } from './classify.js';
export {
  BASELINE_CHECK_EXIT_CODES,
  baselineCheckExitCode,
  classifyEntry,
  summarizeBaselineStatuses,
} from './classify.js';
export { assertCustody, CustodyChain, type CustodyChainOptions, DRIFT_RECOMMENDATIONS } from './custody.js';
export { lenientRealpath, observePath } from './observe.js';
export { type ResolvedBaselineSelectors, resolveBaselineSelectors } from './paths.js';
export { baselineEntryOf, type RecordBaselineOptions, recordBaseline } from './record.js';
export { parseBaselineBytes, requireBaseline } from './require-baseline.js';
export type { BaselineEntry, FileBaseline } from './schema.js';
export {
  BaselineEntrySchema,
  FILE_BASELINE_SCHEMA,
  FileBaselineSchema,
  isSerializedAbsolute,
  localPathIssues,
  SERIALIZED_ABSOLUTE_PATH,
  uncoveredPaths,
} from './schema.js';
