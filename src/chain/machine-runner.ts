/**
 * The one driver of the handoff chain: provides `machines/chain.ts`'s three actors from a chain
 * (stage functions, delta checks, journal append) and runs the seam machine. `HandoffChain.run`,
 * `resume` and `advance` and {@link runChainMachine} all go through {@link driveChain}, so the
 * graph-generated suite of the machine tests the code users run.
 */
import { createActor, fromPromise, waitFor } from 'xstate';
import { type ChainMachineFailure, chainMachine } from '../../machines/chain.js';
import { combineInspectors, type MachineInspector } from '../../machines/inspector.js';
import { HandoffError } from '../errors/index.js';
import type { AcceptanceReceipt } from './acceptance-receipt.js';
import type { Baton } from './baton.js';
import { createView } from './baton-view.js';
import type { ChainJournal } from './journal.js';
import { checkDelta, checkpointProblem, type SeamCommit, type SeamOutcome, type SeamPlan } from './seam.js';
import type { PersistCommitInput, RunStageInput, ValidateDeltaInput } from './seam-lifecycle.js';
import { callStage, type StageFn } from './stage-call.js';
import type { ChainTaskContract } from './task-contract.js';

/** Options of a chain run (`HandoffChain.run`, `resume`, {@link runChainMachine}). */
export interface RunOptions {
  /** Makes every commit durable before the next stage starts. */
  readonly journal?: ChainJournal;
  /** Called after each commit (after the journal write). */
  readonly onCommit?: (commit: SeamCommit) => void | Promise<void>;
  /**
   * Per-stage time limit; defaults to the contract's `budget.timeout_seconds`. When it passes the
   * stage's `signal` aborts and the seam fails with `stage_failed` (`TimeoutError`).
   */
  readonly stageTimeoutMs?: number;
  /**
   * Decides whether a failed seam is retried in the same run (the same `stage_run_id`), bounded by
   * the contract's `budget.max_attempts`. Default: never — the run stops at the seam.
   */
  readonly retryWhen?: (failure: ChainMachineFailure, attempt: number) => boolean;
  /**
   * An xstate inspector attached to the seam machine's actor (`createActor(machine, { inspect })`):
   * it sees every event, snapshot and invoked stage, check and journal actor.
   */
  readonly inspect?: MachineInspector;
}

/** Options of {@link runChainMachine} (the same as a chain run's). */
export type MachineRunOptions = RunOptions;

/** Verdict of {@link runChainMachine}. */
export interface MachineRunResult {
  readonly status: 'accepted' | 'stopped';
  /** The final baton (accepted) or the checkpoint (stopped). */
  readonly baton: Baton;
  readonly acceptance: AcceptanceReceipt | null;
  readonly failure: ChainMachineFailure | null;
  /** Every state the machine passed through, in order (for inspection). */
  readonly states: readonly string[];
}

/** What the driver needs of a chain (a `HandoffChain` is one). */
export interface DrivableChain extends SeamPlan {
  readonly contract: ChainTaskContract;
  stageFn(index: number): StageFn;
}

/** How far {@link driveChain} drives: to a final state, or through one seam up to its commit. */
export type DriveMode = 'run' | 'one-seam';

/** What {@link driveChain} ended with. */
export interface ChainDrive extends MachineRunResult {
  /** `one-seam`: the validated commit the machine reached (not journaled); null otherwise. */
  readonly commit: SeamCommit | null;
  /** What the journal (or `onCommit`) threw when the run stopped with `commit_failed`. */
  readonly commitError: { readonly error: unknown } | null;
}

/**
 * Drives the seam machine for `chain` from `baton`. `run` starts by journaling the starting baton
 * and ends in a final state (`accepted`, or `stopped` at a seam that was not retried); `one-seam`
 * stops as soon as the first seam's commit is validated, before anything is journaled and before
 * the next stage could start.
 *
 * @example
 * ```ts
 * const d = await driveChain(chain, b0, { journal }, 'run');
 * d.status; // 'accepted'
 * ```
 * A journal that holds its batons' locks across commits (the file journal's `holdLocks`) is told
 * to release the baton's lock when a `run` ends, however it ends. Every `run` drives a new machine
 * from `chain.ready`, also from a checkpoint: a journal's trace of a resumed run starts there (the
 * audit's restart rule, `src/audit/trace-restart.ts`).
 *
 * @throws HandoffError `invalid_checkpoint` for a foreign or inconsistent baton; whatever the
 * journal throws for the starting baton.
 */
export async function driveChain(
  chain: DrivableChain,
  baton: Baton,
  options: RunOptions,
  mode: DriveMode,
): Promise<ChainDrive> {
  const release = (options.journal as { release?: (batonId: string) => Promise<void> } | undefined)?.release;
  if (mode !== 'run' || release === undefined) return driveOnce(chain, baton, options, mode);
  try {
    return await driveOnce(chain, baton, options, mode);
  } finally {
    await release.call(options.journal, baton.baton_id);
  }
}

