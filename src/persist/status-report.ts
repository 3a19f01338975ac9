/**
 * The `status` verb's report (layer 1, pure): the invocation's state as the helper knows it.
 */
import { type PersistResult, persistResult } from './result.js';
import type { PersistState } from './state-schema.js';
import { isTerminal } from './terminal-rules.js';

/**
 * Committed history, knowledge, unpersisted items, the stop/finish markers and the stored final
 * handoff (exactly as stored, with its cite), and whether the run is terminal.
 *
 * @example
 * ```ts
 * statusResult(state); // { action: 'status', run_id, last_seq, history, current, accumulated, …, terminal: false }
 * ```
 */
export function statusResult(s: PersistState): PersistResult {
  return persistResult('status', 'status', {
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
    terminal: isTerminal(s),
  });
}
