/**
 * The run-persistence controller (layer 3): the helper's verbs as a library. It drives a
 * {@link Store}, keeps the invocation state file (created exclusively at start; every mutation
 * recorded in flight before the store is called and resolved after) and applies the
 * failure-policy table. This file only sequences I/O — read the state, save it, open and call
 * the store, read the clock; every decision is a pure function in this folder:
 *
 * | concept | rules |
 * |---|---|
 * | which state a verb may act on | `state-binding.ts` |
 * | a run already terminal, retiring an unresolved in-flight record | `terminal-rules.ts` |
 * | invalid submissions | `submission-rules.ts` |
 * | starting a run (and a prior-run start) | `start-rules.ts` |
 * | one journal mutation: in flight → verdict → commit or stop | `mutation-rules.ts`, `failure-policy.ts`, `store-verdict.ts` |
 * | recording a stop | `stop-rules.ts` |
 * | inline progress | `progress.ts`, `progress-rules.ts` |
 * | the status report | `status-report.ts` |
 */
import { resolve } from 'node:path';
import { validateDispatch, validateHandoff } from '../contract/validate.js';
import { formatTimestamp } from '../store/run-id.js';
import type { Store, StoreResult, TraceStep } from '../store/store.js';
import { decide } from './failure-policy.js';
import { committedGroupState, groupMutation, memberCommit, provisionalState } from './group-rules.js';
import { reconcileWithJournal } from './journal-truth.js';
import type { Knowledge } from './knowledge.js';
import {
  type AppendVerb,
  appendMutation,
  commitOf,
  commitResult,
  committedState,
  finishMutation,
  inflightState,
  inflightUnsavedStop,
  type Mutation,
  notCalledStop,
  sourceNoteMutation,
  unstoredStop,
} from './mutation-rules.js';
import { checkProgress } from './progress.js';
import {
  invalidProgressResult,
  progressPlan,
  progressRecordedResult,
  progressUnresolvedResult,
  progressUnsavedStop,
} from './progress-rules.js';
import { type PersistResult, persistResult } from './result.js';
import {
  createdState,
  createdUnsavedResult,
  createFailedResult,
  createFailedState,
  createOutcome,
  initialState,
  type PreparedPriorRun,
  priorStartResult,
  startedResult,
  stateCreateError,
} from './start-rules.js';
import { rootMismatch, unusableStateResult } from './state-binding.js';
import { nodeStateFs, type StateFs } from './state-file.js';
import type { PersistState } from './state-schema.js';
import { fileStateStore, type StateStore } from './state-store.js';
import { statusResult } from './status-report.js';
import { type StopPlan, stoppedState, stopResult } from './stop-rules.js';
import { classifyStoreResult, isBusy, type StoreVerdict, verdictFromThrow } from './store-verdict.js';
import {
  INVALID_FINISH_DETAIL,
  invalidFinishResult,
  invalidSubmissionDetail,
  invalidSubmissionResult,
  invalidSubmissionState,
  issuesOf,
  submissionIssues,
} from './submission-rules.js';
import { isTerminal, retireInflight, terminalResult, unresolvedInflight } from './terminal-rules.js';

export type { PreparedPriorRun } from './start-rules.js';

/** Options of {@link PersistController}. */
export interface PersistControllerOptions {
  /**
   * The invocation state file (from `--state` or `HANDOFF_RUN_PERSIST_STATE`); required unless
   * `stateStore` is given.
   */
  readonly statePath?: string;
  /**
   * Where the state lives instead of a state file: `memoryStateStore()` for an in-process run
   * (nothing but the journal is written; see state-store.ts).
   */
  readonly stateStore?: StateStore;
  /** Opens the store at a storage root (the start root, then the root bound in the state). */
  readonly openStore: (root: string) => Store | Promise<Store>;
  /** The storage root resolved for start (`--root`/`--run-store` → env → `<project>/.handoff`). */
  readonly storageRoot?: string;
  /** A root given explicitly on this call; a later call naming another root than the bound one is refused. */
  readonly requestedRoot?: string | null;
  /** Real project root (default: cwd). */
  readonly projectRoot?: string;
  /** Clock (default `() => new Date()`). */
  readonly clock?: () => Date;
  /** Sleep used before the one `busy` retry (default: a real 1 s timer). */
  readonly sleep?: (ms: number) => Promise<void>;
  /** State file operations (default: node:fs); used with `statePath`. */
  readonly stateFs?: StateFs;
  /**
   * The machine transitions since the previous store call (a trace collector's `take`): when it
   * yields steps and the store has `appendBatch`, the mutation is written as a one-event batch
   * carrying them (`handoff audit` replays them). The steps are taken once per mutation.
   */
  readonly trace?: () => readonly TraceStep[];
}

