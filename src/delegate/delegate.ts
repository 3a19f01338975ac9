/**
 * `delegate` (layer 3, effects): one checked handoff for a host that already has an agent loop —
 * check the dispatch against the disk, journal it, run the worker under a time budget, apply every
 * check the cycle runtime applies to a returned handoff, put back what a refused worker touched,
 * journal the one handoff the host receives.
 */

import { fromPromise } from 'xstate';
import { delegationMachine } from '../../machines/delegation.js';
import { createTraceCollector } from '../audit/trace-collector.js';
import { deepFreeze } from '../canonical/index.js';
import type { Dispatch } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { restoreOwned } from '../runtime/owned-files.js';
import type { StoreResult } from '../store/index.js';
import { type HeldBefore, prepareDelegation, type WatchOptions, watchedStoreRoot } from './before.js';
import { settleAttempt } from './check-handoff.js';
import type {
  CheckInput,
  JournalDispatchOutput,
  JournalHandoffInput,
  JournalHandoffOutput,
  PrepareOutput,
  RestoreOwnedInput,
  RunWorkerInput,
} from './delegation-reducers.js';
import { runToEnd } from './delegation-run.js';
import { checkDispatchRecord } from './dispatch-check.js';
import { journalDispatch, journalHandoff } from './journal.js';
import { resolveProjectRoot } from './project-root.js';
import { type DelegateWorker, runWorker } from './run-worker.js';
import type { Attempt, CheckResult } from './settle-rules.js';
import { withTurns } from './turns.js';

/**
 * Options of {@link delegate}.
 *
 * @example
 * ```ts
 * const o: DelegateOptions = { store, timeoutMs: 120_000, signal: controller.signal };
 * ```
 */
export interface DelegateOptions extends WatchOptions {
  /** Aborting it ends the attempt as a `user-stop` (the worker's own signal is aborted too). */
  readonly signal?: AbortSignal;
  /** Milliseconds the worker may take (an integer, 1 … 2^31-1; default: no limit). */
  readonly timeoutMs?: number;
}

/**
 * What {@link delegate} returns.
 *
 * @example
 * ```ts
 * const { outcome, handoff, violations, cite }: DelegateResult = await delegate(dispatch, worker, { store });
 * ```
 */
export interface DelegateResult extends CheckResult {
  /** `<run_id>#<seq>` of the handoff event, when a store was given and it holds the event. */
  readonly cite?: string;
  /**
   * The store's answer to the last journal write (the run's creation when the store refused it,
   * else the handoff event), when a store was given.
   */
  readonly journal?: StoreResult;
}

const MAX_TIMEOUT = 2 ** 31 - 1;

function checkOptions(o: DelegateOptions): void {
  if (typeof o !== 'object' || o === null)
    throw new HandoffError('usage', 'delegate options must be an object');
  const t = o.timeoutMs;
  if (t !== undefined && !(Number.isInteger(t) && t >= 1 && t <= MAX_TIMEOUT)) {
    throw new HandoffError(
      'usage',
      `timeoutMs must be an integer from 1 to ${MAX_TIMEOUT}, got ${String(t)}`,
    );
  }
  if (o.signal !== undefined && !(o.signal instanceof AbortSignal)) {
    throw new HandoffError('usage', 'signal must be an AbortSignal');
  }
}

