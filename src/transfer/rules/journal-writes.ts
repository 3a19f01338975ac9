/**
 * The journal writes of a transfer session (layer 1, pure): which lines each write of the file
 * journal appended, and the transfer machine trace it carried. A write's last line carries the
 * trace (`trace`); an opening line is always written together with the decision after it, so it
 * belongs to that decision's write. Each write is decided by a new machine actor restored from the
 * journal, so the session's status before and after the write (folded from the lines) says where
 * its trace must begin and what its lines mean.
 */
import type { TraceStep } from '../../store/store-types.js';
import type { TransferJournalLine } from '../journal-line-schema.js';
import { applyJournalLine, emptySession, type SessionState, type SessionStatus } from './session-state.js';

/** One write that carried a trace: its lines' seq range, its steps, the status around it. */
export interface TransferTracedWrite {
  /** The seq of the write's first line (an opening line, or the traced line itself). */
  readonly first_seq: number;
  /** The seq of the traced line (the write's last line). */
  readonly last_seq: number;
  readonly trace: readonly TraceStep[];
  /** The session's status before the write (what the actor was restored to). */
  readonly before: SessionStatus;
  /** The session's status after the write. */
  readonly after: SessionStatus;
  /** The traced line (the decision or end the write journaled). */
  readonly line: TransferJournalLine;
}

/**
 * The session states after each line (index i: after line i + 1), folded with the journal's reducer.
 * The lines are expected in sequence (as `readTransferSession` checks them).
 *
 * @example
 * ```ts
 * sessionStates('s1', lines).at(-1)?.status; // 'returned'
 * ```
 */
export function sessionStates(session: string, lines: readonly TransferJournalLine[]): SessionState[] {
  const out: SessionState[] = [];
  let s = emptySession(session);
  for (const line of lines) {
    s = applyJournalLine(s, line);
    out.push(s);
  }
  return out;
}

/** A parsed step as the audit's `TraceStep` (optional keys absent, not undefined). */
function toStep(s: NonNullable<TransferJournalLine['trace']>[number]): TraceStep {
  return {
    machine: s.machine,
    from: s.from,
    event: s.event,
    to: s.to,
    ...(s.guard === undefined ? {} : { guard: s.guard }),
    ...(s.actor === undefined ? {} : { actor: s.actor }),
  };
}

/**
 * The writes of a journal that carried a trace, in order (lines without a trace — written before
 * the trace existed, or an opening line — belong to no write of their own).
 *
 * @example
 * ```ts
 * tracedWrites('s1', lines).map((w) => [w.first_seq, w.last_seq]); // [[1, 2], [3, 3]]
 * ```
 */
export function tracedWrites(session: string, lines: readonly TransferJournalLine[]): TransferTracedWrite[] {
  const states = sessionStates(session, lines);
  const out: TransferTracedWrite[] = [];
  lines.forEach((line, i) => {
    if (line.trace === undefined || line.trace.length === 0) return;
    const prev = i > 0 ? lines[i - 1] : undefined;
    const opens = prev !== undefined && prev.entry.kind === 'open' && prev.trace === undefined;
    const first = opens ? i - 1 : i;
    out.push({
      first_seq: lines[first]?.seq ?? line.seq,
      last_seq: line.seq,
      trace: line.trace.map(toStep),
      before: first === 0 ? 'new' : (states[first - 1]?.status ?? 'new'),
      after: states[i]?.status ?? 'new',
      line,
    });
  });
  return out;
}

/**
 * The state of the transfer machine a write's trace must end in: the journal state that wrote its
 * traced line (`transferring` for a granted transfer, `refusing` for a refusal, `closing` for a
 * return, an escalation, a revocation or an expiry).
 *
 * @example
 * ```ts
 * writingStateOf(grantLine); // 'transferring'
 * ```
 */
export function writingStateOf(line: TransferJournalLine): 'transferring' | 'refusing' | 'closing' | null {
  const e = line.entry;
  if (e.kind === 'open') return null;
  if (e.kind === 'end') return 'closing';
  if (e.decision.outcome === 'refused') return 'refusing';
  return e.decision.code === 'granted' ? 'transferring' : 'closing';
}
