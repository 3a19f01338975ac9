export type { BaselineEntry, FileBaseline } from './schema.js';
export { BaselineEntrySchema, FILE_BASELINE_SCHEMA, FileBaselineSchema, uncoveredPaths } from './schema.js';
