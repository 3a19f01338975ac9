/**
 * The runtime side of `machines/chain.ts`: provides the machine's three actors from a
 * {@link HandoffChain} (stage functions, delta checks, journal append) and drives it to a
 * verdict. Behaviour matches {@link HandoffChain.run}; this path additionally exposes the seam
 * lifecycle as machine states (for inspection, visualization and retries inside one actor).
 */
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  type ChainMachineFailure,
  chainMachine,
  type PersistCommitInput,
  type RunStageInput,
  type ValidateDeltaInput,
} from '../../machines/chain.js';
import { HandoffError } from '../errors/index.js';
import type { AcceptanceReceipt } from './acceptance-receipt.js';
import type { Baton } from './baton.js';
import { createView } from './baton-view.js';
import type { HandoffChain } from './chain.js';
import type { ChainJournal } from './journal.js';
import { checkDelta, checkpointProblem, type SeamOutcome } from './seam.js';
import { callStage } from './stage-call.js';

/** Options of {@link runChainMachine}. */
export interface MachineRunOptions {
  readonly journal?: ChainJournal;
  /** Decides whether a failed seam is retried (bounded by the contract's max_attempts). Default: never. */
  readonly retryWhen?: (failure: ChainMachineFailure, attempt: number) => boolean;
}

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

/**
 * Runs `chain` from `baton` through the seam machine.
 *
 * @example
 * ```ts
 * const r = await runChainMachine(chain, b0, { journal, retryWhen: (f) => f.code === 'stage_failed' });
 * r.status; // 'accepted'
 * ```
 * @throws HandoffError `invalid_checkpoint` for a foreign or inconsistent baton.
 */
export async function runChainMachine(
  chain: HandoffChain,
  baton: Baton,
  options: MachineRunOptions = {},
): Promise<MachineRunResult> {
  const problem = checkpointProblem(chain, baton);
  if (problem !== null)
    throw new HandoffError('invalid_checkpoint', problem, { details: { snapshot_id: baton.snapshot_id } });
  if (options.journal)
    await options.journal.commit({
      baton,
      receipt: baton.stage_receipts[baton.stage_receipts.length - 1] ?? null,
    });
  const timeoutMs = chain.contract.budget.timeout_seconds * 1000;
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
      persistCommit: fromPromise<void, PersistCommitInput>(async ({ input }) => {
        if (options.journal) await options.journal.commit({ baton: input.baton, receipt: input.receipt });
      }),
    },
  });
  const actor = createActor(machine, {
    input: {
      chain_id: chain.chain_id,
      contract_digest: chain.contract_digest,
      specs: chain.specs,
      initial_keys: chain.initial_keys,
      baton,
      max_attempts: chain.contract.budget.max_attempts,
    },
  });
  const states: string[] = [];
  actor.subscribe((s) => {
    const v = String(s.value);
    if (states[states.length - 1] !== v) states.push(v);
  });
  actor.start();
  actor.send({ type: 'START' });
  for (;;) {
    const s = await waitFor(actor, (x) => x.status === 'done' || x.value === 'failed', {
      timeout: Number.POSITIVE_INFINITY,
    });
    if (s.status === 'done') break;
    const c = s.context;
    const again =
      c.failure !== null &&
      c.attempt < c.max_attempts &&
      (options.retryWhen?.(c.failure, c.attempt) ?? false);
    actor.send({ type: again ? 'RETRY' : 'GIVE_UP' });
  }
  const out = actor.getSnapshot();
  actor.stop();
  return {
    status: out.context.acceptance ? 'accepted' : 'stopped',
    baton: out.context.baton,
    acceptance: out.context.acceptance,
    failure: out.context.failure,
    states,
  };
}
