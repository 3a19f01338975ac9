export { arbAbsolutePaths, arbBaselineFor, arbDispatch, arbFileBaseline, arbHandoff } from './arbitraries.js';
export { type CasePlan, type PlannedFile, type PlanOptions, planCases } from './case-plan.js';
export {
  type CaseEvaluation,
  type CaseObservation,
  evaluateCase,
  handoffOf,
  type ReturnedBaselineCheck,
} from './checks.js';
export { DEFECT_DESCRIPTIONS, type DefectContext, malformedInput } from './defects.js';
export { formatReport } from './format.js';
export {
  type ConformanceOptions,
  DEFAULT_RUNS,
  DEFAULT_SEED,
  DEFAULT_TIMEOUT_MS,
  runConformance,
} from './harness.js';
export {
  BYSTANDER_FILES,
  type CaseDirectory,
  changedPaths,
  layOutProject,
  snapshotTree,
  type TreeSnapshot,
  tempCaseDirectory,
} from './project.js';
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
