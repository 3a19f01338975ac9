/**
 * Starting a run (layer 1, pure): the state created exclusively before the store is asked to
 * create the run (with the create in flight), what the store's create result means (created,
 * refused before writing, or uncertain), and the results of each outcome — including a prior-run
 * start, whose source-note is event #1.
 */
import type { Dispatch } from '../contract/dispatch-schema.js';
import type { StoreResult } from '../store/store.js';
import { knowledgeFromDispatch } from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import { type PersistState, STATE_SCHEMA } from './state-schema.js';

/** A prepared prior-run start: what `PersistController.startPrepared` needs from reuse checks. */
export interface PreparedPriorRun {
  readonly priorRun: string;
  /** The `source-note` note payload to record as event #1. */
  readonly sourceNote: { kind: 'source-note'; text: string; lean: null };
}

/** What the store's create result means. */
export type CreateOutcome =
  | { readonly ok: true; readonly runId: string; readonly runDirectory: string }
  | {
      readonly ok: false;
      /** The store's code when it refused before writing (no run exists), else null (unknown). */
      readonly refusedCode: string | null;
      /** `refused:<code>`, `indeterminate` or `malformed`. */
      readonly outcome: string;
      readonly detail: string;
    };

/**
 * The state written exclusively at start: bound to the store's root, knowledge from the first
 * dispatch, the create in flight.
 *
 * @example
 * ```ts
 * initialState({ storageRoot: store.root, projectRoot: '/repo', priorRun: null, dispatch, now }).inflight;
 * // { op: 'create', kind: 'start', at: now, pending: null }
 * ```
 */
export function initialState(p: {
  storageRoot: string;
  projectRoot: string;
  priorRun: string | null;
  dispatch: Dispatch;
  now: string;
}): PersistState {
  return {
    schema: STATE_SCHEMA,
    storage_root: p.storageRoot,
    project_root: p.projectRoot,
    run_id: null,
    run_directory: null,
    prior_run: p.priorRun,
    knowledge: knowledgeFromDispatch(p.dispatch),
    last_seq: 0,
    history: [],
    inflight: { op: 'create', kind: 'start', at: p.now, pending: null },
    unpersisted: [],
    stopped: null,
    finished: null,
    final_handoff: null,
    source_note_cite: null,
  };
}

/**
 * The startup error when the state file cannot be created: `state_exists` (EEXIST) or
 * `state_unwritable`.
 *
 * @example
 * ```ts
 * stateCreateError('start', '/tmp/s.json', Object.assign(new Error(), { code: 'EEXIST' })).code; // 'state_exists'
 * ```
 */
export function stateCreateError(verb: string, statePath: string, e: unknown): PersistResult {
  const code = (e as NodeJS.ErrnoException).code;
  return persistResult(verb, 'startup-error', {
    code: code === 'EEXIST' ? 'state_exists' : 'state_unwritable',
    message: `${statePath}: ${code ?? String(e)}`,
  });
}

/**
 * Reads the store's create result (or what it threw): created only for an exact committed result
 * with a run id and directory; a `nothing_written` with a code is a refusal, `indeterminate`
 * stays so, anything else is malformed.
 *
 * @example
 * ```ts
 * createOutcome({ schema: 'run-store-result/v1', outcome: 'nothing_written', run_id: null, code: 'busy' }, undefined);
 * // { ok: false, refusedCode: 'busy', outcome: 'refused:busy', detail: 'store create refused:busy' }
 * ```
 */
export function createOutcome(created: StoreResult | undefined, thrown: unknown): CreateOutcome {
  const ok =
    created !== undefined &&
    created.schema === 'run-store-result/v1' &&
    created.outcome === 'committed' &&
    typeof created.run_id === 'string' &&
    typeof created.run_directory === 'string';
  if (ok) return { ok: true, runId: created.run_id as string, runDirectory: created.run_directory as string };
  const refusedCode =
    created?.outcome === 'nothing_written' && typeof created.code === 'string' ? created.code : null;
  const outcome =
    refusedCode !== null
      ? `refused:${refusedCode}`
      : created?.outcome === 'indeterminate'
        ? 'indeterminate'
        : 'malformed';
  const detail =
    created?.detail ?? (thrown === undefined ? `store create ${outcome}` : String((thrown as Error).message));
  return { ok: false, refusedCode, outcome, detail };
}

