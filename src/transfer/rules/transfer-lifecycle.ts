/**
 * The pure reducers and guards of machines/transfer.ts (layer 1): each takes the machine's context
 * (and an event's data) and returns the context's next values. The journal lines a step will write
 * are built here (`pending`), written by the machine's journal state, and applied to the session
 * state only once written (`commitPending`), through the same reducer a reader folds the journal with.
 */
import { canonicalJson } from '../../canonical/index.js';
import type { TransferDecision } from '../decision-schema.js';
import type { TransferJournalEntry, TransferJournalLine } from '../journal-line-schema.js';
import type { RoutePolicy } from '../policy-schema.js';
import type { TransferRequest } from '../request-schema.js';
import { type Authorization, authorize } from './authorize.js';
import { projectContext } from './context-projection.js';
import { leaseFor, leaseLive } from './lease.js';
import {
  applyJournalLine,
  emptySession,
  requestDigest,
  type SessionState,
  type SessionStatus,
  transferCite,
} from './session-state.js';

/** What the transfer machine is started with. */
export interface TransferMachineInput {
  readonly policy: RoutePolicy;
  /** The session's state folded from its journal (default: a new session). */
  readonly state?: SessionState;
  /** The session id (required when `state` is absent). */
  readonly session?: string;
}

/** The transfer machine's context. */
export interface TransferMachineContext {
  readonly policy: RoutePolicy;
  /** The state as of the last durable journal line. */
  readonly committed: SessionState;
  /** The working state (committed plus an opening line not yet written). */
  readonly state: SessionState;
  /** The request being decided (null between requests). */
  readonly request: TransferRequest | null;
  /** The injected clock of the event being handled (epoch ms). */
  readonly now: number;
  /** Journal lines built by this step, written by the journal state. */
  readonly pending: readonly TransferJournalLine[];
  /** The answer to the last request (null before any, or after a revoke or tick). */
  readonly decision: TransferDecision | null;
  /** Why the last journal write failed (null when it did not). */
  readonly failure: string | null;
}

/** What the journal actor receives: the lines to append durably, in order. */
export interface AppendJournalInput {
  readonly session: string;
  readonly lines: readonly TransferJournalLine[];
}

/**
 * The initial context.
 *
 * @example
 * ```ts
 * initialTransferContext({ policy, session: 's1' }).state.status; // 'new'
 * ```
 */
export function initialTransferContext(input: TransferMachineInput): TransferMachineContext {
  const state = input.state ?? emptySession(input.session ?? '');
  return {
    policy: input.policy,
    committed: state,
    state,
    request: null,
    now: 0,
    pending: [],
    decision: null,
    failure: null,
  };
}

/** The next journal line after the committed ones and those already pending. */
function line(c: TransferMachineContext, nowMs: number, entry: TransferJournalEntry): TransferJournalLine {
  return {
    schema: 'handoff-transfer-journal/v1',
    session: c.committed.session,
    seq: c.committed.seq + 1 + c.pending.length,
    at: new Date(nowMs).toISOString(),
    entry,
  };
}

/** The cite the next pending line will get. */
const nextCite = (c: TransferMachineContext): string =>
  transferCite(c.committed.session, c.committed.seq + 1 + c.pending.length);

/**
 * Stores a request and its clock (the start of every request step).
 *
 * @example
 * ```ts
 * storeRequest(request, Date.now()).request === request; // true
 * ```
 */
export function storeRequest(request: TransferRequest, nowMs: number): Partial<TransferMachineContext> {
  return { request, now: nowMs, decision: null, failure: null, pending: [] };
}

/**
 * Opens a new session: the entry agent holds the first lease from now (the opening line is written
 * with the request's decision).
 *
 * @example
 * ```ts
 * openSession(ctx).state.active; // policy.entry
 * ```
 */
export function openSession(c: TransferMachineContext): Partial<TransferMachineContext> {
  const open = line(c, c.now, {
    kind: 'open',
    active: c.policy.entry,
    lease: leaseFor(c.policy.entry, c.now, c.policy.lease_seconds),
  });
  return { state: applyJournalLine(c.state, open), pending: [open] };
}

