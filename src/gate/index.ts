/**
 * Gate protocol (seed 001): records, pure controller rules, the git collector, the evaluator port,
 * the continuation ledger (the only grantor) and the lead packet.
 */

export { deepFreeze } from '../canonical/index.js';
export * from './assessment-schema.js';
export * from './authority-schema.js';
export * from './blocked-schema.js';
export { isInternalPath, mergeChangeset, pairRenames, parseNameStatusZ, treeDigest } from './changeset.js';
export type { CollectOptions } from './collector.js';
export { collectEvidence, currentCandidate, repoRoot } from './collector.js';
export * from './contract-history.js';
export * from './contract-schema.js';
export * from './directive-schema.js';
export * from './evaluator.js';
export * from './evaluator-protocol.js';
export * from './evidence-schema.js';
export * from './exact-checks.js';
export { fsAssessmentStore } from './fs-assessment-store.js';
export { createFsLedger, fsLedgerLog } from './fs-ledger.js';
export type { RunGateOptions, RunGateResult } from './gate-runner.js';
export { runGate } from './gate-runner.js';
export { globMatch, matchesAny } from './globs.js';
export * from './grant-schema.js';
export { contentId, continuationKey } from './ids.js';
export * from './lead-packet.js';
export * from './lead-packet-schema.js';
export * from './ledger.js';
export * from './ledger-state.js';
export * from './lifecycle.js';
export { asClaims, assemblePacket, bindExecutions } from './packet.js';
export {
  createPgLedger,
  LEDGER_PG_URL_ENV,
  PG_LEDGER_DEFAULT_SCHEMA,
  type PgLedgerLog,
  type PgLedgerOptions,
  pgLedgerDdl,
  pgLedgerLog,
} from './pg-ledger.js';
export * from './route.js';
export * from './route-schema.js';
export type { SubprocessEvaluatorOptions } from './subprocess-evaluator.js';
export { subprocessEvaluator } from './subprocess-evaluator.js';
export * from './worker-protocol.js';
