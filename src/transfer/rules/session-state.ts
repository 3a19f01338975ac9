/**
 * The state of a transfer session (layer 1, pure), derived from its journal: who is active, the
 * lease, how many transfers each route granted, the grants so far (for the rerun guard) and every
 * decision by request id (for idempotent replay). `applyJournalLine` is the one reducer; the
 * machine commits through it and a reader folds a journal with it.
 */
import { canonicalJson, sha256Hex } from '../../canonical/index.js';
import type { Lease, TransferDecision } from '../decision-schema.js';
import type { TransferJournalLine } from '../journal-line-schema.js';
import type { TransferRequest } from '../request-schema.js';
import { routeKey } from './route-lookup.js';

/** Where a session is. `new`: no line yet. */
export type SessionStatus = 'new' | 'active' | 'returned' | 'escalated' | 'revoked' | 'expired';

/** A granted transfer, as the rerun guard and the invariants read it. */
export interface GrantRecord {
  readonly from: string;
  readonly to: string;
  readonly blocker: string | null;
  readonly request_id: string;
}

/** The derived state of one session. */
export interface SessionState {
  readonly session: string;
  readonly status: SessionStatus;
  /** The one agent holding authority (null before the session opens and after it ends). */
  readonly active: string | null;
  readonly lease: Lease | null;
  /** The last journal sequence number (0: empty journal). */
  readonly seq: number;
  /** Granted transfers in all. */
  readonly transfers: number;
  /** Granted transfers per route ({@link routeKey}). */
  readonly route_counts: Readonly<Record<string, number>>;
  readonly grants: readonly GrantRecord[];
  /** Every journaled decision by request id, with the digest of the request it answered. */
  readonly decisions: Readonly<
    Record<string, { readonly digest: string; readonly decision: TransferDecision }>
  >;
}

/**
 * The state of a session with an empty journal.
 *
 * @example
 * ```ts
 * emptySession('s1').status; // 'new'
 * ```
 */
export function emptySession(session: string): SessionState {
  return {
    session,
    status: 'new',
    active: null,
    lease: null,
    seq: 0,
    transfers: 0,
    route_counts: {},
    grants: [],
    decisions: {},
  };
}

/**
 * The digest a decision line keeps of its request: every field but the context's values (only the
 * context's key names enter), so a redacted value never reaches the journal, not even hashed.
 *
 * @example
 * ```ts
 * requestDigest(request); // '9f86d08…' (64 hex)
 * ```
 */
export function requestDigest(r: TransferRequest): string {
  return sha256Hex(
    canonicalJson({
      session: r.session,
      request_id: r.request_id,
      kind: r.kind,
      from: r.from,
      to: r.to ?? null,
      reason: r.reason,
      blocker: r.blocker,
      evidence_delta: r.evidence_delta,
      context_keys: Object.keys(r.context).sort(),
    }),
  );
}

/**
 * The cite of journal line `seq` of `session`: `<session>#<seq>`.
 *
 * @example
 * ```ts
 * transferCite('s1', 3); // 's1#3'
 * ```
 */
export function transferCite(session: string, seq: number): string {
  return `${session}#${seq}`;
}

const ended = (s: SessionState, status: SessionStatus): SessionState => ({
  ...s,
  status,
  active: null,
  lease: null,
});

/**
 * Applies one journal line (already validated, of this session, with the next `seq`) to `s`.
 *
 * @example
 * ```ts
 * const s1 = applyJournalLine(emptySession('s1'), openLine); // status 'active', active = entry
 * ```
 */
export function applyJournalLine(s: SessionState, line: TransferJournalLine): SessionState {
  const e = line.entry;
  const at = { ...s, seq: line.seq };
  if (e.kind === 'open') return { ...at, status: 'active', active: e.active, lease: e.lease };
  if (e.kind === 'end') return ended(at, e.end);
  const d = e.decision;
  const decisions = { ...at.decisions, [d.request_id]: { digest: e.request_digest, decision: d } };
  const next = { ...at, decisions };
  if (d.outcome === 'refused') return d.code === 'lease_expired' ? ended(next, 'expired') : next;
  if (d.code === 'returned') return ended(next, 'returned');
  if (d.code === 'escalated') return ended(next, 'escalated');
  const to = e.to ?? '';
  const key = routeKey(e.from, to);
  return {
    ...next,
    active: d.active,
    lease: d.lease,
    transfers: next.transfers + 1,
    route_counts: { ...next.route_counts, [key]: (next.route_counts[key] ?? 0) + 1 },
    grants: [...next.grants, { from: e.from, to, blocker: e.blocker, request_id: d.request_id }],
  };
}

/** Why a journal cannot be folded: the 1-based line and what is wrong. */
export interface FoldDefect {
  readonly line: number;
  readonly why: string;
}

/**
 * Folds validated journal lines into the session state; a line of another session or out of
 * sequence is a defect (returned, never thrown).
 *
 * @example
 * ```ts
 * const r = foldSession('s1', lines);
 * if (r.ok) r.state.active; // 'billing'
 * ```
 */
export function foldSession(
  session: string,
  lines: readonly TransferJournalLine[],
): { readonly ok: true; readonly state: SessionState } | { readonly ok: false; readonly defect: FoldDefect } {
  let s = emptySession(session);
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as TransferJournalLine;
    if (line.session !== session) return { ok: false, defect: { line: i + 1, why: 'another session' } };
    if (line.seq !== s.seq + 1)
      return { ok: false, defect: { line: i + 1, why: `seq ${line.seq} after ${s.seq}` } };
    if (s.status === 'new' && line.entry.kind !== 'open') {
      return { ok: false, defect: { line: i + 1, why: 'the first line does not open the session' } };
    }
    s = applyJournalLine(s, line);
  }
  return { ok: true, state: s };
}