/** Input of {@link PersistController.start}. */
export interface StartInput {
  /** The first dispatch (parsed JSON). */
  readonly dispatch: unknown;
  readonly trackerSessionId?: string | null;
  /** Creation time `YYYY-MM-DDTHH:MM:SSZ` (default: the clock). */
  readonly now?: string;
}

/** The busy retry delay of the failure policy. */
export const BUSY_RETRY_MS = 1000;

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/**
 * The run-persistence controller.
 *
 * @example
 * ```ts
 * const c = new PersistController({ statePath, openStore: (root) => createFsStore({ root }), storageRoot });
 * await c.start({ dispatch });
 * const r = await c.note({ kind: 'failed-avenue', text: 'exact foo: type mismatch', lean: null });
 * if (r.action === 'stop') emit(r.handoff);
 * ```
 */
export class PersistController {
  readonly #o: PersistControllerOptions;
  readonly #state: StateStore;
  readonly #clock: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: PersistControllerOptions) {
    this.#o = options;
    if (options.stateStore !== undefined) this.#state = options.stateStore;
    else if (options.statePath !== undefined)
      this.#state = fileStateStore(options.stateFs ?? nodeStateFs, options.statePath);
    else throw new TypeError('PersistController needs statePath or stateStore');
    this.#clock = options.clock ?? (() => new Date());
    this.#sleep = options.sleep ?? realSleep;
  }

  #now(): string {
    return formatTimestamp(this.#clock());
  }

  async #save(state: PersistState): Promise<boolean> {
    try {
      await this.#state.save(state);
      return true;
    } catch {
      return false;
    }
  }

  /** Calls the store, retrying a `busy` refusal once after {@link BUSY_RETRY_MS}. */
  async #call(
    fn: () => Promise<StoreResult>,
    expect: { op: 'append' | 'set-handoff'; runId: string; expectedSeq: number },
  ): Promise<StoreVerdict> {
    const once = async (): Promise<StoreVerdict> => {
      try {
        return classifyStoreResult(await fn(), expect);
      } catch (e) {
        return verdictFromThrow(e);
      }
    };
    const first = await once();
    if (!isBusy(first)) return first;
    await this.#sleep(BUSY_RETRY_MS);
    return once();
  }

  /** The state with its committed history re-read from the journal (unchanged when the run cannot be read). */
  async #journalTruth(state: PersistState, store: Store): Promise<PersistState> {
    try {
      const l = await store.load(state.run_id as string);
      return l.ok ? reconcileWithJournal(state, l.value) : state;
    } catch {
      return state;
    }
  }

  /** Loads the state for a verb after start; returns a final result when the verb must not proceed. */
  async #load(verb: string): Promise<{ state: PersistState } | { result: PersistResult }> {
    const r = await this.#state.load();
    if (!r.ok) return { result: unusableStateResult(verb, r, this.#state.location) };
    const req = this.#o.requestedRoot;
    const refused = rootMismatch(verb, r.state, req === undefined || req === null ? null : resolve(req));
    return refused === null ? { state: r.state } : { result: refused };
  }

  /** Result for a run already terminal; an unresolved in-flight record is first retired into a stop. */
  async #terminal(verb: string, state: PersistState, finish: boolean): Promise<PersistResult> {
    const inf = unresolvedInflight(state);
    if (inf === null) return terminalResult(verb, state, finish);
    const retired = retireInflight(state, inf, this.#now());
    const saved = await this.#save(retired.state);
    return terminalResult(verb, retired.state, finish, {
      unpersisted: retired.unpersisted,
      retireUnsaved: !saved,
    });
  }

  /** Saves a stop and returns its result. */
  async #stop(plan: StopPlan): Promise<PersistResult> {
    return stopResult(plan, await this.#save(stoppedState(plan, this.#now())));
  }

  /** Opens the store bound in the state; a failure is the mutation's `store_unavailable` stop. */
  async #open(
    state: PersistState,
    m: Mutation,
    finish: boolean,
  ): Promise<{ store: Store } | { result: PersistResult }> {
    try {
      return { store: await this.#o.openStore(state.storage_root) };
    } catch (e) {
      const detail = `cannot open the store: ${(e as Error).message}`;
      return { result: await this.#stop(notCalledStop(state, m, detail, finish)) };
    }
  }

  /**
   * Starts a run: validates the first dispatch, creates the state file exclusively, creates the run.
   *
   * @example
   * ```ts
   * const r = await c.start({ dispatch, trackerSessionId: 'sid' }); // { action: 'continue', run_id, … }
   * ```
   */
  async start(input: StartInput): Promise<PersistResult> {
    return this.startPrepared(input, null);
  }

  /**
   * Starts a run, optionally as a prior-run reuse whose checks already passed (see reuse.ts):
   * creates the run naming the prior run and records the source-note as event #1.
   *
   * @example
   * ```ts
   * await c.startPrepared({ dispatch }, { priorRun, sourceNote });
   * ```
   */
  async startPrepared(input: StartInput, prior: PreparedPriorRun | null): Promise<PersistResult> {
    const verb = 'start';
    const d = validateDispatch(input.dispatch);
    if (!d.ok) {
      return persistResult(verb, 'startup-error', { code: 'invalid_dispatch', errors: issuesOf(d.issues) });
    }
    const root = this.#o.storageRoot;
    if (root === undefined) {
      return persistResult(verb, 'usage', { code: 'no_storage_root', message: 'no storage root for start' });
    }
    let store: Store;
    try {
      store = await this.#o.openStore(root);
    } catch (e) {
      return persistResult(verb, 'startup-error', {
        code: 'no_storage_root',
        message: `cannot open the store at ${root}: ${(e as Error).message}`,
      });
    }
    const now = input.now ?? this.#now();
    let state = initialState({
      storageRoot: store.root,
      projectRoot: this.#o.projectRoot ?? process.cwd(),
      priorRun: prior?.priorRun ?? null,
      dispatch: d.value,
      now,
    });
    try {
      await this.#state.create(state);
    } catch (e) {
      return stateCreateError(verb, this.#state.location, e);
    }
    let created: StoreResult | undefined;
    let thrown: unknown;
    try {
      created = await store.createRun({
        dispatch: d.value,
        trackerSessionId: input.trackerSessionId ?? null,
        priorRun: prior?.priorRun ?? null,
        now,
        eventSchema: 'v2',
      });
    } catch (e) {
      thrown = e;
    }
    const outcome = createOutcome(created, thrown);
    if (!outcome.ok) {
      await this.#save(createFailedState(state, outcome, this.#now()));
      return createFailedResult(verb, outcome);
    }
    state = createdState(state, outcome);
    if (!(await this.#save(state))) return createdUnsavedResult(verb, outcome.runId);
    if (prior === null) return startedResult(verb, state);
    const r = await this.#mutate(state, store, sourceNoteMutation(prior.sourceNote), false);
    return priorStartResult(verb, state, prior, r);
  }

  /** The shared path of note/review/replan/dispatch/handoff. */
  async #append(verb: AppendVerb, payload: unknown): Promise<PersistResult> {
    const m = appendMutation(verb, payload);
    const l = await this.#load(m.verb);
    if ('result' in l) return l.result;
    const state = l.state;
    if (isTerminal(state)) return this.#terminal(m.verb, state, false);
    const errors = submissionIssues(m.kind, m.payload, state);
    if (errors.length > 0) {
      const detail = invalidSubmissionDetail(m.kind, errors);
      const saved = await this.#save(invalidSubmissionState(state, detail, this.#now(), false));
      return invalidSubmissionResult(m.verb, state, errors, detail, saved);
    }
    const o = await this.#open(state, m, false);
    return 'result' in o ? o.result : this.#mutate(state, o.store, m, false);
  }

  /**
   * Records several events with one journal write (group commit): each is checked in order
   * against the state the earlier ones leave (a replan may cite the review before it), then all
   * are written with one `appendBatch` (`atomic: false`: one write, one sync; a crash may keep a
   * prefix, as with separate records) and resolved with consecutive seqs. The result is the last
   * event's, with `cites` listing every event's cite. A store without `appendBatch` gets the
   * events one by one. One event is the ordinary verb.
   *
   * @example
   * ```ts
   * const r = await c.group([{ verb: 'review', payload: review }, { verb: 'replan', payload: replan }, { verb: 'dispatch', payload: next }]);
   * r.cites; // ['<run>#5', '<run>#6', '<run>#7']
   * ```
   */
  async group(
    entries: readonly { readonly verb: AppendVerb; readonly payload: unknown }[],
  ): Promise<PersistResult> {
    const [only] = entries;
    if (only === undefined) return persistResult('group', 'usage', { message: 'an empty group' });
    if (entries.length === 1) return this.#append(only.verb, only.payload);
    const ms = entries.map((e) => appendMutation(e.verb, e.payload));
    const whole = groupMutation(ms);
    const l = await this.#load(whole.verb);
    if ('result' in l) return l.result;
    const state = l.state;
    if (isTerminal(state)) return this.#terminal(whole.verb, state, false);
    let provisional = state;
    for (const m of ms) {
      const errors = submissionIssues(m.kind, m.payload, provisional);
      if (errors.length > 0) {
        const detail = invalidSubmissionDetail(m.kind, errors);
        const saved = await this.#save(invalidSubmissionState(state, detail, this.#now(), false));
        return invalidSubmissionResult(m.verb, state, errors, detail, saved);
      }
      provisional = provisionalState(provisional, m);
    }
    const o = await this.#open(state, whole, false);
    if ('result' in o) return o.result;
    const store = o.store;
    if (store.appendBatch === undefined) {
      const cites: string[] = [];
      let last: PersistResult | null = null;
      for (const e of entries) {
        last = await this.#append(e.verb, e.payload);
        if (typeof last.cite === 'string') cites.push(last.cite);
        if (last.action !== 'continue') return { ...last, cites };
      }
      return { ...(last as PersistResult), cites };
    }
    const runId = state.run_id as string;
    if (!(await this.#save(inflightState(state, whole, false, this.#now())))) {
      return this.#stop(inflightUnsavedStop(state, whole, false));
    }
    const trace = this.#o.trace?.() ?? [];
    const batch = ms.map((m) => ({ kind: m.kind, payload: m.payload }));
    const verdict = await this.#call(
      () => store.appendBatch!(runId, batch, { atomic: false, ...(trace.length > 0 ? { trace } : {}) }),
      { op: 'append', runId, expectedSeq: state.last_seq + ms.length },
    );
    const dec = decide('mutation', verdict);
    const commit = commitOf(runId, dec);
    if (commit === null)
      return this.#stop(unstoredStop(await this.#journalTruth(state, store), whole, false, dec));
    const resolved = committedGroupState(state, ms, commit);
    const cites = ms.map((_, i) => memberCommit(runId, state.last_seq, i, commit).cite);
    return { ...commitResult(whole, false, resolved, commit, await this.#save(resolved)), cites };
  }

  /** In-flight → store → resolve, with the failure policy. */ /** In-flight → store → resolve, with the failure policy. */
  async #mutate(state: PersistState, store: Store, m: Mutation, finish: boolean): Promise<PersistResult> {
    const runId = state.run_id as string;
    if (!(await this.#save(inflightState(state, m, finish, this.#now())))) {
      return this.#stop(inflightUnsavedStop(state, m, finish));
    }
    const trace = this.#o.trace?.() ?? [];
    const verdict = await this.#call(
      () =>
        trace.length > 0 && store.appendBatch !== undefined
          ? // a batch holding a handoff refreshes the cache as set-handoff does
            store.appendBatch(runId, [{ kind: m.kind, payload: m.payload }], { trace })
          : m.op === 'set-handoff'
            ? store.setHandoff(runId, m.payload)
            : store.append(runId, m.kind, m.payload),
      { op: m.op, runId, expectedSeq: state.last_seq + 1 },
    );
    const dec = decide(finish ? 'finish' : 'mutation', verdict);
    const commit = commitOf(runId, dec);
    if (commit === null)
      return this.#stop(unstoredStop(await this.#journalTruth(state, store), m, finish, dec));
    const resolved = committedState(state, m, finish, commit);
    return commitResult(m, finish, resolved, commit, await this.#save(resolved));
  }

  /**
   * Records a note (`candidate`, `failed-avenue`, `search-result`, `blocker-diagnosis`, `definition-gap`, `source-note`).
   *
   * @example
   * ```ts
   * await c.note({ kind: 'failed-avenue', text: 'exact foo: type mismatch', lean: null });
   * ```
   */
  note(payload: { kind: string; text: string; lean: string | null }): Promise<PersistResult> {
    return this.#append('note', payload);
  }

  /**
   * Records a review-record/v1.
   *
   * @example
   * ```ts
   * await c.review(reviewRecord);
   * ```
   */
  review(payload: unknown): Promise<PersistResult> {
    return this.#append('review', payload);
  }

  /**
   * Records a replan-summary/v1 (cites must name this run and earlier seqs).
   *
   * @example
   * ```ts
   * await c.replan(replanSummary);
   * ```
   */
  replan(payload: unknown): Promise<PersistResult> {
    return this.#append('replan', payload);
  }

  /**
   * Records a (re)dispatch; it becomes the current task and custody.
   *
   * @example
   * ```ts
   * await c.dispatch(redispatch);
   * ```
   */
  dispatch(payload: unknown): Promise<PersistResult> {
    return this.#append('dispatch', payload);
  }

  /**
   * Records a worker handoff; its changes, baseline and evidence join parent knowledge.
   *
   * @example
   * ```ts
   * await c.handoff(workerHandoff);
   * ```
   */
  handoff(payload: unknown): Promise<PersistResult> {
    return this.#append('handoff', payload);
  }

  /**
   * Stores the final handoff (terminal). `done` with `stored: true` and a cite when it is in the
   * journal; `stored: false` with `persistence` not-stored|unconfirmed and a fallback otherwise.
   *
   * @example
   * ```ts
   * const r = await c.finish(finalHandoff); if (r.stored) cite(r.cite);
   * ```
   */
  async finish(payload: unknown): Promise<PersistResult> {
    const verb = 'finish';
    const l = await this.#load(verb);
    if ('result' in l) return l.result;
    const state = l.state;
    if (isTerminal(state)) return this.#terminal(verb, state, true);
    const h = validateHandoff(payload);
    if (!h.ok) {
      const saved = await this.#save(invalidSubmissionState(state, INVALID_FINISH_DETAIL, this.#now(), true));
      return invalidFinishResult(verb, state, issuesOf(h.issues), saved);
    }
    const m = finishMutation(h.value);
    const o = await this.#open(state, m, true);
    return 'result' in o ? o.result : this.#mutate(state, o.store, m, true);
  }

  /**
   * Records inline progress as parent knowledge (no journal event, no cite).
   *
   * @example
   * ```ts
   * await c.progress({ schema: 'run-persist-progress/v1', files_changed: [a], file_baseline: advanced });
   * ```
   */
  async progress(payload: unknown): Promise<PersistResult> {
    const verb = 'progress';
    const l = await this.#load(verb);
    if ('result' in l) return l.result;
    const state = l.state;
    if (isTerminal(state)) return this.#terminal(verb, state, false);
    const c = checkProgress(payload, state.knowledge as Knowledge);
    if (!c.ok) return invalidProgressResult(verb, state, c.errors);
    const plan = progressPlan(state, c.part, this.#now());
    if (!(await this.#save(plan.inflight)))
      return this.#stop(progressUnsavedStop(verb, state, plan.knowledge));
    if (!(await this.#save(plan.resolved))) return progressUnresolvedResult(verb, state, plan.knowledge);
    return progressRecordedResult(verb, state, plan.knowledge);
  }

  /**
   * The invocation's state as the helper knows it: committed history, knowledge, unpersisted
   * items, the stop/finish markers and the stored final handoff (exactly as stored, with its cite).
   *
   * @example
   * ```ts
   * const s = await c.status(); s.final_handoff?.cite;
   * ```
   */
  async status(): Promise<PersistResult> {
    const l = await this.#load('status');
    if ('result' in l) return l.result;
    return statusResult(l.state);
  }
}
