/**
 * The failure-policy table of run persistence (layer 1, pure): store verdict → the helper's
 * action. The command obeys the action; nothing here infers success from an uncertain outcome.
 *
 * | verdict | mutation | finish |
 * |---|---|---|
 * | committed | continue + seq + cite | done, stored, cite |
 * | journal_only | (contradictory → malformed) | done, stored, warning "handoff cache not confirmed" |
 * | refused:busy (after the one retry) / refused:<code> | stop, not-stored | done, stored:false, not-stored |
 * | indeterminate | stop, unconfirmed | done, stored:false, unconfirmed |
 * | malformed | stop, unconfirmed | done, stored:false, unconfirmed |
 */

import { formatCite } from '../store/cite.js';
import type { StoreVerdict } from './store-verdict.js';

/** Persistence wording of something that was not (or not certainly) stored. */
export type Persistence = 'not-stored' | 'unconfirmed';

/** The decided effect of one store verdict. */
export interface PolicyDecision {
  /** `continue` (mutation committed), `done` (finish), or `stop`. */
  readonly action: 'continue' | 'done' | 'stop';
  /** `committed`, `journal_only`, `refused:<code>`, `indeterminate` or `malformed`. */
  readonly outcome: string;
  /** The confirmed seq (committed / journal_only only). */
  readonly seq: number | null;
  /** For finish: whether the final handoff is in the journal. */
  readonly stored: boolean | null;
  /** Wording for what is not in the journal (null when it is). */
  readonly persistence: Persistence | null;
  /** A warning to surface (journal_only). */
  readonly warning: string | null;
  /** The operational-error stop_detail describing the failure (null on success). */
  readonly stopDetail: string | null;
}

/** The warning of a finish whose handoff cache could not be confirmed. */
export const CACHE_NOT_CONFIRMED = 'handoff cache not confirmed';

/**
 * Citation of an event: `<run_id>#<seq>`.
 *
 * @example
 * ```ts
 * citeOf('20261130T120000Z-0123abcd', 4); // '20261130T120000Z-0123abcd#4'
 * ```
 */
export function citeOf(runId: string, seq: number): string {
  return formatCite(runId, seq);
}

/**
 * The operational-error stop_detail for a failed verdict.
 *
 * @example
 * ```ts
 * stopDetailOf({ kind: 'refused', code: 'journal_damaged', detail: 'corrupt line 3' });
 * // 'run-store journal_damaged: corrupt line 3'
 * ```
 */
export function stopDetailOf(v: StoreVerdict): string | null {
  switch (v.kind) {
    case 'committed':
    case 'journal_only':
      return null;
    case 'refused':
      return `run-store ${v.code}: ${v.detail ?? 'refused before writing; nothing was stored'}`;
    case 'indeterminate':
      return `run-store indeterminate${v.step === null ? '' : ` at ${v.step}`}: ${
        v.detail ?? 'the write may or may not be in the journal; persistence unconfirmed'
      }`;
    case 'malformed':
      return `run-store result malformed (uncertain): ${v.reason}`;
  }
}

/**
 * Applies the failure-policy table to a verdict.
 *
 * @example
 * ```ts
 * decide('finish', { kind: 'journal_only', seq: 7, detail: null });
 * // { action: 'done', outcome: 'journal_only', seq: 7, stored: true, warning: 'handoff cache not confirmed', … }
 * ```
 */
export function decide(op: 'mutation' | 'finish', v: StoreVerdict): PolicyDecision {
  const finish = op === 'finish';
  if (v.kind === 'committed') {
    return {
      action: finish ? 'done' : 'continue',
      outcome: 'committed',
      seq: v.seq,
      stored: finish ? true : null,
      persistence: null,
      warning: null,
      stopDetail: null,
    };
  }
  if (v.kind === 'journal_only') {
    if (!finish) return decide(op, { kind: 'malformed', reason: 'journal_only for a plain append' });
    return {
      action: 'done',
      outcome: 'journal_only',
      seq: v.seq,
      stored: true,
      persistence: null,
      warning: CACHE_NOT_CONFIRMED,
      stopDetail: null,
    };
  }
  const persistence: Persistence = v.kind === 'refused' ? 'not-stored' : 'unconfirmed';
  return {
    action: finish ? 'done' : 'stop',
    outcome: v.kind === 'refused' ? `refused:${v.code}` : v.kind,
    seq: null,
    stored: finish ? false : null,
    persistence,
    warning: null,
    stopDetail: stopDetailOf(v),
  };
}

/**
 * Exit code of a run-persist result: 0 ok/done-stored/status/preview/custody, 2 usage,
 * 3 startup-error, 5 stop or done-not-stored.
 *
 * @example
 * ```ts
 * exitCodeOf({ action: 'done', stored: false }); // 5
 * ```
 */
export function exitCodeOf(r: { action: string; stored?: boolean | null }): number {
  switch (r.action) {
    case 'usage':
      return 2;
    case 'startup-error':
      return 3;
    case 'stop':
      return 5;
    case 'done':
      return r.stored === true ? 0 : 5;
    default:
      return 0;
  }
}