const stored = (c: TransferMachineContext) =>
  c.request === null ? undefined : c.state.decisions[c.request.request_id];

/**
 * True when the request id was decided before for this very request: the stored decision is the answer.
 *
 * @example
 * ```ts
 * isReplay(ctx); // true for a retried request
 * ```
 */
export function isReplay(c: TransferMachineContext): boolean {
  const s = stored(c);
  return s !== undefined && c.request !== null && s.digest === requestDigest(c.request);
}

/**
 * True when the request id was decided before for a different request.
 *
 * @example
 * ```ts
 * isConflict(ctx); // true: same request_id, other content
 * ```
 */
export function isConflict(c: TransferMachineContext): boolean {
  return stored(c) !== undefined && !isReplay(c);
}

/**
 * The replayed decision (exactly the stored one).
 *
 * @example
 * ```ts
 * replayDecision(ctx).decision; // the decision journaled for this request id
 * ```
 */
export function replayDecision(c: TransferMachineContext): Partial<TransferMachineContext> {
  return { decision: stored(c)?.decision ?? null, pending: [] };
}

function refused(
  c: TransferMachineContext,
  code: TransferDecision['code'],
  reason: string,
  cite: string | null,
): TransferDecision {
  const ends = code === 'lease_expired';
  return {
    schema: 'handoff-transfer-decision/v1',
    session: c.state.session,
    request_id: c.request?.request_id ?? '',
    outcome: 'refused',
    code,
    reason,
    active: ends ? null : c.state.active,
    context: {},
    redacted: [],
    lease: ends ? null : c.state.lease,
    cite,
  };
}

/**
 * A request id reused for another request: refused `request_conflict`, not journaled (the id
 * keeps the decision it has).
 *
 * @example
 * ```ts
 * conflictDecision(ctx).decision?.code; // 'request_conflict'
 * ```
 */
export function conflictDecision(c: TransferMachineContext): Partial<TransferMachineContext> {
  const prior = stored(c)?.decision.cite ?? 'an earlier line';
  return {
    decision: refused(c, 'request_conflict', `request_id was used for another request (${prior})`, null),
    pending: [],
  };
}

/**
 * The authorization of the stored request at its clock.
 *
 * @example
 * ```ts
 * authorizationOf(ctx).ok; // false when from is not the active agent
 * ```
 */
export function authorizationOf(c: TransferMachineContext): Authorization {
  if (c.request === null) return { ok: false, code: 'invalid_record', reason: 'no request' };
  return authorize(c.policy, c.state, c.request, c.now);
}

function decisionLine(c: TransferMachineContext, d: TransferDecision): TransferJournalLine {
  const r = c.request as TransferRequest;
  return line(c, c.now, {
    kind: 'decision',
    request_digest: requestDigest(r),
    from: r.from,
    to: r.to ?? null,
    blocker: r.blocker,
    decision: d,
  });
}

/**
 * Builds the refusal of an unauthorized request and its journal line.
 *
 * @example
 * ```ts
 * prepareRefusal(ctx).decision?.outcome; // 'refused'
 * ```
 */
export function prepareRefusal(c: TransferMachineContext): Partial<TransferMachineContext> {
  const a = authorizationOf(c);
  const d = a.ok
    ? refused(c, 'invalid_record', 'not refused', null)
    : refused(c, a.code, a.reason, nextCite(c));
  return { decision: d, pending: [...c.pending, decisionLine(c, d)] };
}

/**
 * True when the stored request asks for a transfer (not a return or escalation).
 *
 * @example
 * ```ts
 * isTransferKind(ctx); // true
 * ```
 */
export function isTransferKind(c: TransferMachineContext): boolean {
  return c.request?.kind === 'transfer';
}

/**
 * Builds the grant of an authorized transfer: the context projected through the route's filter,
 * a fresh lease for the receiving agent, the cite of its journal line.
 *
 * @example
 * ```ts
 * prepareGrant(ctx).decision?.active; // 'billing'
 * ```
 */