/**
 * Runs `worker` on `dispatch` and returns one checked handoff. The worker is an async function
 * `(dispatch, { signal }) => handoff` or any object with such a `run` method; its answer is
 * untrusted. Every check of the cycle runtime applies (see `DELEGATE_CHECKS`): the answer must be
 * a valid run-contract/v1 handoff echoing the task and owned set; nothing outside the owned files
 * may change (project files, git control files, the run store); no owned file may become a link;
 * the returned baseline must cover the owned files, advance only `files_changed` and match the
 * bytes; declaration headers and the search grant must hold.
 *
 * The result always holds a valid handoff: the worker's own when `accepted`; a protocol-error stop
 * (or a `stuck` safety-guard stop for a statement-fence breach) when `refused`; an
 * operational-error stop when the worker threw, timed out or stopped on an error of its own, a
 * `user-stop` when the host aborted (`failed`). A refused or failed worker's changes to the owned
 * files, git control files and run store are put back. With a `store`, the dispatch is the run's
 * manifest before the worker starts and the handoff its event after the checks (`cite`), carrying
 * the delegation machine's transitions (`machines/delegation.ts`; `handoff inspect` and
 * `handoff audit` read them); an accepted handoff the store refuses to record is not accepted
 * (write-ahead): `failed`, its owned files put back.
 *
 * Delegations in this process that share a project root or a file-system store take turns (a
 * concurrent one's writes would be taken for this worker's); use separate work trees for parallel
 * workers.
 *
 * @example
 * ```ts
 * const dispatch = await createDispatch({ target: 'src/greeting.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/greeting.ts'] });
 * const { outcome, handoff, violations, cite } = await delegate(dispatch, async (d) => {
 *   await mySubagent.edit(d.owned_files[0]); // the framework's agent call
 *   const file_baseline = await advanceBaseline(d.file_baseline, d.owned_files);
 *   return handoffFor(d, { files_changed: [...d.owned_files], file_baseline });
 * }, { store: createFsStore({ projectRoot: process.cwd() }), timeoutMs: 120_000 });
 * ```
 * @throws HandoffError `usage` for invalid options (`timeoutMs`, `signal`); `invalid_input` for a
 * `projectRoot` that is not a directory or does not hold the owned files. Nothing a worker does
 * makes it reject.
 */
export async function delegate(
  dispatch: Dispatch,
  worker: DelegateWorker,
  options: DelegateOptions = {},
): Promise<DelegateResult> {
  checkOptions(options);
  const c = checkDispatchRecord(dispatch);
  if (!c.ok) return deepFreeze({ ...c.result });
  const d = c.dispatch;
  // a host's bad project root is refused before anything is journaled
  const projectRoot = await resolveProjectRoot(d.owned_files, options.projectRoot);
  const storeRoot = await watchedStoreRoot(options.store);
  const places = storeRoot === null ? [projectRoot] : [projectRoot, storeRoot];
  return withTurns(places, () => delegateInTurn(d, worker, options, projectRoot));
}

/** {@link delegate} once the project and store are this delegation's alone: the delegation machine, run. */
async function delegateInTurn(
  d: Dispatch,
  worker: DelegateWorker,
  options: DelegateOptions,
  projectRoot: string,
): Promise<DelegateResult> {
  const store = options.store;
  // the machine's transitions go with the handoff's journal write (handoff audit replays them)
  const trace = store === undefined ? null : createTraceCollector({ machines: [delegationMachine.id] });
  const machine = delegationMachine.provide({
    actors: {
      journalDispatch: fromPromise<JournalDispatchOutput, { dispatch: Dispatch }>(async ({ input }) => {
        if (store === undefined) return { ok: true, runId: null, result: null };
        const j = await journalDispatch(store, input.dispatch);
        return j.ok ? { ok: true, runId: j.runId, result: j.result } : { ok: false, result: j.result };
      }),
      prepare: fromPromise<PrepareOutput, { dispatch: Dispatch }>(async ({ input }) => {
        const p = await prepareDelegation(input.dispatch, { ...options, projectRoot });
        return p.ok ? { ok: true, held: p.held } : { ok: false, result: p.result };
      }),
      runWorker: fromPromise<Attempt, RunWorkerInput>(async ({ input }) =>
        runWorker(worker, (input.held as HeldBefore).dispatch, options),
      ),
      check: fromPromise<CheckResult, CheckInput>(async ({ input }) =>
        settleAttempt(input.held as HeldBefore, input.attempt),
      ),
      journalHandoff: fromPromise<JournalHandoffOutput, JournalHandoffInput>(async ({ input }) => {
        if (store === undefined || input.runId === null) return { result: null };
        const j = await journalHandoff(store, input.runId, input.handoff, trace?.take() ?? []);
        return j.cite === undefined ? { result: j.result } : { result: j.result, cite: j.cite };
      }),
      restoreOwned: fromPromise<readonly string[], RestoreOwnedInput>(async ({ input }) => {
        const r = await restoreOwned((input.held as HeldBefore).captured);
        if (r.failed.length > 0) return [`could not restore ${r.failed.join(', ')}`];
        return r.restored.length > 0 ? ['owned files restored to their pre-dispatch bytes'] : [];
      }),
    },
  });
  const out = await runToEnd(machine, { dispatch: d }, trace?.inspect);
  const { result, journal, cite } = out;
  return deepFreeze({
    ...result,
    ...(cite === null ? {} : { cite }),
    ...(journal === null ? {} : { journal }),
  });
}
