/**
 * The file transfer journal (effects layer): one append-only JSON-lines file per session, every
 * request decided under the file's append lock — the chain's lock (`withAppendLock`, an O_EXCL /
 * hard-link lock file that is never broken) — so the transfers of one session are serialized
 * across threads of control and processes: read the journal, fold the session state, run the
 * transfer machine, append its lines (one write, one fsync), release. A writer that finds the lock
 * taken waits and tries again (bounded); nothing here implements a lock of its own.
 */
import { createActor, fromPromise, type SnapshotFrom } from 'xstate';
import { transferMachine } from '../../machines/transfer.js';
import { createTraceCollector } from '../audit/trace-collector.js';
import { canonicalJson } from '../canonical/index.js';
import { withAppendLock } from '../chain/append-lock.js';
import { JsonlAppender, readCompleteLinesSync } from '../chain/jsonl-file.js';
import { nodeFsLayer } from '../durable/index.js';
import { HandoffError, isHandoffError } from '../errors/index.js';
import type { TransferDecision } from './decision-schema.js';
import { type TransferJournalLine, validateTransferJournalLine } from './journal-line-schema.js';
import { transferJournalFile } from './journal-path.js';
import type { RoutePolicy } from './policy-schema.js';
import type { TransferRequest } from './request-schema.js';
import { closedRefusal } from './rules/authorize.js';
import { foldSession, requestDigest, type SessionState } from './rules/session-state.js';

/** Options of the file journal's operations. */
export interface TransferJournalOptions {
  /** The clock (epoch ms); default `Date.now`. */
  readonly now?: () => number;
  /** How long to keep retrying a taken lock before answering `busy` (ms; default 30 000). */
  readonly waitMs?: number;
  /**
   * Whether each write's last line carries the transfer machine's transitions (`trace`, replayed
   * by `handoff audit --transfer-journal`). Default true.
   */
  readonly trace?: boolean;
}

/**
 * Reads and validates every complete line of `session`'s journal under `dir` (no lock: appends
 * are whole lines), without folding them; an absent journal is `[]`.
 *
 * @example
 * ```ts
 * readTransferJournalLines('/var/handoff/transfers', 'conv-42').length; // 3
 * ```
 * @throws HandoffError `journal_damaged` (details `path`, `line`) when a line is not JSON or not a
 *   valid journal line; `io_error` when the file cannot be read.
 */
