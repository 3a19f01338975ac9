/**
 * The seam lifecycle's context and reducers (layer 1, pure): what `machines/chain.ts` remembers
 * while a baton passes its seams, the guards' predicates, and the reducers its `assign` actions
 * apply — `(context, actor output) => context update`. The machine only wires them to states.
 */
import type { AcceptanceReceipt } from './acceptance-receipt.js';
import type { Baton, StageReceipt } from './baton.js';
import type { FactRule } from './fact-rule.js';
import {
  acceptanceFor,
  checkRequires,
  nextStage,
  type SeamCommit,
  type SeamOutcome,
  type SeamPlan,
  stageFailure,
  stageRunId,
} from './seam.js';
import type { SeamCode } from './seam-error.js';
import type { StageSpec } from './stage-spec.js';

/** Input of the chain machine (everything JSON; no clock, no ids generated). */
export interface ChainMachineInput {
  readonly chain_id: string;
  readonly contract_digest: string;
  readonly specs: readonly StageSpec[];
  readonly initial_keys: readonly string[];
  /** The baton to start from (revision 0 or a checkpoint). */
  readonly baton: Baton;
  /** Attempts per seam (the contract's `budget.max_attempts`). */
  readonly max_attempts: number;
}

/** A failure held by the machine: a seam code, or `commit_failed` when the journal append failed. */
export interface ChainMachineFailure {
  readonly code: SeamCode | 'commit_failed';
  readonly stage: string;
  readonly detail: string;
}

/** Context of the chain machine. */
export interface ChainMachineContext {
  readonly chain_id: string;
  readonly contract_digest: string;
  readonly specs: readonly StageSpec[];
  readonly initial_keys: readonly string[];
  readonly max_attempts: number;
  /** The last committed baton (the checkpoint while failed). */
  readonly baton: Baton;
  /** Attempts made at the current seam. */
  readonly attempt: number;
  /** Run id of the current stage run. */
  readonly stage_run_id: string | null;
  /** The delta returned by the stage, awaiting validation. */
  readonly delta: unknown;
  /** The validated next baton and receipt, awaiting the journal. */
  readonly pending: { readonly baton: Baton; readonly receipt: StageReceipt } | null;
  readonly failure: ChainMachineFailure | null;
  /** Set while failed/stopped: the input baton of the failed seam. */
  readonly checkpoint: Baton | null;
  readonly acceptance: AcceptanceReceipt | null;
}

/** Output of the machine when it reaches a final state. */
export interface ChainMachineOutput {
  readonly status: 'accepted' | 'stopped';
  readonly baton: Baton;
  readonly acceptance: AcceptanceReceipt | null;
  readonly failure: ChainMachineFailure | null;
}

/** Input of the `runStage` actor. */
export interface RunStageInput {
  readonly baton: Baton;
  readonly stage_index: number;
  readonly stage_run_id: string;
}

/** Input of the `validateDelta` actor. */
export interface ValidateDeltaInput {
  readonly baton: Baton;
  readonly delta: unknown;
}

/** Input of the `persistCommit` actor. */
export interface PersistCommitInput {
  readonly baton: Baton;
  readonly receipt: StageReceipt;
}

/** A change to the chain machine's context. */
export type ChainUpdate = Partial<ChainMachineContext>;

/**
 * The initial context for an input.
 *
 * @example
 * ```ts
 * initialChainContext({ chain_id, contract_digest, specs, initial_keys: [], baton: b0, max_attempts: 3 }).attempt; // 0
 * ```
 */
export function initialChainContext(input: ChainMachineInput): ChainMachineContext {
  return {
    chain_id: input.chain_id,
    contract_digest: input.contract_digest,
    specs: input.specs,
    initial_keys: input.initial_keys,
    max_attempts: input.max_attempts,
    baton: input.baton,
    attempt: 0,
    stage_run_id: null,
    delta: null,
    pending: null,
    failure: null,
    checkpoint: null,
    acceptance: null,
  };
}

/** The plan view of the context used by the pure seam rules (rules are not needed for check 1). */
function planOf(c: ChainMachineContext): SeamPlan {
  return {
    chain_id: c.chain_id,
    contract_digest: c.contract_digest,
    specs: c.specs,
    initial_keys: c.initial_keys,
    rules: new Map<string, FactRule>(),
  };
}

/** The name of the stage whose seam the held baton is at (`?` when the chain is complete). */
function currentStage(c: ChainMachineContext): string {
  return nextStage(planOf(c), c.baton)?.name ?? '?';
}

/** The baton the next seam starts from: the pending commit once it is durable, else the held baton. */
function seamBaton(c: ChainMachineContext): Baton {
  return c.pending?.baton ?? c.baton;
}

/**
 * True when no stage is left after the seam the machine is entering.
 *
 * @example
 * ```ts
 * chainComplete(initialChainContext({ ...input, baton: finished })); // true
 * ```
 */
export function chainComplete(c: ChainMachineContext): boolean {
  return nextStage(planOf(c), seamBaton(c)) === undefined;
}

/**
 * True when the next stage's required facts are committed (check 1).
 *
 * @example
 * ```ts
 * requiresPresent(initialChainContext(input)); // true for a baton from the chain
 * ```
 */
export function requiresPresent(c: ChainMachineContext): boolean {
  return checkRequires(planOf(c), seamBaton(c)) === null;
}

/**
 * True while the seam has attempts left (`attempt < max_attempts`).
 *
 * @example
 * ```ts
 * canRetry({ ...ctx, attempt: 1, max_attempts: 3 }); // true
 * ```
 */
export function canRetry(c: Pick<ChainMachineContext, 'attempt' | 'max_attempts'>): boolean {
  return c.attempt < c.max_attempts;
}

