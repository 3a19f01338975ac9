/**
 * One journal mutation (layer 1, pure): what each verb appends and how it joins parent
 * knowledge, the in-flight record saved before the store is called, and what a store verdict
 * (through the failure policy) makes of the state and the result — a commit resolved into the
 * history, or a stop that keeps the submission as unpersisted knowledge.
 */
import type { Dispatch } from '../contract/dispatch-schema.js';
import type { Handoff } from '../contract/handoff-schema.js';
import type { EventKind } from '../store/schema.js';
import { citeOf, type Persistence, type PolicyDecision } from './failure-policy.js';
import {
  absorbDispatch,
  absorbHandoff,
  absorbNote,
  type Knowledge,
  operationalErrorHandoff,
} from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { PersistState } from './state-schema.js';
import type { StopPlan } from './stop-rules.js';

/** One mutation the controller sequences. */
export interface Mutation {
  readonly verb: string;
  readonly op: 'append' | 'set-handoff';
  readonly kind: EventKind;
  readonly payload: unknown;
  /** Absorbs the submission into knowledge (cite null when not committed). */
  readonly absorb: (k: Knowledge, cite: string | null) => Knowledge;
  /** The start's source-note: its cite is recorded as `source_note_cite` with the resolution. */
  readonly sourceNote?: true;
}

/** The verbs that append one event. */
export type AppendVerb = 'note' | 'review' | 'replan' | 'dispatch' | 'handoff';

/** A commit confirmed by the failure policy. */
export interface Commit {
  readonly seq: number;
  readonly cite: string;
  /** `committed`, or `journal_only` for a finish whose handoff cache is not confirmed. */
  readonly outcome: string;
  readonly warning: string | null;
}

/** The warning when the state could not record a commit. */
export const BOOKKEEPING_FAILED = 'bookkeeping failed: the invocation state could not record this commit';

/**
 * The mutation of an appending verb: a note's text (or cite) and a failed avenue or candidate, a
 * dispatch becoming the current task, a worker handoff's changes and evidence; reviews and
 * replans leave knowledge as it is.
 *
 * @example
 * ```ts
 * appendMutation('note', { kind: 'failed-avenue', text: 'exact foo', lean: null }).kind; // 'note'
 * ```
 */
export function appendMutation(verb: AppendVerb, payload: unknown): Mutation {
  const m = { verb, op: 'append' as const, kind: verb, payload };
  switch (verb) {
    case 'note':
      return { ...m, absorb: (k, cite) => absorbNote(k, payload as { kind: string; text: string }, cite) };
    case 'dispatch':
      return { ...m, absorb: (k) => absorbDispatch(k, payload as Dispatch) };
    case 'handoff':
      return { ...m, absorb: (k) => absorbHandoff(k, payload as Handoff) };
    default:
      return { ...m, absorb: (k) => k };
  }
}

/**
 * The mutation of `finish`: the final handoff set as the run's handoff (absorbed only once
 * committed, see {@link committedState}).
 *
 * @example
 * ```ts
 * finishMutation(finalHandoff).op; // 'set-handoff'
 * ```
 */
export function finishMutation(handoff: Handoff): Mutation {
  return { verb: 'finish', op: 'set-handoff', kind: 'handoff', payload: handoff, absorb: (k) => k };
}

/**
 * The mutation of a prior-run start's source-note (event #1; its cite becomes `source_note_cite`).
 *
 * @example
 * ```ts
 * sourceNoteMutation(prior.sourceNote).sourceNote; // true
 * ```
 */
export function sourceNoteMutation(note: unknown): Mutation {
  return { verb: 'start', op: 'append', kind: 'note', payload: note, absorb: (k) => k, sourceNote: true };
}

/**
 * The state saved before the store is called: the submission recorded in flight (kind `finish`
 * for the final handoff).
 *
 * @example
 * ```ts
 * inflightState(state, m, false, at).inflight; // { op: 'append', kind: 'note', at, pending: payload }
 * ```
 */
export function inflightState(state: PersistState, m: Mutation, finish: boolean, at: string): PersistState {
  return { ...state, inflight: { op: m.op, kind: finish ? 'finish' : m.kind, at, pending: m.payload } };
}

/**
 * Knowledge kept when the submission is not stored: it joins without a cite, except a final
 * handoff, which never does.
 *
 * @example
 * ```ts
 * unstoredKnowledge(k, noteMutation, false); // k with the note's text
 * ```
 */
export function unstoredKnowledge(k: Knowledge, m: Mutation, finish: boolean): Knowledge {
  return finish ? k : m.absorb(k, null);
}

/**
 * The stop when the in-flight record could not be saved: the store was not called.
 *
 * @example
 * ```ts
 * inflightUnsavedStop(state, m, false).outcome; // 'state_unwritable_before_store'
 * ```
 */