/**
 * The state saved after a failed create: stopped; the in-flight create is cleared only when the
 * store refused before writing (otherwise a run may exist, and the record keeps enforcing that).
 *
 * @example
 * ```ts
 * createFailedState(state, failure, at).stopped; // { outcome: failure.outcome, detail: failure.detail, at }
 * ```
 */
export function createFailedState(
  state: PersistState,
  f: Extract<CreateOutcome, { ok: false }>,
  at: string,
): PersistState {
  return {
    ...state,
    inflight: f.refusedCode !== null ? null : state.inflight,
    stopped: { outcome: f.outcome, detail: f.detail, at },
  };
}

/**
 * The startup error of a failed create (`run_created: 'unknown'` unless the store refused).
 *
 * @example
 * ```ts
 * createFailedResult('start', failure); // { action: 'startup-error', code: 'busy', outcome: 'refused:busy', message }
 * ```
 */
export function createFailedResult(verb: string, f: Extract<CreateOutcome, { ok: false }>): PersistResult {
  return persistResult(verb, 'startup-error', {
    code: f.refusedCode ?? f.outcome,
    outcome: f.outcome,
    message: f.detail,
    ...(f.refusedCode === null ? { run_created: 'unknown' } : {}),
  });
}

/**
 * The state after the run was created: its id and directory recorded, the create resolved.
 *
 * @example
 * ```ts
 * createdState(state, { runId, runDirectory }).run_id; // runId
 * ```
 */
export function createdState(state: PersistState, c: { runId: string; runDirectory: string }): PersistState {
  return { ...state, run_id: c.runId, run_directory: c.runDirectory, inflight: null };
}

/**
 * The startup error when the created run could not be recorded in the state.
 *
 * @example
 * ```ts
 * createdUnsavedResult('start', runId); // { action: 'startup-error', code: 'state_unwritable', run_created: true, … }
 * ```
 */
export function createdUnsavedResult(verb: string, runId: string): PersistResult {
  return persistResult(verb, 'startup-error', {
    code: 'state_unwritable',
    run_id: runId,
    run_created: true,
    message: 'the run was created but the invocation state could not record it',
  });
}

/**
 * The result of a plain start that created the run.
 *
 * @example
 * ```ts
 * startedResult('start', state); // { action: 'continue', outcome: 'committed', run_id, run_directory, storage_root }
 * ```
 */
export function startedResult(verb: string, state: PersistState): PersistResult {
  return persistResult(verb, 'continue', {
    outcome: 'committed',
    run_id: state.run_id,
    run_directory: state.run_directory,
    storage_root: state.storage_root,
  });
}

/**
 * The result of a prior-run start given the source-note's result `r`: `continue` with the
 * source-note cite when it committed; otherwise `r` (a stop) — the run exists either way, and a
 * committed note whose bookkeeping failed keeps its citation.
 *
 * @example
 * ```ts
 * priorStartResult('start', state, prior, noteResult).source_note_cite; // `${runId}#1`
 * ```
 */
export function priorStartResult(
  verb: string,
  state: PersistState,
  prior: PreparedPriorRun,
  r: PersistResult,
): PersistResult {
  if (r.action === 'continue') {
    return persistResult(verb, 'continue', {
      outcome: 'committed',
      run_id: state.run_id,
      run_directory: state.run_directory,
      storage_root: state.storage_root,
      prior_run: prior.priorRun,
      source_note_cite: r.cite as string,
      run_created: true,
    });
  }
  return {
    ...r,
    run_created: true,
    prior_run: prior.priorRun,
    ...(r.committed === undefined ? {} : { source_note_cite: r.committed.cite }),
  };
}
