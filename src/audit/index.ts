/**
 * The journal audit: the transition trace a run records with its batches
 * ({@link createTraceCollector}) and its replay through the machine definitions
 * ({@link auditTrace}, `handoff audit RUN_ID`).
 */

export { ALWAYS_EVENT } from '../viz/recorded-path.js';
export {
  AUDIT_SCHEMA,
  type AuditFinding,
  type AuditFindingCode,
  type AuditOptions,
  type AuditReport,
  type AuditRestart,
  auditTrace,
  type TracedBatch,
} from './audit-rules.js';
export { type DamagedBatch, damagedBatches, damagedBatchLine } from './batch-damage.js';
export { applyTransition, initialConfiguration } from './configuration.js';
export {
  createTraceCollector,
  type TraceCollector,
  type TraceCollectorOptions,
  traceStep,
} from './trace-collector.js';
export { isTraceRestart, machineFinished, RESUMABLE_MACHINES, type RestartContext } from './trace-restart.js';
export { TraceStepSchema } from './trace-step-schema.js';