/**
 * Adopts a commit once it is durable: the pending baton becomes the held one, the seam counters reset.
 *
 * @example
 * ```ts
 * adoptPending(committedCtx).baton === committedCtx.pending?.baton; // true
 * ```
 */
export function adoptPending(c: ChainMachineContext): ChainUpdate {
  return c.pending === null
    ? {}
    : { baton: c.pending.baton, pending: null, delta: null, attempt: 0, stage_run_id: null };
}

/**
 * The acceptance receipt of the held (complete) baton.
 *
 * @example
 * ```ts
 * recordAcceptance(doneCtx).acceptance?.decision; // 'accepted'
 * ```
 */
export function recordAcceptance(c: ChainMachineContext): ChainUpdate {
  return { acceptance: acceptanceFor(planOf(c), c.baton) };
}

/**
 * Starts an attempt at the held baton's seam: one more attempt, the (stable) stage run id, nothing
 * failed, delivered or pending yet.
 *
 * @example
 * ```ts
 * beginAttempt(ctx).stage_run_id; // 'trip-1::route::r1::…' — the same on every retry
 * ```
 */
export function beginAttempt(c: ChainMachineContext): ChainUpdate {
  return {
    attempt: c.attempt + 1,
    stage_run_id: stageRunId(c.baton, currentStage(c)),
    failure: null,
    checkpoint: null,
    delta: null,
    pending: null,
  };
}

/**
 * Fails the seam with check 1's `missing_required_fact`, holding the baton as checkpoint.
 *
 * @example
 * ```ts
 * recordMissingRequired(gapCtx).failure?.code; // 'missing_required_fact'
 * ```
 */
export function recordMissingRequired(c: ChainMachineContext): ChainUpdate {
  const f = checkRequires(planOf(c), c.baton);
  return {
    failure: { code: f?.code ?? 'missing_required_fact', stage: currentStage(c), detail: f?.detail ?? '' },
    checkpoint: c.baton,
  };
}

/**
 * Keeps what the stage returned, for validation.
 *
 * @example
 * ```ts
 * storeDelta(stageDelta({ city: { value: 'Shanghai', evidence: ['chat://1'] } })).delta;
 * ```
 */
export function storeDelta(delta: unknown): ChainUpdate {
  return { delta };
}

/**
 * Fails the seam with `stage_failed` for what the stage (or the validator host) threw.
 *
 * @example
 * ```ts
 * recordStageFailed(ctx, new Error('agent down')).failure?.detail; // 'Error: agent down'
 * ```
 */
export function recordStageFailed(c: ChainMachineContext, thrown: unknown): ChainUpdate {
  const f = stageFailure(currentStage(c), thrown);
  return { failure: { code: f.code, stage: f.stage, detail: f.detail }, checkpoint: c.baton };
}

/**
 * True when the delta checks passed.
 *
 * @example
 * ```ts
 * seamPassed(checkDelta(chain, b0, delta)); // true for a valid delta
 * ```
 */
export function seamPassed(out: SeamOutcome): out is SeamCommit {
  return out.ok;
}

/**
 * Keeps a passed seam's next baton and receipt until the journal has them.
 *
 * @example
 * ```ts
 * storePending(checkDelta(chain, b0, delta)).pending?.baton.revision; // 1
 * ```
 */
export function storePending(out: SeamOutcome): ChainUpdate {
  return { pending: out.ok ? { baton: out.baton, receipt: out.receipt } : null };
}

/**
 * Fails the seam with the code the delta checks refused with, holding the baton as checkpoint.
 *
 * @example
 * ```ts
 * recordSeamFailure(ctx, checkDelta(chain, b1, stageDelta({}))).failure?.code; // 'promised_fact_missing'
 * ```
 */
export function recordSeamFailure(c: ChainMachineContext, out: SeamOutcome): ChainUpdate {
  const failure: ChainMachineFailure = out.ok
    ? { code: 'invalid_stage_delta', stage: currentStage(c), detail: 'unexpected outcome' }
    : { code: out.code, stage: out.stage, detail: out.detail };
  return { failure, checkpoint: c.baton };
}

/**
 * Fails the seam with `commit_failed` when the journal could not make the commit durable; the
 * pending commit is dropped (a retry reruns the stage under the same run id).
 *
 * @example
 * ```ts
 * recordCommitFailed(ctx, new Error('disk full')).failure; // { code: 'commit_failed', stage: 'route', detail: 'Error: disk full' }
 * ```
 */
export function recordCommitFailed(c: ChainMachineContext, thrown: unknown): ChainUpdate {
  const f = stageFailure(currentStage(c), thrown);
  return {
    failure: { code: 'commit_failed', stage: f.stage, detail: f.detail },
    checkpoint: c.baton,
    pending: null,
  };
}

/**
 * The commit the `persistCommit` actor makes durable.
 *
 * @throws Error when nothing is pending (the machine persists only after a passed seam).
 * @example
 * ```ts
 * pendingCommit(committedCtx).receipt.stage_name; // 'route'
 * ```
 */
export function pendingCommit(c: ChainMachineContext): PersistCommitInput {
  if (c.pending === null) throw new Error('the chain machine persists only a validated commit');
  return c.pending;
}

/**
 * The machine's output at a final state.
 *
 * @example
 * ```ts
 * chainOutput(doneCtx).status; // 'accepted'
 * ```
 */
export function chainOutput(c: ChainMachineContext): ChainMachineOutput {
  return {
    status: c.acceptance ? 'accepted' : 'stopped',
    baton: c.baton,
    acceptance: c.acceptance,
    failure: c.failure,
  };
}
