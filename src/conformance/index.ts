/**
 * `handoff-runtime/conformance`: the fast-check arbitraries of the run-contract records (all
 * factories), the worker harness (`runConformance`: a command or an in-process worker) with its
 * report, and the harness's pieces for other
 * harnesses (the seeded case plan, the defect catalogue, the pure checks, the case project and
 * the watches around one run; docs/conformance.md). Loads `fast-check`, an optional peer
 * dependency: install it to use this entry point; no other entry point loads it.
 */

export { answerChange, notPlainData } from './answer-shape.js';
export {
  type ArbDispatchOptions,
  type ArbFileBaselineOptions,
  type ArbHandoffOptions,
  arbAbsolutePaths,
  arbBaselineFor,
  arbDispatch,
  arbFileBaseline,
  arbHandoff,
} from './arbitraries.js';
export {
  type CasePlan,
  FENCED_HEADER,
  type PlannedFile,
  type PlanOptions,
  planCases,
  ROLE_TARGET_TEXT,
  SEARCH_GRANT,
} from './case-plan.js';
export { CASE_GIT_IDENTITY, commitCaseRepository } from './case-repository.js';
export { CASE_RUN_ID, plantRunStore } from './case-store.js';
export { type CaseWatch, type CaseWatchResult, endWatch, startWatch } from './case-watch.js';
export {
  type CaseEvaluation,
  type CaseObservation,
  type CaseObservationBase,
  type ContainmentObservation,
  evaluateCase,
  handoffOf,
  type InProcessAnswer,
  type ReturnedBaselineCheck,
} from './checks.js';
export { DEFAULT_RUNS, DEFAULT_SEED, DEFAULT_TIMEOUT_MS } from './defaults.js';
export { DEFECT_DESCRIPTIONS, type DefectContext, malformedInput } from './defects.js';
export { formatReport } from './format.js';
export { type ConformanceOptions, runConformance } from './harness.js';
export {
  BYSTANDER_FILES,
  CASE_CONTROL_DIRS,
  type CaseDirectory,
  changedPaths,
  layOutProject,
  type SnapshotTreeOptions,
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
  CONFORMANCE_ROLES,
  type ConformanceReport,
  ConformanceReportSchema,
  type ConformanceRole,
  DEFECTS,
  type Defect,
  DefectSchema,
  type Finding,
  FindingSchema,
  NOT_APPLICABLE,
  ROLE_CHECKS,
  WORKER_KINDS,
  type WorkerKind,
} from './report-schema.js';
export { type RoleFinding, type RoleObservation, roleFindings } from './role-checks.js';
export { CONFORMANCE_FALSIFY_POLICY, withRole } from './role-dispatch.js';
export { type UnsafeString, unsafeStrings } from './terminal-safety.js';
