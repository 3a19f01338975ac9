/**
 * The delegation machine's pure reducers and guards (layer 1, pure): what each actor's answer does
 * to the context of `machines/delegation.ts` — the run the dispatch opened, the snapshot held
 * before the worker, the worker's attempt, the checked result, the journal's answer — and the
 * output a host receives. No I/O: the actors (journal writes, the before-snapshot, the worker, the
 * checks) are provided by the host (`src/delegate/delegate.ts`).
 */
import type { Dispatch, Handoff } from '../contract/index.js';
import type { StoreResult } from '../store/store-types.js';
import { describeThrown } from './describe-thrown.js';
import { operationalErrorHandoff } from './refusal-handoff.js';
import type { Attempt, CheckResult, DelegateOutcome } from './settle-rules.js';
import { storeRefusal } from './store-refusal.js';

/**
 * What a delegation machine starts from: the validated dispatch.
 *
 * @example
 * ```ts
 * const input: DelegationMachineInput = { dispatch };
 * ```
 */
export interface DelegationMachineInput {
  readonly dispatch: Dispatch;
}

/**
 * The `journalDispatch` actor's answer: the run the dispatch opened (`runId` null when the host
 * keeps no journal), or the store's refusal.
 *
 * @example
 * ```ts
 * const out: JournalDispatchOutput = { ok: true, runId: '20261130T100000Z-0a1b2c3d', result };
 * ```
 */
export type JournalDispatchOutput =
  | { readonly ok: true; readonly runId: string | null; readonly result: StoreResult | null }
  | { readonly ok: false; readonly result: StoreResult };

/**
 * The `prepare` actor's answer: the snapshot held before the worker (opaque to the machine), or
 * the result of a dispatch refused before the worker (external drift, an unguardable owned file).
 *
 * @example
 * ```ts
 * const out: PrepareOutput = { ok: false, result: { outcome: 'refused', handoff, violations } };
 * ```
 */
export type PrepareOutput =
  | { readonly ok: true; readonly held: unknown }
  | { readonly ok: false; readonly result: CheckResult };

/**
 * Input of the `prepare` actor.
 *
 * @example
 * ```ts
 * const i: PrepareInput = { dispatch };
 * ```
 */
export interface PrepareInput {
  readonly dispatch: Dispatch;
}

/**
 * Input of the `runWorker` actor: the dispatch and the held snapshot.
 *
 * @example
 * ```ts
 * const i: RunWorkerInput = { dispatch, held };
 * ```
 */
export interface RunWorkerInput {
  readonly dispatch: Dispatch;
  readonly held: unknown;
}

/**
 * Input of the `check` actor: the held snapshot and what the worker gave.
 *
 * @example
 * ```ts
 * const i: CheckInput = { held, attempt: { kind: 'returned', read } };
 * ```
 */
export interface CheckInput {
  readonly held: unknown;
  readonly attempt: Attempt;
}

/**
 * Input of the `journalHandoff` actor: the run (null without a journal), the one handoff and the
 * outcome it settles with.
 *
 * @example
 * ```ts
 * const i: JournalHandoffInput = { runId, handoff, outcome: 'accepted' };
 * ```
 */
export interface JournalHandoffInput {
  readonly runId: string | null;
  readonly handoff: Handoff;
  readonly outcome: DelegateOutcome;
}

/**
 * The `journalHandoff` actor's answer: the store's answer (null without a journal) and the cite
 * when the event is in the journal.
 *
 * @example
 * ```ts
 * const out: JournalHandoffOutput = { result, cite: '20261130T100000Z-0a1b2c3d#1' };
 * ```
 */
export interface JournalHandoffOutput {
  readonly result: StoreResult | null;
  readonly cite?: string;
}

/**
 * The delegation machine's context.
 *
 * @example
 * ```ts
 * initialDelegationContext({ dispatch }).result; // null
 * ```
 */
