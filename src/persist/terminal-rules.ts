/**
 * Terminal enforcement (layer 1, pure): a run that stopped, finished, never got a run id, or left
 * an in-flight operation unresolved refuses every further mutation. An unresolved in-flight
 * record is retired into a stop once: its pending submission is folded into knowledge (never a
 * final handoff) and it becomes an unpersisted item.
 */
import { validateDispatch, validateHandoff } from '../contract/validate.js';
import { NotePayloadSchema } from '../store/schema.js';
import { safeValidate } from '../validation/index.js';
import {
  absorbDispatch,
  absorbHandoff,
  absorbNote,
  absorbPart,
  type Knowledge,
  type KnowledgePart,
  operationalErrorHandoff,
} from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { Inflight, PersistState, Unpersisted } from './state-schema.js';
import { STOP_ENFORCED_BY_INFLIGHT } from './stop-rules.js';

/**
 * True when no mutation may proceed: stopped, finished, an unresolved in-flight record, or no run.
 *
 * @example
 * ```ts
 * isTerminal({ ...state, stopped: { outcome: 'refused:busy', detail: '…', at } }); // true
 * ```
 */
export function isTerminal(s: PersistState): boolean {
  return s.stopped !== null || s.finished !== null || s.inflight !== null || s.run_id === null;
}

/**
 * The in-flight record a terminal call must retire: present, and the run neither stopped nor
 * finished (null otherwise).
 *
 * @example
 * ```ts
 * unresolvedInflight({ ...state, inflight }); // inflight
 * ```
 */
export function unresolvedInflight(s: PersistState): Inflight | null {
  return s.stopped === null && s.finished === null ? s.inflight : null;
}

/**
 * Knowledge with an unresolved in-flight submission folded in once: progress parts, dispatches,
 * worker handoffs and notes (without cite) that still validate. An unstored final handoff is
 * never absorbed; anything unreadable leaves knowledge unchanged.
 *
 * @example
 * ```ts
 * foldPending(k, { op: 'append', kind: 'note', at, pending: { kind: 'failed-avenue', text: 'x', lean: null } });
 * // k with 'x' among accumulated.failed_avenues
 * ```
 */
export function foldPending(k: Knowledge, inf: Inflight): Knowledge {
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

/**
 * Retires an unresolved in-flight record into a `terminal` stop at `at`: the unpersisted item it
 * becomes (progress: `control-state-saved`; a store call: `unconfirmed`) and the new state.
 *
 * @example
 * ```ts
 * const r = retireInflight(state, state.inflight!, '2026-11-30T10:00:00Z');
 * r.unpersisted.status; // 'unconfirmed'
 * r.state.stopped?.outcome; // 'terminal'
 * ```
 */
export function retireInflight(
  s: PersistState,
  inf: Inflight,
  at: string,
): { state: PersistState; unpersisted: Unpersisted } {
  const note =
    inf.op === 'progress'
      ? 'an in-flight progress record was saved but never resolved; its knowledge is folded into this handoff'
      : `persistence unconfirmed; no citation available from this state (unresolved ${inf.op} ${inf.kind})`;
  const unpersisted: Unpersisted = {
    kind: inf.kind,
    seq: null,
    status: inf.op === 'progress' ? 'control-state-saved' : 'unconfirmed',
    note,
  };
  const k = s.knowledge === null ? null : foldPending(s.knowledge, inf);
  return {
    unpersisted,
    state: {
      ...s,
      knowledge: k,
      inflight: null,
      unpersisted: [...s.unpersisted, unpersisted],
      stopped: { outcome: 'terminal', detail: `unresolved in-flight ${inf.op} ${inf.kind}`, at },
    },
  };
}

/** What a terminal result reports beyond the state: a just-retired item, a warning. */
export interface TerminalExtras {
  readonly unpersisted?: Unpersisted | undefined;
  /** Set when the retirement could not be saved. */
  readonly retireUnsaved?: boolean;
}

/**
 * The result for a run already terminal: `stop` (or for a finish `done`, not stored) with an
 * operational-error handoff naming the earlier stop or finish; always enforced.
 *
 * @example
 * ```ts
 * terminalResult('note', stoppedState, false); // { action: 'stop', outcome: 'terminal', terminal_enforced: true, handoff }
 * ```
 */
export function terminalResult(
  verb: string,
  s: PersistState,
  finish: boolean,
  extras: TerminalExtras = {},
): PersistResult {
  const { unpersisted } = extras;
  const warning = extras.retireUnsaved === true ? STOP_ENFORCED_BY_INFLIGHT : undefined;
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
