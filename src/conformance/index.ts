/**
 * `handoff-runtime/conformance`: the fast-check arbitraries of the run-contract records and the
 * external-worker harness (`runConformance`) with its report. Loads `fast-check`, an optional peer
 * dependency: install it to use this entry point; no other entry point loads it.
 *
 * Public names only: the harness's case planning, case project, watches and per-check evaluation
 * are its mechanism and stay internal.
 */
export { arbAbsolutePaths, arbBaselineFor, arbDispatch, arbFileBaseline, arbHandoff } from './arbitraries.js';
export { DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS } from './defaults.js';
export { DEFECT_DESCRIPTIONS } from './defects.js';
export { formatReport } from './format.js';
export { type ConformanceOptions, runConformance } from './harness.js';
export {
  type CaseSummary,
  CaseSummarySchema,
  CHECKS,
  type CheckId,
  CheckSchema,
  CONFORMANCE_REPORT_SCHEMA,
  type ConformanceReport,
  ConformanceReportSchema,
  DEFECTS,
  type Defect,
  DefectSchema,
  type Finding,
  FindingSchema,
} from './report-schema.js';
