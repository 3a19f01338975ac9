/**
 * The journal is the truth of what was committed (pure). When a mutation ends in a stop, the
 * controller re-reads the run and takes its committed history from the journal before recording
 * the stop, so a stop can never make the state forget a seq the store acknowledged — to this
 * controller or to another one that shares the state file (two `handoff persist` invocations on one
 * `--state`: the second's append lands at another seq than it expected, it stops, and its save
 * would otherwise replace the first's resolved state with its own older view).
 */
import { formatCite } from '../store/cite.js';
import type { PersistState } from './state-schema.js';

/** The journal items this rule reads (a subset of run-store-load/v1). */
export interface JournalEvents {
  readonly run_id: string;
  readonly events: readonly { readonly seq: number; readonly kind: string }[];
}

/**
 * The state with its committed history taken from the journal when the journal knows more: every
 * event of the run's valid prefix, in seq order, with its cite. A journal that knows less (or
 * another run) leaves the state as it is: the rule never lowers `last_seq`.
 *
 * @example
 * ```ts
 * const truth = reconcileWithJournal(state, load.value); // truth.last_seq ≥ state.last_seq
 * ```
 */
export function reconcileWithJournal(state: PersistState, journal: JournalEvents): PersistState {
  if (state.run_id !== journal.run_id) return state;
  const last = journal.events.at(-1)?.seq ?? 0;
  if (last <= state.last_seq) return state;
  return {
    ...state,
    last_seq: last,
    history: journal.events.map((e) => ({
      seq: e.seq,
      kind: e.kind,
      cite: formatCite(journal.run_id, e.seq),
    })),
  };
}
