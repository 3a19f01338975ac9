/**
 * The run-persistence controller (layer 3): the helper's verbs as a library. It drives a
 * {@link Store}, keeps the invocation state file (created exclusively at start; every mutation
 * recorded in flight before the store is called and resolved after) and applies the
 * failure-policy table. Decisions are pure functions in this folder; this file sequences I/O.
 */
import { resolve } from 'node:path';
import type { Dispatch } from '../contract/dispatch-schema.js';
import type { Handoff } from '../contract/handoff-schema.js';
import { validateDispatch, validateHandoff } from '../contract/validate.js';
import type { EventKind } from '../store/schema.js';
import { EVENT_V2_SCHEMA, NotePayloadSchema } from '../store/schema.js';
import type { Store, StoreResult } from '../store/store.js';
import { validateEventPayload } from '../store/validate-payload.js';
import { safeValidate, type ValidationIssue } from '../validation/index.js';
import { citeOf, decide, type Persistence } from './failure-policy.js';
import {
  absorbDispatch,
  absorbHandoff,
  absorbNote,
  absorbPart,
  type Knowledge,
  type KnowledgePart,
  knowledgeFromDispatch,
  operationalErrorHandoff,
} from './knowledge.js';
import { checkProgress } from './progress.js';
import { type PersistResult, persistResult } from './result.js';
import { nodeStateFs, readState, type StateFs, stateText } from './state-file.js';
import { type Inflight, type PersistState, STATE_SCHEMA, type Unpersisted } from './state-schema.js';
import { classifyStoreResult, isBusy, type StoreVerdict, verdictFromThrow } from './store-verdict.js';

/** Options of {@link PersistController}. */
export interface PersistControllerOptions {
  /** The invocation state file (from `--state` or `HANDOFF_RUN_PERSIST_STATE`). */
  readonly statePath: string;
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
  /** State file operations (default: node:fs). */
  readonly stateFs?: StateFs;
}

/** Input of {@link PersistController.start}. */
export interface StartInput {
  /** The first dispatch (parsed JSON). */
  readonly dispatch: unknown;
  readonly trackerSessionId?: string | null;
  /** Creation time `YYYY-MM-DDTHH:MM:SSZ` (default: the clock). */
  readonly now?: string;
}

/** A prepared prior-run start: what {@link PersistController.startPrepared} needs from reuse checks. */
export interface PreparedPriorRun {
  readonly priorRun: string;
  /** The `source-note` note payload to record as event #1. */
  readonly sourceNote: { kind: 'source-note'; text: string; lean: null };
}

/** The busy retry delay of the failure policy. */
export const BUSY_RETRY_MS = 1000;

const realSleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

function issuesOf(e: readonly ValidationIssue[]): ValidationIssue[] {
  return e.map((i) => ({ path: i.path, code: i.code, message: i.message }));
}

