export { BaselineEntrySchema, FILE_BASELINE_SCHEMA, FileBaselineSchema, uncoveredPaths } from './schema.js';
export type { BaselineEntry, FileBaseline } from './schema.js';