export function inflightUnsavedStop(state: PersistState, m: Mutation, finish: boolean): StopPlan {
  return {
    verb: m.verb,
    state,
    knowledge: unstoredKnowledge(state.knowledge as Knowledge, m, finish),
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
  };
}

/**
 * The stop when the store could not be opened: it was not (and will not be) called.
 *
 * @example
 * ```ts
 * notCalledStop(state, m, 'cannot open the store: EACCES', false).outcome; // 'store_unavailable'
 * ```
 */
export function notCalledStop(state: PersistState, m: Mutation, detail: string, finish: boolean): StopPlan {
  return {
    verb: m.verb,
    state,
    knowledge: finish || state.knowledge === null ? state.knowledge : m.absorb(state.knowledge, null),
    unpersisted: { kind: m.kind, seq: null, status: 'not-stored', note: 'the store was not called' },
    outcome: 'store_unavailable',
    detail,
    finish,
    inflightSaved: false,
  };
}

/**
 * The commit a policy decision confirms (null when nothing was certainly stored).
 *
 * @example
 * ```ts
 * commitOf(runId, decide('mutation', { kind: 'committed', seq: 3 })); // { seq: 3, cite: `${runId}#3`, outcome: 'committed', warning: null }
 * ```
 */
export function commitOf(runId: string, dec: PolicyDecision): Commit | null {
  if (dec.seq === null) return null;
  return { seq: dec.seq, cite: citeOf(runId, dec.seq), outcome: dec.outcome, warning: dec.warning };
}

/**
 * The state after a commit: knowledge absorbs the submission with its cite (a final handoff as
 * such), the history gains the event, the in-flight record is resolved; a finish stores the final
 * handoff with its cite, a source-note its cite.
 *
 * @example
 * ```ts
 * committedState(state, m, false, commit).history.at(-1); // { seq: commit.seq, kind: 'note', cite: commit.cite }
 * ```
 */
export function committedState(state: PersistState, m: Mutation, finish: boolean, c: Commit): PersistState {
  const k0 = state.knowledge as Knowledge;
  const k = finish ? absorbHandoff(k0, m.payload as Handoff) : m.absorb(k0, c.cite);
  return {
    ...state,
    knowledge: k,
    last_seq: c.seq,
    history: [...state.history, { seq: c.seq, kind: m.kind, cite: c.cite }],
    inflight: null,
    ...(m.sourceNote === true ? { source_note_cite: c.cite } : {}),
    ...(finish
      ? {
          finished: 'stored' as const,
          final_handoff: {
            cite: c.cite,
            handoff: m.payload as Handoff,
            outcome: c.outcome as 'committed' | 'journal_only',
          },
        }
      : {}),
  };
}

/**
 * The result of a commit, given whether the resolved state was saved: `continue` with the cite;
 * for a finish `done`, stored (warnings joined); a mutation whose bookkeeping failed stops, keeping
 * the committed cite.
 *
 * @example
 * ```ts
 * commitResult(m, false, resolved, commit, true); // { action: 'continue', outcome: 'committed', seq, cite }
 * ```
 */
export function commitResult(
  m: Mutation,
  finish: boolean,
  resolved: PersistState,
  c: Commit,
  saved: boolean,
): PersistResult {
  const runId = resolved.run_id as string;
  const warnings = [...(c.warning === null ? [] : [c.warning]), ...(saved ? [] : [BOOKKEEPING_FAILED])];
  if (finish) {
    return persistResult(m.verb, 'done', {
      outcome: c.outcome,
      run_id: runId,
      stored: true,
      seq: c.seq,
      cite: c.cite,
      ...(warnings.length > 0 ? { warning: warnings.join('; ') } : {}),
    });
  }
  if (!saved) {
    return persistResult(m.verb, 'stop', {
      outcome: 'state_unwritable',
      run_id: runId,
      committed: { seq: c.seq, cite: c.cite },
      handoff: operationalErrorHandoff(
        resolved.knowledge,
        `run-persist state unwritable after a committed ${m.kind} (${c.cite}); bookkeeping stopped the run`,
      ),
      terminal_enforced: true,
      warning: warnings.join('; '),
    });
  }
  return persistResult(m.verb, 'continue', { outcome: 'committed', run_id: runId, seq: c.seq, cite: c.cite });
}

/**
 * The stop when the policy confirmed no commit: the submission stays as unpersisted knowledge,
 * `not-stored` (refused before writing) or `unconfirmed`; its in-flight record enforces the stop.
 *
 * @example
 * ```ts
 * unstoredStop(state, m, false, decide('mutation', { kind: 'refused', code: 'busy', detail: null })).unpersisted.status;
 * // 'not-stored'
 * ```
 */
export function unstoredStop(
  state: PersistState,
  m: Mutation,
  finish: boolean,
  dec: PolicyDecision,
): StopPlan {
  const persistence = dec.persistence as Persistence;
  return {
    verb: m.verb,
    state,
    knowledge: unstoredKnowledge(state.knowledge as Knowledge, m, finish),
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
  };
}
