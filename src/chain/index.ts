/**
 * Handoff chain: task contracts, immutable batons, fact rules, seam checks, receipts, durable
 * journals and idempotent side effects.
 */
export type { AcceptanceFinding, AcceptanceReceipt } from './acceptance-receipt.js';
export {
  AcceptanceFindingSchema,
  AcceptanceReceiptSchema,
  createAcceptanceReceipt,
} from './acceptance-receipt.js';
export type { Baton, BatonCommit, BatonSeed, FactRecord, StageReceipt } from './baton.js';
export {
  BatonSchema,
  batonFacts,
  batonFingerprint,
  batonProblems,
  commitBaton,
  FactRecordSchema,
  factValue,
  StageReceiptSchema,
  seedBaton,
  snapshotId,
} from './baton.js';
export type { BatonView } from './baton-view.js';
export { createView } from './baton-view.js';
export type {
  ArtifactEnvelope,
  BindArtifactInput,
  BoundaryRefusal,
  ChainHandoffEnvelope,
  ChainHandoffInput,
} from './boundary-envelope.js';
export { bindArtifact, createChainHandoff } from './boundary-envelope.js';
export type {
  ChainDefinition,
  ChainResult,
  ChainStage,
  NewBatonInput,
  RunOptions,
} from './chain.js';
export { createChain, HandoffChain } from './chain.js';
export {
  decideEffect,
  type EffectBegin,
  type EffectDecision,
  type EffectDeclaration,
  type EffectHere,
  intentStillRunning,
} from './effect-decision.js';
export type { EffectLedger, EffectOptions, EffectOutcome, EffectRecord, EffectVia } from './effect-ledger.js';
export { createMemoryEffectLedger, effectIntentBody, idempotentEffect } from './effect-ledger.js';
export type { FactRule, FactValidator } from './fact-rule.js';
export { factRule, INPUT_PRODUCER } from './fact-rule.js';
export {
  createFileEffectLedger,
  EFFECT_LEDGER_FILE,
  type FileEffectLedger,
  type FileEffectLedgerOptions,
} from './file-effect-ledger.js';
export {
  type ChainJournalTracedCommit,
  chainJournalFile,
  chainJournalLockFile,
  createFileChainJournal,
  type FileChainJournal,
  type FileChainJournalOptions,
  type FileChainJournalTrace,
  readFileChainJournalTrace,
} from './file-journal.js';
export { HELD_APPEND_LOCKS } from './held-append-lock.js';
export type { ChainJournal, JournalEntry } from './journal.js';
export { chainJournalSequence, createMemoryChainJournal } from './journal.js';
export { ChainTraceStepSchema, chainJournalCite } from './journal-trace.js';
export { type ChainLockHere, type ChainLockVerdict, judgeChainLock } from './lock-holder-rule.js';
export {
  type ChainLockRecoveries,
  type ChainLockRecoveryCite,
  type RecoverChainLockOptions,
  type RecoverChainLockResult,
  readChainLockRecoveries,
  readEffectLedgerLockRecoveries,
  recoverChainJournalLock,
  recoverEffectLedgerLock,
} from './lock-recovery.js';
export {
  CHAIN_LOCK_RECOVERY_SCHEMA,
  type ChainLockRecovery,
  ChainLockRecoverySchema,
  LOCK_RECOVERIES_DIR,
  lockRecoveryBytes,
  lockRecoveryFileName,
  parseChainLockRecovery,
} from './lock-recovery-record.js';
export type { MachineRunOptions, MachineRunResult } from './machine-runner.js';
export { runChainMachine } from './machine-runner.js';
export type { SeamCommit, SeamFailure, SeamOutcome, SeamPlan } from './seam.js';
export {
  acceptanceFor,
  checkDelta,
  checkpointProblem,
  checkRequires,
  inputRunId,
  nextStage,
  stageFailure,
  stageRunId,
} from './seam.js';
export type { SeamCode } from './seam-error.js';
export { isSeamError, SEAM_CODES, SeamError } from './seam-error.js';
export type { StageContext, StageFn } from './stage-call.js';
export { callStage } from './stage-call.js';
export type { FactInput, FactValue, StageDelta } from './stage-delta.js';
export { FactValueSchema, parseStageDelta, StageDeltaSchema, stageDelta } from './stage-delta.js';
export type { StageSpec } from './stage-spec.js';
export { StageSpecSchema, stageSpec } from './stage-spec.js';
export type {
  StoreChainCommit,
  StoreChainJournal,
  StoreChainJournalOptions,
  StoreJournalChain,
} from './store-journal.js';
export { createStoreChainJournal } from './store-journal.js';
export type { ChainTaskContract, ChainTaskContractInput, ExecutionBudget } from './task-contract.js';
export {
  ChainTaskContractSchema,
  contractDigest,
  createTaskContract,
  ExecutionBudgetSchema,
} from './task-contract.js';
export { assertTopology, topologyProblems } from './topology.js';