async function driveOnce(
  chain: DrivableChain,
  baton: Baton,
  options: RunOptions,
  mode: DriveMode,
): Promise<ChainDrive> {
  const problem = checkpointProblem(chain, baton);
  if (problem !== null)
    throw new HandoffError('invalid_checkpoint', problem, { details: { snapshot_id: baton.snapshot_id } });
  const { journal, onCommit } = options;
  if (mode === 'run' && journal !== undefined)
    await journal.commit({ baton, receipt: baton.stage_receipts[baton.stage_receipts.length - 1] ?? null });
  const timeoutMs = options.stageTimeoutMs ?? chain.contract.budget.timeout_seconds * 1000;
  let commitError: { readonly error: unknown } | null = null;
  const persist = async (entry: PersistCommitInput, signal: AbortSignal): Promise<void> => {
    if (mode === 'one-seam') {
      // one seam ends at its validated commit: the driver stops the machine here
      return new Promise<void>((resolve) =>
        signal.addEventListener('abort', () => resolve(), { once: true }),
      );
    }
    try {
      if (journal !== undefined) await journal.commit({ baton: entry.baton, receipt: entry.receipt });
      if (onCommit !== undefined) await onCommit({ ok: true, baton: entry.baton, receipt: entry.receipt });
    } catch (error) {
      commitError = { error };
      throw error;
    }
  };
  const machine = chainMachine.provide({
    actors: {
      runStage: fromPromise<unknown, RunStageInput>(async ({ input, signal }) => {
        const spec = chain.specs[input.stage_index];
        if (spec === undefined) throw new HandoffError('internal', `no stage ${input.stage_index}`);
        const view = createView(input.baton, spec.name, input.stage_run_id);
        return callStage(chain.stageFn(input.stage_index), view, timeoutMs, signal);
      }),
      validateDelta: fromPromise<SeamOutcome, ValidateDeltaInput>(async ({ input }) =>
        checkDelta(chain, input.baton, input.delta),
      ),
      persistCommit: fromPromise<void, PersistCommitInput>(({ input, signal }) => persist(input, signal)),
    },
  });
  // a journal that records the machine's transitions with its writes (the run-store and file journals)
  // observes the machine beside the caller's inspector
  const inspect = combineInspectors(
    options.inspect,
    (journal as { inspect?: MachineInspector } | undefined)?.inspect,
  );
  const actor = createActor(machine, {
    input: {
      chain_id: chain.chain_id,
      contract_digest: chain.contract_digest,
      specs: chain.specs,
      initial_keys: chain.initial_keys,
      baton,
      max_attempts: chain.contract.budget.max_attempts,
    },
    ...(inspect === undefined ? {} : { inspect }),
  });
  const states: string[] = [];
  actor.subscribe((s) => {
    const v = String(s.value);
    if (states[states.length - 1] !== v) states.push(v);
  });
  actor.start();
  try {
    actor.send({ type: 'START' });
    for (;;) {
      const s = await waitFor(
        actor,
        (x) =>
          x.status === 'done' || x.value === 'failed' || (mode === 'one-seam' && x.value === 'committed'),
        { timeout: Number.POSITIVE_INFINITY },
      );
      if (s.status === 'done' || s.value === 'committed') break;
      const c = s.context;
      const again =
        mode === 'run' &&
        c.failure !== null &&
        c.attempt < c.max_attempts &&
        (options.retryWhen?.(c.failure, c.attempt) ?? false);
      actor.send({ type: again ? 'RETRY' : 'GIVE_UP' });
    }
    const { context } = actor.getSnapshot();
    const pending = context.pending;
    return {
      status: context.acceptance ? 'accepted' : 'stopped',
      baton: context.baton,
      acceptance: context.acceptance,
      failure: context.failure,
      states,
      commit: mode === 'one-seam' && pending !== null ? { ok: true, ...pending } : null,
      commitError,
    };
  } finally {
    actor.stop();
  }
}

/**
 * Runs `chain` from `baton` through the seam machine and reports the verdict as data: a refusal
 * (or a journal failure, `commit_failed`) is `status: 'stopped'` with the failure and the
 * checkpoint, not an exception.
 *
 * @example
 * ```ts
 * const r = await runChainMachine(chain, b0, { journal, retryWhen: (f) => f.code === 'stage_failed' });
 * r.status; // 'accepted'
 * ```
 * @throws HandoffError `invalid_checkpoint` for a foreign or inconsistent baton.
 */
export async function runChainMachine(
  chain: DrivableChain,
  baton: Baton,
  options: MachineRunOptions = {},
): Promise<MachineRunResult> {
  const d = await driveChain(chain, baton, options, 'run');
  return { status: d.status, baton: d.baton, acceptance: d.acceptance, failure: d.failure, states: d.states };
}