export interface DelegationMachineContext {
  readonly dispatch: Dispatch;
  readonly runId: string | null;
  /** The snapshot held before the worker (the host's), or null before `prepare`. */
  readonly held: unknown;
  readonly attempt: Attempt | null;
  readonly result: CheckResult | null;
  /** The store's answer to the last journal write, or null. */
  readonly journal: StoreResult | null;
  readonly cite: string | null;
}

/**
 * What a delegation machine ends with.
 *
 * @example
 * ```ts
 * const { result, cite }: DelegationMachineOutput = actor.getSnapshot().output;
 * ```
 */
export interface DelegationMachineOutput {
  readonly result: CheckResult;
  readonly runId: string | null;
  readonly journal: StoreResult | null;
  readonly cite: string | null;
}

/**
 * The context a delegation starts with.
 *
 * @example
 * ```ts
 * initialDelegationContext({ dispatch }).runId; // null
 * ```
 */
export function initialDelegationContext(input: DelegationMachineInput): DelegationMachineContext {
  return {
    dispatch: input.dispatch,
    runId: null,
    held: null,
    attempt: null,
    result: null,
    journal: null,
    cite: null,
  };
}

/**
 * True when the dispatch was journaled (or the host keeps no journal).
 *
 * @example
 * ```ts
 * dispatchJournaled({ ok: true, runId: null, result: null }); // true
 * ```
 */
export function dispatchJournaled(out: JournalDispatchOutput): boolean {
  return out.ok;
}

/**
 * The run the dispatch opened.
 *
 * @example
 * ```ts
 * recordRun(ctx, { ok: true, runId: 'R', result }).runId; // 'R'
 * ```
 */
export function recordRun(
  ctx: DelegationMachineContext,
  out: JournalDispatchOutput,
): DelegationMachineContext {
  return out.ok ? { ...ctx, runId: out.runId, journal: out.result } : ctx;
}

/**
 * The store refused the dispatch: the worker never runs; the result is an operational-error stop
 * naming the refusal.
 *
 * @example
 * ```ts
 * recordDispatchRefused(ctx, { ok: false, result }).result?.outcome; // 'failed'
 * ```
 */
export function recordDispatchRefused(
  ctx: DelegationMachineContext,
  out: JournalDispatchOutput,
): DelegationMachineContext {
  const result = out.result;
  const detail =
    result === null
      ? 'the run store did not record the dispatch'
      : `the run store did not record the dispatch: ${storeRefusal(result)}`;
  return {
    ...ctx,
    journal: result,
    result: { outcome: 'failed', handoff: operationalErrorHandoff(ctx.dispatch, detail), violations: [] },
  };
}

/**
 * The host's dispatch journal threw (a host actor should answer, never throw).
 *
 * @example
 * ```ts
 * recordDispatchCrash(ctx, new Error('disk')).result?.handoff.stop_detail; // 'the run store did not record the dispatch: disk'
 * ```
 */
export function recordDispatchCrash(ctx: DelegationMachineContext, error: unknown): DelegationMachineContext {
  const detail = `the run store did not record the dispatch: ${describeThrown(error)}`;
  return {
    ...ctx,
    result: { outcome: 'failed', handoff: operationalErrorHandoff(ctx.dispatch, detail), violations: [] },
  };
}

/**
 * True when the before-snapshot is held (the worker may run).
 *
 * @example
 * ```ts
 * prepared({ ok: true, held: {} }); // true
 * ```
 */
export function prepared(out: PrepareOutput): boolean {
  return out.ok;
}

/**
 * Keeps the before-snapshot, or the result of a dispatch refused before the worker.
 *
 * @example
 * ```ts
 * recordPrepared(ctx, { ok: true, held }).held === held; // true
 * ```
 */
export function recordPrepared(ctx: DelegationMachineContext, out: PrepareOutput): DelegationMachineContext {
  return out.ok ? { ...ctx, held: out.held } : { ...ctx, result: out.result };
}