export function prepareGrant(c: TransferMachineContext): Partial<TransferMachineContext> {
  const a = authorizationOf(c);
  const r = c.request as TransferRequest;
  const route = a.ok ? a.route : null;
  const projected = route === null ? { context: {}, redacted: [] } : projectContext(r.context, route.context);
  const to = r.to ?? '';
  const d: TransferDecision = {
    schema: 'handoff-transfer-decision/v1',
    session: c.state.session,
    request_id: r.request_id,
    outcome: 'granted',
    code: 'granted',
    reason: `${r.from} handed the session to ${to}: ${r.reason}`,
    active: to,
    context: projected.context,
    redacted: [...projected.redacted],
    lease: leaseFor(to, c.now, c.policy.lease_seconds),
    cite: nextCite(c),
  };
  return { decision: d, pending: [...c.pending, decisionLine(c, d)] };
}

/**
 * Builds the decision of an authorized return (to the host) or escalation (to a human): the
 * session ends, nobody holds authority.
 *
 * @example
 * ```ts
 * prepareClose(ctx).decision?.code; // 'returned'
 * ```
 */
export function prepareClose(c: TransferMachineContext): Partial<TransferMachineContext> {
  const r = c.request as TransferRequest;
  const code = r.kind === 'escalate' ? 'escalated' : 'returned';
  const d: TransferDecision = {
    schema: 'handoff-transfer-decision/v1',
    session: c.state.session,
    request_id: r.request_id,
    outcome: 'granted',
    code,
    reason: `${r.from} ${code} the session: ${r.reason}`,
    active: null,
    context: {},
    redacted: [],
    lease: null,
    cite: nextCite(c),
  };
  return { decision: d, pending: [...c.pending, decisionLine(c, d)] };
}

/**
 * Builds the revocation line: the session ends, the lease never acts again.
 *
 * @example
 * ```ts
 * prepareEnd(ctx, 'revoked', 'operator', 'customer hung up', now).pending.length; // 1
 * ```
 */
export function prepareEnd(
  c: TransferMachineContext,
  end: 'revoked' | 'expired',
  by: string,
  reason: string,
  nowMs: number,
): Partial<TransferMachineContext> {
  return {
    now: nowMs,
    request: null,
    decision: null,
    failure: null,
    pending: [line({ ...c, pending: [] }, nowMs, { kind: 'end', end, by, reason })],
  };
}

/**
 * True when the active lease is no longer live at `nowMs`.
 *
 * @example
 * ```ts
 * leaseExpiredAt(ctx, Date.parse(ctx.state.lease!.expires_at)); // true
 * ```
 */
export function leaseExpiredAt(c: TransferMachineContext, nowMs: number): boolean {
  return !leaseLive(c.state.lease, nowMs);
}

/** The session state once the pending lines are applied to the committed state. */
function afterPending(c: TransferMachineContext): SessionState {
  return c.pending.reduce(applyJournalLine, c.committed);
}

/**
 * True when writing the pending lines ends the session with `status`.
 *
 * @example
 * ```ts
 * pendingEndsAs(ctx, 'revoked'); // true after prepareEnd(…, 'revoked', …)
 * ```
 */
export function pendingEndsAs(c: TransferMachineContext, status: SessionStatus): boolean {
  return afterPending(c).status === status;
}

/**
 * The pending lines are durable: the session state moves to them.
 *
 * @example
 * ```ts
 * commitPending(ctx).pending; // []
 * ```
 */
export function commitPending(c: TransferMachineContext): Partial<TransferMachineContext> {
  const state = afterPending(c);
  return { committed: state, state, pending: [] };
}

/**
 * The journal write failed: nothing happened (the working state returns to the committed one) and
 * a pending request is answered `journal_failed` (not journaled, no cite).
 *
 * @example
 * ```ts
 * recordJournalFailure(ctx, new Error('EIO')).decision?.code; // 'journal_failed'
 * ```
 */
export function recordJournalFailure(
  c: TransferMachineContext,
  error: unknown,
): Partial<TransferMachineContext> {
  const why = error instanceof Error ? error.message : canonicalJson(String(error));
  const back = { ...c, state: c.committed };
  return {
    state: c.committed,
    pending: [],
    failure: why,
    decision:
      c.request === null ? null : refused(back, 'journal_failed', `the journal write failed: ${why}`, null),
  };
}