export function readTransferJournalLines(dir: string, session: string): TransferJournalLine[] {
  const path = transferJournalFile(dir, session);
  const lines: TransferJournalLine[] = [];
  readCompleteLinesSync(path).forEach((text, i) => {
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch {
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: not JSON`, {
        details: { path, line: i + 1 },
      });
    }
    const v = validateTransferJournalLine(raw);
    if (!v.ok) {
      const why = v.issues.map((x) => `${x.path || '(root)'}: ${x.message}`).join('; ');
      throw new HandoffError('journal_damaged', `${path} line ${i + 1}: ${why}`, {
        details: { path, line: i + 1 },
      });
    }
    lines.push(v.value);
  });
  return lines;
}

/**
 * Reads and folds the journal of `session` under `dir` (no lock: appends are whole lines).
 *
 * @example
 * ```ts
 * const state = readTransferSession('/var/handoff/transfers', 'conv-42');
 * state.active; // 'billing'
 * ```
 * @throws HandoffError `journal_damaged` (details `path`, `line`) when a line is not a valid
 *   journal line of this session in sequence; `io_error` when the file cannot be read.
 */
export function readTransferSession(dir: string, session: string): SessionState {
  const path = transferJournalFile(dir, session);
  const folded = foldSession(session, readTransferJournalLines(dir, session));
  if (!folded.ok) {
    throw new HandoffError('journal_damaged', `${path} line ${folded.defect.line}: ${folded.defect.why}`, {
      details: { path, line: folded.defect.line },
    });
  }
  return folded.state;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Runs `fn` under the session's append lock, retrying while another writer holds it. */
async function underLock<T>(path: string, waitMs: number, fn: () => Promise<T>): Promise<T> {
  const deadline = Date.now() + waitMs;
  for (let attempt = 0; ; attempt++) {
    try {
      return await withAppendLock(path, fn);
    } catch (e) {
      if (!isHandoffError(e) || e.code !== 'busy' || Date.now() >= deadline) throw e;
      // jittered backoff, 1–32 ms growing: the holder's critical section is one read and one fsync
      await sleep(1 + Math.floor(Math.random() * Math.min(32, 2 ** attempt)));
    }
  }
}

type Snap = SnapshotFrom<typeof transferMachine>;
const WRITING = new Set(['transferring', 'refusing', 'closing']);

/** Starts the machine on `state`, sends `event`, waits until the journal write settled. */
async function drive(
  path: string,
  policy: RoutePolicy,
  state: SessionState,
  event: Parameters<ReturnType<typeof createActor<typeof transferMachine>>['send']>[0],
  traced: boolean,
): Promise<Snap> {
  const appender = new JsonlAppender(nodeFsLayer(), 0);
  // the machine's transitions since this actor started ride on the write's last line (the audit's)
  const trace = createTraceCollector({ machines: [transferMachine.id] });
  const machine = transferMachine.provide({
    actors: {
      appendJournal: fromPromise(async ({ input }) => {
        const steps = trace.take();
        const last = input.lines.length - 1;
        appender.append(
          path,
          input.lines.map((l, i) =>
            canonicalJson(i === last && steps.length > 0 ? { ...l, trace: steps } : l),
          ),
        );
      }),
    },
  });
  const actor = createActor(machine, {
    input: { policy, state },
    ...(traced ? { inspect: trace.inspect } : {}),
  });
  actor.start();
  try {
    actor.send(event);
    let snap = actor.getSnapshot();
    if (WRITING.has(String(snap.value))) {
      snap = await new Promise<Snap>((resolve) => {
        const sub = actor.subscribe((s) => {
          if (!WRITING.has(String(s.value))) {
            sub.unsubscribe();
            resolve(s);
          }
        });
      });
    }
    return snap;
  } finally {
    actor.stop();
    appender.close();
  }
}

/**
 * Decides `request` under `policy` against the session's journal in `dir` and journals the
 * decision (serialized with every other writer of the session): granted when the route is
 * allowlisted, `from` is the active agent, its lease is live, the limits hold and the rerun guard
 * allows it; refused with a named code otherwise. A request id decided before is answered with
 * the decision it got (idempotent replay); a session that ended answers its end's refusal (not
 * journaled). A redacted context value is never written.
 *
 * @example
 * ```ts
 * const d = await submitTransfer('/var/handoff/transfers', policy, request);
 * if (d.outcome === 'granted') forward(d.context, d.active);
 * ```
 * @throws HandoffError `busy` when the session's lock stayed taken for `waitMs`, `journal_damaged`,
 *   `io_error`.
 */
export async function submitTransfer(
  dir: string,
  policy: RoutePolicy,
  request: TransferRequest,
  options: TransferJournalOptions = {},
): Promise<TransferDecision> {
  const path = transferJournalFile(dir, request.session);
  const clock = options.now ?? Date.now;
  return underLock(path, options.waitMs ?? 30_000, async () => {
    const state = readTransferSession(dir, request.session);
    const known = state.decisions[request.request_id];
    const closed = closedRefusal(state);
    if (closed !== null && !closed.ok && (known === undefined || known.digest !== requestDigest(request))) {
      return {
        schema: 'handoff-transfer-decision/v1',
        session: request.session,
        request_id: request.request_id,
        outcome: 'refused',
        code: closed.code,
        reason: closed.reason,
        active: null,
        context: {},
        redacted: [],
        lease: null,
        cite: null,
      } satisfies TransferDecision;
    }
    if (closed !== null && known !== undefined) return known.decision;
    const snap = await drive(
      path,
      policy,
      state,
      { type: 'REQUEST', request, now: clock() },
      options.trace !== false,
    );
    const d = snap.context.decision;
    if (d === null) throw new HandoffError('internal', 'the transfer machine gave no decision');
    return d;
  });
}

/** What a revocation did. */
export interface RevokeResult {
  /** True when this call ended the session. */
  readonly revoked: boolean;
  /** The session's status afterwards. */
  readonly status: SessionState['status'];
  /** `<session>#<seq>` of the revocation line (null when nothing was written). */
  readonly cite: string | null;
}

/**
 * Revokes an active session: its lease never acts again (journaled, serialized like a transfer).
 * A session that is not active is left as it is (`revoked: false` and its status).
 *
 * @example
 * ```ts
 * await revokeTransferSession(dir, 'conv-42', { by: 'operator', reason: 'customer left' });
 * // { revoked: true, status: 'revoked', cite: 'conv-42#5' }
 * ```
 * @throws HandoffError `busy`, `journal_damaged`, `io_error`.
 */
export async function revokeTransferSession(
  dir: string,
  session: string,
  who: { readonly by: string; readonly reason: string },
  options: TransferJournalOptions = {},
): Promise<RevokeResult> {
  const path = transferJournalFile(dir, session);
  const clock = options.now ?? Date.now;
  return underLock(path, options.waitMs ?? 30_000, async () => {
    const state = readTransferSession(dir, session);
    if (state.status !== 'active') return { revoked: false, status: state.status, cite: null };
    // a revocation reads no route: the machine gets the policy's shape only
    const policy: RoutePolicy = {
      schema: 'handoff-routes/v1',
      entry: state.active ?? '',
      routes: [],
      lease_seconds: 1,
    };
    const snap = await drive(
      path,
      policy,
      state,
      {
        type: 'REVOKE',
        by: who.by,
        reason: who.reason,
        now: clock(),
      },
      options.trace !== false,
    );
    const after = snap.context.state;
    if (snap.context.failure !== null) {
      throw new HandoffError('io_error', `the revocation was not journaled: ${snap.context.failure}`, {
        details: { path },
      });
    }
    return { revoked: after.status === 'revoked', status: after.status, cite: `${session}#${after.seq}` };
  });
}