/**
 * The outcome a prepare's refusal settles with (null when the snapshot is held).
 *
 * @example
 * ```ts
 * prepareOutcome({ ok: false, result: { outcome: 'refused', handoff, violations } }); // 'refused'
 * ```
 */
export function prepareOutcome(out: PrepareOutput): DelegateOutcome | null {
  return out.ok ? null : out.result.outcome;
}

/**
 * Keeps what the worker gave.
 *
 * @example
 * ```ts
 * recordAttempt(ctx, { kind: 'returned', read }).attempt?.kind; // 'returned'
 * ```
 */
export function recordAttempt(ctx: DelegationMachineContext, attempt: Attempt): DelegationMachineContext {
  return { ...ctx, attempt };
}

/**
 * The worker actor itself crashed (it answers with a failure, never throws): the attempt is an
 * operational error, and the checks still run (they put back what it touched).
 *
 * @example
 * ```ts
 * recordWorkerCrash(ctx, 'x').attempt; // { kind: 'failed', failure: { stop: 'operational-error', detail: 'the worker threw: x' } }
 * ```
 */
export function recordWorkerCrash(ctx: DelegationMachineContext, error: unknown): DelegationMachineContext {
  return {
    ...ctx,
    attempt: {
      kind: 'failed',
      failure: { stop: 'operational-error', detail: `the worker threw: ${describeThrown(error)}` },
    },
  };
}

/**
 * Keeps the checked result.
 *
 * @example
 * ```ts
 * recordResult(ctx, r).result === r; // true
 * ```
 */
export function recordResult(ctx: DelegationMachineContext, result: CheckResult): DelegationMachineContext {
  return { ...ctx, result };
}

/**
 * The checks could not complete (a host actor should answer, never throw): an operational-error
 * stop naming why.
 *
 * @example
 * ```ts
 * recordCheckCrash(ctx, new Error('EIO')).result?.outcome; // 'failed'
 * ```
 */
export function recordCheckCrash(ctx: DelegationMachineContext, error: unknown): DelegationMachineContext {
  const detail = `the checks could not complete: ${describeThrown(error)}`;
  return {
    ...ctx,
    result: { outcome: 'failed', handoff: operationalErrorHandoff(ctx.dispatch, detail), violations: [] },
  };
}

/**
 * True when a checked result settles with `outcome`.
 *
 * @example
 * ```ts
 * resultSettlesAs({ outcome: 'refused', handoff, violations }, 'refused'); // true
 * ```
 */
export function resultSettlesAs(result: CheckResult, outcome: DelegateOutcome): boolean {
  return result.outcome === outcome;
}

/**
 * True when the context's result has `outcome`.
 *
 * @example
 * ```ts
 * settlesAs(ctx, 'accepted'); // true after an accepted check
 * ```
 */
export function settlesAs(ctx: DelegationMachineContext, outcome: DelegateOutcome): boolean {
  return ctx.result?.outcome === outcome;
}

/**
 * The `journalHandoff` actor's input (the result must be set: the machine enters `journal` only
 * with one).
 *
 * @example
 * ```ts
 * journalInput(ctx); // { runId, handoff, outcome }
 * ```
 */
export function journalInput(ctx: DelegationMachineContext): JournalHandoffInput {
  const r = ctx.result as CheckResult;
  return { runId: ctx.runId, handoff: r.handoff, outcome: r.outcome };
}

/**
 * Keeps the journal's answer to the handoff and its cite.
 *
 * @example
 * ```ts
 * recordJournal(ctx, { result, cite: 'R#1' }).cite; // 'R#1'
 * ```
 */
export function recordJournal(
  ctx: DelegationMachineContext,
  out: JournalHandoffOutput,
): DelegationMachineContext {
  return { ...ctx, journal: out.result ?? ctx.journal, cite: out.cite ?? null };
}

