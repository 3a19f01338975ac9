/**
 * handoff-runtime — verifiable agent handoffs. The embedding API: the run-contract records and
 * their validators (their zod schemas are on `handoff-runtime/contract`), the rerun guard, the
 * delegation API (one checked handoff around a host's own worker call), the baseline verbs, the `Store` interface with the file-system
 * and in-memory stores, persistence, the runners of the three protocols (cycle, chain, gate),
 * errors and canonical JSON. Everything else lives on its area's subpath (`handoff-runtime/store`,
 * `/gate`, `/viz`, …; PostgreSQL on `handoff-runtime/pg`); see docs/architecture.md § Public surface.
 *
 * The names are listed one by one (no `export *`), imported from the files that define them, and
 * pinned by test/package/export-names.json: a new root name is a reviewed diff.
 */

// advanced by the worker, checked by the parent: file-baseline/v1 custody
export { type AdvanceBaselineOptions, advanceBaseline } from './baseline/advance.js';
export { type BaselineCheckOptions, checkBaseline } from './baseline/check.js';
export type { BaselineCheck } from './baseline/check-schema.js';
export { CustodyChain } from './baseline/custody.js';
export { type RecordBaselineOptions, recordBaseline } from './baseline/record.js';
export type { FileBaseline } from './baseline/schema.js';
// canonical JSON and digests
export { canonicalJson } from './canonical/canonical-json.js';
export { digestOf, fingerprintOf, sha256Hex } from './canonical/digest.js';
// the handoff chain's runner
export type { Baton } from './chain/baton.js';
export {
  type ChainDefinition,
  type ChainResult,
  type ChainStage,
  createChain,
  HandoffChain,
} from './chain/chain.js';
export { factRule } from './chain/fact-rule.js';
export { createFileChainJournal } from './chain/file-journal.js';
export type { ChainJournal } from './chain/journal.js';
export { isSeamError, SeamError } from './chain/seam-error.js';
export { stageDelta } from './chain/stage-delta.js';
export { type ChainTaskContract, createTaskContract } from './chain/task-contract.js';
// run-contract/v1 records, validators and the rerun guard
export { blockerSignature } from './contract/blocker-signature.js';
export type { Dispatch } from './contract/dispatch-schema.js';
export { handoffFor } from './contract/handoff-for.js';
export type { Handoff } from './contract/handoff-schema.js';
export { protocolErrorHandoff } from './contract/protocol-error.js';
export { type RerunVerdict, rerunGuard } from './contract/rerun-guard.js';
export { validateBaseline, validateDispatch, validateHandoff } from './contract/validate.js';
// one checked handoff for a host with its own agent loop (handoff-runtime/delegate)
export { captureBefore } from './delegate/before.js';
export { canRelaunch } from './delegate/can-relaunch.js';
export { checkHandoff } from './delegate/check-handoff.js';
export { createDispatch } from './delegate/create-dispatch.js';
export { type DelegateResult, delegate } from './delegate/delegate.js';
export { operationalErrorHandoff } from './delegate/refusal-handoff.js';
export type { DelegateWorker } from './delegate/run-worker.js';
// errors
export type { HandoffErrorCode } from './errors/error-codes.js';
export { HandoffError, isHandoffError } from './errors/handoff-error.js';
// the gate protocol's runner
export { type RunGateOptions, type RunGateResult, runGate } from './gate/gate-runner.js';
// persistence (the barrel, so the controller's files can move without touching this list)
export { PersistController, type PersistControllerOptions, type PersistResult } from './persist/index.js';
// the six-phase cycle's runners
export { createPersistRecorder, type PersistRecorderOptions } from './runtime/persist-recorder.js';
export type { CyclePorts } from './runtime/ports.js';
export { type ProjectRunOptions, type ProjectRunResult, runProject } from './runtime/project-run.js';
export { type CycleRunInput, type CycleRunResult, runCycle } from './runtime/run-cycle.js';
// run-store/v1: the Store interface, the file-system and in-memory stores, cites (the barrel, so
// the store's files can move without touching this list)
export {
  type CreateRunInput,
  createFsStore,
  createMemoryStore,
  type FsStore,
  type FsStoreOptions,
  formatCite,
  type LoadResult,
  type MemoryStore,
  type MemoryStoreOptions,
  parseCite,
  type RunLoad,
  resolveCite,
  type Store,
  type StoreOutcome,
  type StoreResult,
} from './store/index.js';
export type { ValidationIssue, ValidationResult } from './validation/result.js';