/** One mutation the controller sequences. */
interface Mutation {
  readonly verb: string;
  readonly op: 'append' | 'set-handoff';
  readonly kind: EventKind;
  readonly payload: unknown;
  /** Absorbs the submission into knowledge (cite null when not committed). */
  readonly absorb: (k: Knowledge, cite: string | null) => Knowledge;
  /** The start's source-note: its cite is recorded as `source_note_cite` with the resolution. */
  readonly sourceNote?: true;
}

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
  readonly #fs: StateFs;
  readonly #clock: () => Date;
  readonly #sleep: (ms: number) => Promise<void>;

  constructor(options: PersistControllerOptions) {
    this.#o = options;
    this.#fs = options.stateFs ?? nodeStateFs;
    this.#clock = options.clock ?? (() => new Date());
    this.#sleep = options.sleep ?? realSleep;
  }

  #now(): string {
    return this.#clock()
      .toISOString()
      .replace(/\.\d{3}Z$/, 'Z');
  }

  async #save(state: PersistState): Promise<boolean> {
    try {
      await this.#fs.replace(this.#o.statePath, stateText(state));
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

  /** Loads the state for a verb after start; returns a final result when the verb must not proceed. */
  async #load(verb: string): Promise<{ state: PersistState } | { result: PersistResult }> {
    const r = await readState(this.#fs, this.#o.statePath);
    if (!r.ok) {
      if (r.reason === 'missing') {
        return {
          result: persistResult(verb, 'usage', {
            code: 'no_state',
            message: `no invocation state at ${this.#o.statePath}: run start first`,
          }),
        };
      }
      return {
        result: persistResult(verb, 'stop', {
          outcome: 'state_unreadable',
          message: r.detail,
          handoff: operationalErrorHandoff(null, `run-persist state unreadable: ${r.detail}`),
          terminal_enforced: false,
          warning:
            'the invocation state cannot be read; retire this invocation and do not call the helper again',
        }),
      };
    }
    const state = r.state;
    const req = this.#o.requestedRoot;
    if (req !== undefined && req !== null && resolve(req) !== state.storage_root) {
      return {
        result: persistResult(verb, 'usage', {
          code: 'root_mismatch',
          message: `this invocation is bound to storage root ${state.storage_root}; ${resolve(req)} refused`,
        }),
      };
    }
    return { state };
  }

  /** Result for a run already terminal (stopped, finished, or an unresolved in-flight op). */
  async #terminal(verb: string, state: PersistState, finish: boolean): Promise<PersistResult> {
    let s = state;
    let warning: string | undefined;
    let unpersisted: Unpersisted | undefined;
    if (s.stopped === null && s.finished === null && s.inflight !== null) {
      const inf = s.inflight;
      const note =
        inf.op === 'progress'
          ? 'an in-flight progress record was saved but never resolved; its knowledge is folded into this handoff'
          : `persistence unconfirmed; no citation available from this state (unresolved ${inf.op} ${inf.kind})`;
      unpersisted = {
        kind: inf.kind,
        seq: null,
        status: inf.op === 'progress' ? 'control-state-saved' : 'unconfirmed',
        note,
      };
      const k = s.knowledge === null ? null : this.#foldPending(s.knowledge, inf);
      s = {
        ...s,
        knowledge: k,
        inflight: null,
        unpersisted: [...s.unpersisted, unpersisted],
        stopped: {
          outcome: 'terminal',
          detail: `unresolved in-flight ${inf.op} ${inf.kind}`,
          at: this.#now(),
        },
      };
      if (!(await this.#save(s))) {
        warning = 'the stop could not be recorded; the unresolved in-flight record still enforces it';
      }
    }
    const detail =
      s.stopped !== null
        ? `run persistence stopped earlier (${s.stopped.outcome}): ${s.stopped.detail}`
        : `run persistence finished earlier (${s.finished ?? 'unknown'})`;
    const h = operationalErrorHandoff(s.knowledge, detail);
    const common = {
      outcome: 'terminal',
      run_id: s.run_id,
      terminal_enforced: true,
      ...(unpersisted === undefined ? {} : { unpersisted }),
      ...(warning === undefined ? {} : { warning }),
    };
    if (finish) {
      return persistResult(verb, 'done', {
        ...common,
        stored: false,
        persistence: 'not-stored',
        fallback_handoff: h,
      });
    }
    return persistResult(verb, 'stop', { ...common, handoff: h });
  }

  #foldPending(k: Knowledge, inf: Inflight): Knowledge {
    const p = inf.pending as Record<string, unknown> | null;
    if (p === null || typeof p !== 'object') return k;
    try {
      if (inf.op === 'progress') return absorbPart(k, p as KnowledgePart);
      if (inf.kind === 'dispatch') {
        const d = validateDispatch(p);
        return d.ok ? absorbDispatch(k, d.value) : k;
      }
      if (inf.kind === 'handoff' || inf.kind === 'finish') {
        if (inf.kind === 'finish') return k; // an unstored final handoff is never absorbed
        const h = validateHandoff(p);
        return h.ok ? absorbHandoff(k, h.value) : k;
      }
      if (inf.kind === 'note') {
        const n = safeValidate(NotePayloadSchema, p);
        return n.ok ? absorbNote(k, n.value, null) : k;
      }
    } catch {
      return k;
    }
    return k;
  }

  #isTerminal(s: PersistState): boolean {
    return s.stopped !== null || s.finished !== null || s.inflight !== null || s.run_id === null;
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
      return persistResult(verb, 'startup-error', {
        code: 'invalid_dispatch',
        errors: issuesOf(d.issues),
      });
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
    let state: PersistState = {
      schema: STATE_SCHEMA,
      storage_root: store.root,
      project_root: this.#o.projectRoot ?? process.cwd(),
      run_id: null,
      run_directory: null,
      prior_run: prior?.priorRun ?? null,
      knowledge: knowledgeFromDispatch(d.value),
      last_seq: 0,
      history: [],
      inflight: { op: 'create', kind: 'start', at: now, pending: null },
      unpersisted: [],
      stopped: null,
      finished: null,
      final_handoff: null,
      source_note_cite: null,
    };
    try {
      await this.#fs.createExclusive(this.#o.statePath, stateText(state));
    } catch (e) {
      const exists = (e as NodeJS.ErrnoException).code === 'EEXIST';
      return persistResult(verb, 'startup-error', {
        code: exists ? 'state_exists' : 'state_unwritable',
        message: `${this.#o.statePath}: ${(e as NodeJS.ErrnoException).code ?? String(e)}`,
      });
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
    const ok =
      created !== undefined &&
      created.schema === 'run-store-result/v1' &&
      created.outcome === 'committed' &&
      typeof created.run_id === 'string' &&
      typeof created.run_directory === 'string';
    if (!ok) {
      const refusedCode =
        created?.outcome === 'nothing_written' && typeof created.code === 'string' ? created.code : null;
      const outcome =
        refusedCode !== null
          ? `refused:${refusedCode}`
          : created?.outcome === 'indeterminate'
            ? 'indeterminate'
            : 'malformed';
      const detail =
        created?.detail ??
        (thrown === undefined ? `store create ${outcome}` : String((thrown as Error).message));
      state = {
        ...state,
        inflight: refusedCode !== null ? null : state.inflight,
        stopped: { outcome, detail, at: this.#now() },
      };
      await this.#save(state);
      return persistResult(verb, 'startup-error', {
        code: refusedCode ?? outcome,
        outcome,
        message: detail,
        ...(refusedCode === null ? { run_created: 'unknown' } : {}),
      });
    }
    const runId = created?.run_id as string;
    state = { ...state, run_id: runId, run_directory: created?.run_directory as string, inflight: null };
    if (!(await this.#save(state))) {
      return persistResult(verb, 'startup-error', {
        code: 'state_unwritable',
        run_id: runId,
        run_created: true,
        message: 'the run was created but the invocation state could not record it',
      });
    }
    if (prior === null) {
      return persistResult(verb, 'continue', {
        outcome: 'committed',
        run_id: runId,
        run_directory: state.run_directory,
        storage_root: state.storage_root,
      });
    }
    const r = await this.#mutate(
      state,
      store,
      {
        verb,
        op: 'append',
        kind: 'note',
        payload: prior.sourceNote,
        absorb: (k) => k,
        sourceNote: true,
      },
      false,
    );
    if (r.action === 'continue') {
      return persistResult(verb, 'continue', {
        outcome: 'committed',
        run_id: runId,
        run_directory: state.run_directory,
        storage_root: state.storage_root,
        prior_run: prior.priorRun,
        source_note_cite: r.cite as string,
        run_created: true,
      });
    }
    // the source-note was refused, is uncertain, or committed with failed bookkeeping: the run
    // exists either way, and a committed note keeps its citation
    return {
      ...r,
      run_created: true,
      prior_run: prior.priorRun,
      ...(r.committed === undefined ? {} : { source_note_cite: r.committed.cite }),
    };
  }

  #validated(kind: EventKind, payload: unknown, state: PersistState): ValidationIssue[] {
    const check = validateEventPayload(kind, payload, {
      runId: state.run_id as string,
      eventSchema: EVENT_V2_SCHEMA,
      nextSeq: state.last_seq + 1,
    });
    return check.ok ? [] : issuesOf(check.issues);
  }

  /** The shared path of note/review/replan/dispatch/handoff. */
  async #verb(m: Mutation): Promise<PersistResult> {
    const l = await this.#load(m.verb);
    if ('result' in l) return l.result;
    const state = l.state;
    if (this.#isTerminal(state)) return this.#terminal(m.verb, state, false);
    const errors = this.#validated(m.kind, m.payload, state);
    if (errors.length > 0) {
      const detail = `invalid ${m.kind} submission: ${errors
        .slice(0, 3)
        .map((i) => `${i.path || '(root)'} ${i.message}`)
        .join('; ')}`;
      const s: PersistState = {
        ...state,
        stopped: { outcome: 'invalid_submission', detail, at: this.#now() },
      };
      const saved = await this.#save(s);
      return persistResult(m.verb, 'stop', {
        outcome: 'invalid_submission',
        run_id: state.run_id,
        submitted_errors: errors,
        handoff: operationalErrorHandoff(state.knowledge, detail),
        terminal_enforced: saved,
        ...(saved ? {} : { warning: 'the stop could not be recorded; do not call the helper again' }),
      });
    }
    let store: Store;
    try {
      store = await this.#o.openStore(state.storage_root);
    } catch (e) {
      return this.#notCalled(m, state, `cannot open the store: ${(e as Error).message}`, false);
    }
    return this.#mutate(state, store, m, m.op === 'set-handoff');
  }

  /** The store was not called (and will not be): stop (finish: done, not stored). */
  #notCalled(m: Mutation, state: PersistState, detail: string, finish: boolean): Promise<PersistResult> {
    return this.#stopWith({
      verb: m.verb,
      state,
      knowledge: finish || state.knowledge === null ? state.knowledge : m.absorb(state.knowledge, null),
      unpersisted: { kind: m.kind, seq: null, status: 'not-stored', note: 'the store was not called' },
      outcome: 'store_unavailable',
      detail,
      finish,
      inflightSaved: false,
    });
  }

  /**
   * Records a stop (for finish: a not-stored finish) and builds its result. The stop is enforced
   * when it was saved, or when an in-flight record saved earlier is still on disk (a later call
   * finds it unresolved); otherwise the result orders the controller to retire the invocation.
   */
  async #stopWith(p: {
    verb: string;
    state: PersistState;
    knowledge: Knowledge | null;
    unpersisted: Unpersisted;
    outcome: string;
    detail: string;
    finish: boolean;
    inflightSaved: boolean;
  }): Promise<PersistResult> {
    const { state, knowledge: k, unpersisted: u } = p;
    const saved = await this.#save({
      ...state,
      knowledge: k,
      inflight: null,
      unpersisted: [...state.unpersisted, u],
      stopped: { outcome: p.outcome, detail: p.detail, at: this.#now() },
      ...(p.finish ? { finished: 'not-stored' as const } : {}),
    });
    const warning = saved
      ? undefined
      : p.inflightSaved
        ? 'the stop could not be recorded; the unresolved in-flight record still enforces it'
        : 'no control-state write succeeded: retire this invocation; a later helper process may not remember the stop';
    const common = {
      outcome: p.outcome,
      run_id: state.run_id,
      unpersisted: u,
      terminal_enforced: saved || p.inflightSaved,
      ...(warning === undefined ? {} : { warning }),
    };
    const h = operationalErrorHandoff(k, p.detail);
    if (p.finish) {
      return persistResult(p.verb, 'done', {
        ...common,
        stored: false,
        persistence: u.status === 'unconfirmed' ? 'unconfirmed' : 'not-stored',
        fallback_handoff: h,
      });
    }
    return persistResult(p.verb, 'stop', { ...common, handoff: h });
  }

  /** In-flight → store → resolve, with the failure policy. */
  async #mutate(state: PersistState, store: Store, m: Mutation, finish: boolean): Promise<PersistResult> {
    const runId = state.run_id as string;
    const k0 = state.knowledge as Knowledge;
    const at = this.#now();
    const withInflight: PersistState = {
      ...state,
      inflight: { op: m.op, kind: finish ? 'finish' : m.kind, at, pending: m.payload },
    };
    if (!(await this.#save(withInflight))) {
      return this.#stopWith({
        verb: m.verb,
        state,
        knowledge: finish ? k0 : m.absorb(k0, null),
        unpersisted: {
          kind: m.kind,
          seq: null,
          status: 'not-stored',
          note: 'the store was not called; this knowledge will not survive another invocation',
        },
        outcome: 'state_unwritable_before_store',
        detail: 'run-persist state unwritable before the store call; nothing was stored',
        finish,
        inflightSaved: false,
      });
    }
    const expectedSeq = state.last_seq + 1;
    const verdict = await this.#call(
      () =>
        m.op === 'set-handoff' ? store.setHandoff(runId, m.payload) : store.append(runId, m.kind, m.payload),
      { op: m.op, runId, expectedSeq },
    );
    const dec = decide(finish ? 'finish' : 'mutation', verdict);
    if (dec.seq !== null) {
      const cite = citeOf(runId, dec.seq);
      const k = finish ? absorbHandoff(k0, m.payload as Handoff) : m.absorb(k0, cite);
      const resolved: PersistState = {
        ...state,
        knowledge: k,
        last_seq: dec.seq,
        history: [...state.history, { seq: dec.seq, kind: m.kind, cite }],
        inflight: null,
        ...(m.sourceNote === true ? { source_note_cite: cite } : {}),
        ...(finish
          ? {
              finished: 'stored' as const,
              final_handoff: {
                cite,
                handoff: m.payload as Handoff,
                outcome: dec.outcome as 'committed' | 'journal_only',
              },
            }
          : {}),
      };
      const saved = await this.#save(resolved);
      const warnings = [
        ...(dec.warning === null ? [] : [dec.warning]),
        ...(saved ? [] : ['bookkeeping failed: the invocation state could not record this commit']),
      ];
      if (finish) {
        return persistResult(m.verb, 'done', {
          outcome: dec.outcome,
          run_id: runId,
          stored: true,
          seq: dec.seq,
          cite,
          ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
        });
      }
      if (!saved) {
        return persistResult(m.verb, 'stop', {
          outcome: 'state_unwritable',
          run_id: runId,
          committed: { seq: dec.seq, cite },
          handoff: operationalErrorHandoff(
            k,
            `run-persist state unwritable after a committed ${m.kind} (${cite}); bookkeeping stopped the run`,
          ),
          terminal_enforced: true,
          warning: warnings.join('; '),
        });
      }
      return persistResult(m.verb, 'continue', { outcome: 'committed', run_id: runId, seq: dec.seq, cite });
    }
    // not stored, or not certainly stored
    const persistence = dec.persistence as Persistence;
    return this.#stopWith({
      verb: m.verb,
      state,
      knowledge: finish ? k0 : m.absorb(k0, null),
      unpersisted: {
        kind: m.kind,
        seq: null,
        status: persistence,
        note:
          persistence === 'not-stored'
            ? 'the store refused before writing; nothing was stored'
            : 'persistence unconfirmed; no citation available from this state',
      },
      outcome: dec.outcome,
      detail: dec.stopDetail as string,
      finish,
      inflightSaved: true,
    });
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
    return this.#verb({
      verb: 'note',
      op: 'append',
      kind: 'note',
      payload,
      absorb: (k, cite) => absorbNote(k, payload, cite),
    });
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
    return this.#verb({ verb: 'review', op: 'append', kind: 'review', payload, absorb: (k) => k });
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
    return this.#verb({ verb: 'replan', op: 'append', kind: 'replan', payload, absorb: (k) => k });
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
    return this.#verb({
      verb: 'dispatch',
      op: 'append',
      kind: 'dispatch',
      payload,
      absorb: (k) => absorbDispatch(k, payload as Dispatch),
    });
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
    return this.#verb({
      verb: 'handoff',
      op: 'append',
      kind: 'handoff',
      payload,
      absorb: (k) => absorbHandoff(k, payload as Handoff),
    });
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
    if (this.#isTerminal(state)) return this.#terminal(verb, state, true);
    const h = validateHandoff(payload);
    if (!h.ok) {
      const detail = 'invalid final handoff submission; nothing was stored';
      const saved = await this.#save({
        ...state,
        stopped: { outcome: 'invalid_submission', detail, at: this.#now() },
        finished: 'not-stored',
      });
      return persistResult(verb, 'done', {
        outcome: 'invalid_submission',
        run_id: state.run_id,
        stored: false,
        persistence: 'not-stored',
        submitted_errors: issuesOf(h.issues),
        fallback_handoff: operationalErrorHandoff(state.knowledge, detail),
        terminal_enforced: saved,
        ...(saved
          ? {}
          : {
              warning:
                'the stop could not be recorded; retire this invocation and do not call the helper again',
            }),
      });
    }
    const m: Mutation = { verb, op: 'set-handoff', kind: 'handoff', payload: h.value, absorb: (k) => k };
    let store: Store;
    try {
      store = await this.#o.openStore(state.storage_root);
    } catch (e) {
      return this.#notCalled(m, state, `cannot open the store: ${(e as Error).message}`, true);
    }
    return this.#mutate(state, store, m, true);
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
    if (this.#isTerminal(state)) return this.#terminal(verb, state, false);
    const k0 = state.knowledge as Knowledge;
    const c = checkProgress(payload, k0);
    if (!c.ok) {
      return persistResult(verb, 'startup-error', {
        code: 'invalid_progress',
        run_id: state.run_id,
        errors: issuesOf(c.errors),
      });
    }
    const at = this.#now();
    const k = absorbPart(k0, c.part);
    const withInflight: PersistState = {
      ...state,
      inflight: { op: 'progress', kind: 'progress', at, pending: c.part },
    };
    if (!(await this.#save(withInflight))) {
      return this.#stopWith({
        verb,
        state,
        knowledge: k,
        unpersisted: {
          kind: 'progress',
          seq: null,
          status: 'control-state-unsaved',
          note: 'the progress record could not be saved; this knowledge will not survive another invocation',
        },
        outcome: 'progress_unsaved',
        detail: 'run-persist progress could not be saved',
        finish: false,
        inflightSaved: false,
      });
    }
    if (!(await this.#save({ ...state, knowledge: k, inflight: null }))) {
      const u: Unpersisted = {
        kind: 'progress',
        seq: null,
        status: 'control-state-saved',
        note: 'the progress record was saved but not resolved; a later helper call will find it and stop',
      };
      return persistResult(verb, 'stop', {
        outcome: 'state_unwritable',
        run_id: state.run_id,
        handoff: operationalErrorHandoff(k, 'run-persist state unwritable after saving progress'),
        unpersisted: u,
        terminal_enforced: true,
        warning: 'the progress resolution could not be recorded',
      });
    }
    return persistResult(verb, 'continue', {
      outcome: 'recorded',
      run_id: state.run_id,
      progress_recorded: true,
      files_changed: k.accumulated.files_changed,
    });
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
    const verb = 'status';
    const l = await this.#load(verb);
    if ('result' in l) return l.result;
    const s = l.state;
    return persistResult(verb, 'status', {
      run_id: s.run_id,
      run_directory: s.run_directory,
      storage_root: s.storage_root,
      prior_run: s.prior_run,
      last_seq: s.last_seq,
      history: s.history,
      current: s.knowledge?.current ?? null,
      accumulated: s.knowledge?.accumulated ?? null,
      inflight: s.inflight,
      unpersisted_items: s.unpersisted,
      stopped: s.stopped,
      finished: s.finished,
      final_handoff: s.final_handoff,
      source_note_cite: s.source_note_cite,
      terminal: this.#isTerminal(s),
    });
  }
}