/**
 * True when the store refused the handoff event (`nothing_written`): it is not in the journal, so
 * an accepted result cannot be reported accepted (write-ahead: journal, then accept). An
 * `indeterminate` write may be in the journal and is not a refusal.
 *
 * @example
 * ```ts
 * handoffRefusedByStore({ result: { schema: 'run-store-result/v1', outcome: 'nothing_written', run_id: 'R', code: 'busy' } }); // true
 * ```
 */
export function handoffRefusedByStore(out: JournalHandoffOutput): boolean {
  return out.result?.outcome === 'nothing_written';
}

/**
 * True when an accepted result's handoff was refused by the store: the delegation must not settle
 * as accepted (write-ahead).
 *
 * @example
 * ```ts
 * acceptanceUnrecorded(acceptedCtx, { result: refusedResult }); // true
 * ```
 */
export function acceptanceUnrecorded(ctx: DelegationMachineContext, out: JournalHandoffOutput): boolean {
  return settlesAs(ctx, 'accepted') && handoffRefusedByStore(out);
}

/**
 * Input of the `restoreOwned` actor: the held before-snapshot whose owned bytes go back.
 *
 * @example
 * ```ts
 * const i: RestoreOwnedInput = { held };
 * ```
 */
export interface RestoreOwnedInput {
  readonly held: unknown;
}

/**
 * An accepted answer the journal did not record: not accepted after all. The owned files went back
 * to their pre-dispatch bytes (`notes` say what was put back); the result is an operational-error
 * stop naming the store's refusal.
 *
 * @example
 * ```ts
 * recordUnrecorded(ctx, ['owned files restored to their pre-dispatch bytes']).result?.outcome; // 'failed'
 * ```
 */
export function recordUnrecorded(
  ctx: DelegationMachineContext,
  notes: readonly string[],
): DelegationMachineContext {
  const refusal = ctx.journal === null ? 'no answer' : storeRefusal(ctx.journal);
  const detail = [`the run store did not record the handoff: ${refusal}`, ...notes].join('; ');
  return {
    ...ctx,
    cite: null,
    result: { outcome: 'failed', handoff: operationalErrorHandoff(ctx.dispatch, detail), violations: [] },
  };
}

/**
 * The owned files could not be put back after an unrecorded acceptance.
 *
 * @example
 * ```ts
 * recordUnrecordedCrash(ctx, new Error('EACCES')).result?.handoff.stop_detail; // '… could not restore the owned files: EACCES'
 * ```
 */
export function recordUnrecordedCrash(
  ctx: DelegationMachineContext,
  error: unknown,
): DelegationMachineContext {
  return recordUnrecorded(ctx, [`could not restore the owned files: ${describeThrown(error)}`]);
}

/**
 * The host's handoff journal threw (it should answer, never throw): the write is indeterminate.
 *
 * @example
 * ```ts
 * recordJournalCrash(ctx, new Error('EIO')).journal?.outcome; // 'indeterminate'
 * ```
 */
export function recordJournalCrash(ctx: DelegationMachineContext, error: unknown): DelegationMachineContext {
  if (ctx.runId === null) return ctx;
  return {
    ...ctx,
    journal: {
      schema: 'run-store-result/v1',
      outcome: 'indeterminate',
      run_id: ctx.runId,
      detail: `the store threw: ${describeThrown(error)}`,
    },
    cite: null,
  };
}

/**
 * What the machine ends with (a result is always set in a final state).
 *
 * @example
 * ```ts
 * delegationOutput(ctx).result.outcome; // 'accepted'
 * ```
 */
export function delegationOutput(ctx: DelegationMachineContext): DelegationMachineOutput {
  const result =
    ctx.result ??
    ({
      outcome: 'failed',
      handoff: operationalErrorHandoff(ctx.dispatch, 'the delegation ended without a result'),
      violations: [],
    } satisfies CheckResult);
  return { result, runId: ctx.runId, journal: ctx.journal, cite: ctx.cite };
}
