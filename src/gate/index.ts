/**
 * Gate protocol (seed 001): records, pure controller rules, the git collector, the evaluator port,
 * the continuation ledger (the only grantor) and the lead packet. The PostgreSQL ledger is on
 * `handoff-runtime/pg`. The collector's git parsing, content ids and packet assembly stay internal.
 */

export {
  type Assessment,
  type AssessmentFailure,
  AssessmentFailureSchema,
  AssessmentSchema,
  CLAIM_LABELS,
  type Claim,
  type ClaimLabel,
  ClaimSchema,
  type EvidenceRequest,
  EvidenceRequestSchema,
  GATE_ASSESSMENT_SCHEMA,
} from './assessment-schema.js';
export {
  type Authority,
  AuthoritySchema,
  GATE_AUTHORITY_SCHEMA,
  ownerAuthority,
} from './authority-schema.js';
export {
  type BlockedReport,
  BlockedReportSchema,
  GATE_BLOCKED_SCHEMA,
} from './blocked-schema.js';
export type { CollectOptions } from './collector.js';
export { collectEvidence, currentCandidate, repoRoot } from './collector.js';
export { checkContractRevision } from './contract-history.js';
export {
  type CandidateBinding,
  CandidateBindingSchema,
  CommitIdSchema,
  type Criterion,
  CriterionSchema,
  type EvaluatorPolicy,
  EvaluatorPolicySchema,
  GATE_TASK_SCHEMA,
  InterpretationSchema,
  ProblemIdSchema,
  type Profile,
  ProfileSchema,
  Sha256Schema,
  STAGES,
  type Stage,
  StageSchema,
  stageRank,
  type TaskContract,
  TaskContractSchema,
} from './contract-schema.js';
export {
  type Directive,
  DirectiveSchema,
  GATE_DIRECTIVE_SCHEMA,
} from './directive-schema.js';
export {
  type AssessmentStore,
  EvaluatorFailure,
  type EvaluatorPort,
  memoryAssessmentStore,
  type RunEvaluatorOptions,
  runEvaluator,
} from './evaluator.js';
export {
  assessmentFromResponse,
  buildEvaluatorRequest,
  type EvaluatorQuestion,
  type EvaluatorRequest,
  type ExchangeMeta,
  failedAssessment,
  GATE_EVALUATOR_REQUEST_SCHEMA,
} from './evaluator-protocol.js';
export { type EvaluatorReply, evaluatorVerdict } from './evaluator-reply.js';
export {
  type Artifact,
  ArtifactSchema,
  type ChangeEntry,
  ChangeEntrySchema,
  type EvidencePacket,
  EvidencePacketSchema,
  type Execution,
  type ExecutionInput,
  ExecutionInputSchema,
  ExecutionSchema,
  GATE_EVIDENCE_SCHEMA,
  type Omitted,
  OmittedSchema,
  ProvenanceSchema,
  type WorkerClaim,
  WorkerClaimSchema,
} from './evidence-schema.js';
export {
  type ExactCheckInput,
  type ExactCheckResult,
  type ExactFailure,
  type ExactFailureCode,
  exactChecks,
  STOP_CODES,
} from './exact-checks.js';
export { fsAssessmentStore } from './fs-assessment-store.js';
export {
  createFsLedger,
  type FsLedgerLog,
  type FsLedgerLogOptions,
  fsLedgerLog,
} from './fs-ledger.js';
export type { RunGateOptions, RunGateResult } from './gate-runner.js';
export { runGate } from './gate-runner.js';
export { globMatch } from './globs.js';
export {
  GATE_GRANT_SCHEMA,
  type Grant,
  GrantSchema,
  type GrantState,
  GrantStateSchema,
  type Slot,
  SlotSchema,
} from './grant-schema.js';
export { type HttpEvaluatorOptions, httpEvaluator, isHttpEvaluator } from './http-evaluator.js';
export {
  buildLeadPacket,
  type LeadPacketInput,
} from './lead-packet.js';
export {
  GATE_LEAD_PACKET_SCHEMA,
  type LeadPacket,
  LeadPacketSchema,
} from './lead-packet-schema.js';
export {
  createLogLedger,
  type Ledger,
  type LedgerAppendOptions,
  type LedgerLog,
  type LedgerStatus,
  type LogLedgerOptions,
  memoryLedgerLog,
  type ReconcileOutcome,
  type ReserveCheck,
  type ReserveOutcome,
} from './ledger.js';
export {
  auditLedgerTrace,
  GATE_LEDGER_AUDIT_SCHEMA,
  type GateAuditFinding,
  type GateLedgerAudit,
} from './ledger-audit.js';
export {
  decideReservation,
  foldLedger,
  type LedgerEvent,
  LedgerEventSchema,
  type LedgerState,
  type RefusalReason,
  type ReserveDecision,
  type ReserveRequest,
  ReserveRequestSchema,
  type SlotUsage,
  slotUsage,
} from './ledger-state.js';
export {
  GateTraceStepSchema,
  type LedgerTrace,
  type LedgerTraceReader,
  LedgerTraceSchema,
  type LedgerTraces,
  type TracedEntry,
  type TraceSource,
} from './ledger-trace.js';
export {
  type GateLifecycleContext,
  type GateLifecycleInput,
  grantAcceptable,
  initialLifecycleContext,
  mayReserve,
} from './lifecycle.js';
export {
  type BasisRefusal,
  CONTINUATION_ROUTE,
  checkReservationBasis,
  type ReservationBasis,
  reservationBasis,
  routeDigest,
} from './reservation-basis.js';
export {
  BLOCKED_STEP_CRITERION,
  decideRoute,
  type RouteInput,
  readClaim,
  recomputeRoute,
  requestExclusion,
  type SlotView,
} from './route.js';
export {
  type CriterionOutcome,
  CriterionOutcomeSchema,
  DEFAULT_THRESHOLDS,
  GATE_ROUTE_SCHEMA,
  type Obligation,
  ObligationSchema,
  type Route,
  type RouteDecision,
  RouteDecisionSchema,
  type RouteReason,
  RouteReasonSchema,
  RouteSchema,
  type Thresholds,
  ThresholdsSchema,
} from './route-schema.js';
export type { SubprocessEvaluatorOptions } from './subprocess-evaluator.js';
export { subprocessEvaluator } from './subprocess-evaluator.js';
export {
  GATE_WORKER_REQUEST_SCHEMA,
  parseWorkerOutput,
  type WorkerRequest,
  type WorkerResult,
  WorkerResultSchema,
} from './worker-protocol.js';
