/**
 * A group of journal mutations written together (pure): several events of one cycle boundary —
 * the review, the replan and the next dispatch — checked in order against the state each earlier
 * one leaves, written with one store call (`appendBatch`, one write and one sync), and resolved
 * into the history with consecutive seqs. A group is not all-or-nothing (`atomic: false`): each
 * event is a record of its own, and a crash may leave a prefix of them, as it could of the same
 * events recorded one by one; none is acknowledged before the shared sync.
 */
import { citeOf } from './failure-policy.js';
import type { Knowledge } from './knowledge.js';
import { type Commit, committedState, type Mutation } from './mutation-rules.js';
import type { PersistState } from './state-schema.js';

/**
 * One mutation standing for the whole group in the in-flight record and in a stop plan: its kind
 * names the events (`review+replan+dispatch`), its absorb folds each submission without a cite.
 *
 * @example
 * ```ts
 * groupMutation([review, replan, dispatch]).kind; // 'review+replan+dispatch'
 * ```
 */
export function groupMutation(ms: readonly Mutation[]): Mutation {
  return {
    verb: 'group',
    op: 'append',
    kind: ms.map((m) => m.kind).join('+') as Mutation['kind'],
    payload: ms.map((m) => m.payload),
    absorb: (k: Knowledge, cite: string | null) => ms.reduce((acc, m) => m.absorb(acc, cite), k),
  };
}

/**
 * The commit of the group's `i`-th event when the group starts after `lastSeq`.
 *
 * @example
 * ```ts
 * memberCommit(runId, 4, 1, commit).seq; // 6
 * ```
 */
export function memberCommit(runId: string, lastSeq: number, i: number, group: Commit): Commit {
  const seq = lastSeq + 1 + i;
  return { ...group, seq, cite: citeOf(runId, seq) };
}

/**
 * The state after the whole group committed: each event resolved in turn with its own seq.
 *
 * @example
 * ```ts
 * committedGroupState(state, [review, replan], commit).last_seq; // state.last_seq + 2
 * ```
 */
export function committedGroupState(
  state: PersistState,
  ms: readonly Mutation[],
  group: Commit,
): PersistState {
  const runId = state.run_id as string;
  return ms.reduce(
    (s, m, i) => committedState(s, m, false, memberCommit(runId, state.last_seq, i, group)),
    state,
  );
}

/**
 * The state an event of the group is checked against: the state as if every earlier event of the
 * group had committed (a replan may cite the review before it; a handoff follows the dispatch
 * before it).
 *
 * @example
 * ```ts
 * const next = provisionalState(state, review); // next.last_seq === state.last_seq + 1
 * ```
 */
export function provisionalState(state: PersistState, m: Mutation): PersistState {
  const seq = state.last_seq + 1;
  return committedState(state, m, false, {
    seq,
    cite: citeOf(state.run_id as string, seq),
    outcome: 'committed',
    warning: null,
  });
}
