/**
 * The enforcer: the {@link Ledger} interface — the only component that grants work — and its
 * implementation over an append-only, per-problem event log ({@link LedgerLog}). Appends are
 * compare-and-set on the next sequence number, so concurrent reservations are linearized: a loser
 * re-reads and re-decides, and sees the winner's grant. Storage backends implement only the log.
 */
import { HandoffError } from '../errors/index.js';
import type { TraceStep } from '../store/store-types.js';
import type { CandidateBinding, Profile } from './contract-schema.js';
import type { Directive } from './directive-schema.js';
import { GATE_GRANT_SCHEMA, type Grant, type Slot } from './grant-schema.js';
import { contentId } from './ids.js';
import {
  decideReservation,
  foldLedger,
  type LedgerEvent,
  type LedgerState,
  type RefusalReason,
  type ReserveRequest,
  slotUsage,
} from './ledger-state.js';
import type { LedgerTrace, TraceSource } from './ledger-trace.js';

/**
 * What an append may carry besides its event.
 *
 * @example
 * ```ts
 * await log.append('billing-17', event, { trace: { start: true, steps: collector.take() } });
 * ```
 */
export interface LedgerAppendOptions {
  /** The gate machine's transitions since the run's previous entry (a backend may not store it: the fs and PostgreSQL logs do, the memory log does not). */
  readonly trace?: LedgerTrace;
}

/** Storage of per-problem event logs. `append` is an atomic create of `seq` (false when taken). */
export interface LedgerLog {
  /** All events of the problem, in order; null when there is no history at all. */
  readonly read: (problemId: string) => Promise<LedgerEvent[] | null>;
  /** Appends `event` as number `event.seq`; resolves false if that number already exists. */
  readonly append: (problemId: string, event: LedgerEvent, options?: LedgerAppendOptions) => Promise<boolean>;
}

/**
 * What the enforcer checks a reservation against besides its own history: the live tree.
 *
 * @example
 * ```ts
 * await ledger.reserve(request, { live: await currentCandidate(repo) });
 * ```
 */
export interface ReserveCheck {
  /** The candidate binding of the tree the work would continue from, now; null: none known (refused). */
  readonly live: CandidateBinding | null;
}

/** Outcome of {@link Ledger.reserve}. */
export type ReserveOutcome =
  | { readonly outcome: 'granted' | 'replayed'; readonly grant: Grant }
  | { readonly outcome: 'refused'; readonly reason: RefusalReason; readonly detail: string };

/** Outcome of {@link Ledger.reconcile}. */
export interface ReconcileOutcome {
  /** `resume`: nothing started, continue with the same grant; `lead-review`: outcome unknown or finished — no replay. */
  readonly action: 'resume' | 'lead-review' | 'done' | 'released';
  readonly grant: Grant;
}

/** What `status` reports. */
export interface LedgerStatus {
  readonly problem_id: string;
  readonly profile: Profile;
  readonly seq: number;
  readonly grants: readonly Grant[];
  readonly used: Readonly<Record<Slot, number>>;
  readonly remaining: Readonly<Record<Slot, number>>;
  readonly directives: number;
  readonly lead_handoffs: number;
}

/** The enforcer. Every mutation is idempotent. */
export interface Ledger {
  /** Starts a problem's history (idempotent; a second registration keeps the first profile). */
  register(input: { problem_id: string; profile: Profile; contract_revision: number }): Promise<LedgerStatus>;
  /** Appends a lead directive (idempotent by directive_id). Never replenishes the gate slot. */
  addDirective(directive: Directive): Promise<LedgerStatus>;
  /**
   * Atomically reserves a slot, or returns the stored grant for a repeated key, or refuses. A new
   * grant is made only after the request's basis is re-checked against `check.live` (the live
   * tree's candidate binding; null fails closed): see {@link decideReservation}.
   */
  reserve(request: ReserveRequest, check: ReserveCheck): Promise<ReserveOutcome>;
  /** Records that work under the grant has started (after this, a crash is `uncertain`). */
  start(problemId: string, grantId: string): Promise<Grant>;
  /** Consumes the grant (idempotent). */
  consume(problemId: string, grantId: string): Promise<Grant>;
  /** Releases a reserved grant before any work started. */
  release(problemId: string, grantId: string, reason: string): Promise<Grant>;
  /** Reconciles a grant whose outcome is unknown, from the ledger only (never by replaying). */
  reconcile(problemId: string, grantId: string): Promise<ReconcileOutcome>;
  /** Records the (first or later) lead handoff; after it, continuations need a lead directive. */
  recordLeadHandoff(
    problemId: string,
    info: { packet_id: string | null; route: string },
  ): Promise<LedgerStatus>;
  /** The folded state, or null without history. */
  status(problemId: string): Promise<LedgerStatus | null>;
  /**
   * A view of this ledger for one gate run whose every appended entry carries the steps `source`
   * recorded since the view's previous entry (the first entry marked `start`). Steps of an append
   * that lost its compare-and-set ride on the next one. Absent on ledgers that cannot trace.
   */
  traced?(source: TraceSource): Ledger;
}

/** Options of {@link createLogLedger}. */
export interface LogLedgerOptions {
  /** ISO clock (injected for deterministic tests). */
  readonly now: () => string;
  /** Bound on compare-and-set retries under contention (default 10 000). */
  readonly maxAttempts?: number;
}

function toStatus(s: LedgerState): LedgerStatus {
  const u = slotUsage(s);
  return {
    problem_id: s.problem_id,
    profile: s.profile,
    seq: s.seq,
    grants: s.grants,
    used: u.used,
    remaining: u.remaining,
    directives: s.directives.length,
    lead_handoffs: s.lead_handoffs,
  };
}

function missing(problemId: string): HandoffError {
  return new HandoffError('history_missing', `no ledger history for ${problemId}: failing closed`, {
    details: { problem_id: problemId },
  });
}

/**
 * Builds a {@link Ledger} over a {@link LedgerLog}.
 *
 * @example
 * ```ts
 * const ledger = createLogLedger(memoryLedgerLog(), { now: () => new Date().toISOString() });
 * await ledger.register({ problem_id: 'p1', profile, contract_revision: 1 });
 * const r = await ledger.reserve({ problem_id: 'p1', idempotency_key: 'k', candidate, kind: 'continuation',
 *   directive_id: null, requested_by: 'job-1', ...reservationBasis(route, candidate, 1) }, { live: candidate });
 * ```
 * @throws HandoffError `history_missing`, `no_such_grant`, `grant_state`, `ledger_contention`.
 */
export function createLogLedger(log: LedgerLog, options: LogLedgerOptions): Ledger {
  const { now } = options;
  const maxAttempts = options.maxAttempts ?? 10_000;

  async function load(problemId: string): Promise<{ events: LedgerEvent[]; state: LedgerState } | null> {
    const events = await log.read(problemId);
    if (events === null || events.length === 0) return null;
    const state = foldLedger(events);
    if (state === null) {
      throw new HandoffError('ledger_damaged', `ledger of ${problemId} does not start with a registration`, {
        details: { problem_id: problemId },
      });
    }
    return { events, state };
  }

  /** Read–decide–append loop: `decide` returns the event to append, or a final value. */
  async function cas<T>(
    problemId: string,
    decide: (
      state: LedgerState | null,
    ) => { append: LedgerEvent; result: (s: LedgerState) => T } | { done: T },
  ): Promise<T> {
    for (let i = 0; i < maxAttempts; i++) {
      const cur = await load(problemId);
      const step = decide(cur?.state ?? null);
      if ('done' in step) return step.done;
      if (await log.append(problemId, step.append)) {
        const state = foldLedger([...(cur?.events ?? []), step.append]) as LedgerState;
        return step.result(state);
      }
    }
    throw new HandoffError('ledger_contention', `could not append to the ledger of ${problemId}`, {
      details: { problem_id: problemId },
    });
  }

  function grantOf(state: LedgerState | null, problemId: string, grantId: string): Grant {
    if (state === null) throw missing(problemId);
    const g = state.grants.find((x) => x.grant_id === grantId);
    if (g === undefined) {
      throw new HandoffError('no_such_grant', `no grant ${grantId} for ${problemId}`, {
        details: { problem_id: problemId, grant_id: grantId },
      });
    }
    return g;
  }

  function badState(g: Grant, wanted: string): HandoffError {
    return new HandoffError(
      'grant_state',
      `grant ${g.grant_id} is ${g.state}${g.started ? ' (started)' : ''}; cannot ${wanted}`,
      {
        details: { grant_id: g.grant_id, state: g.state, started: g.started },
      },
    );
  }

  function mark(
    problemId: string,
    grantId: string,
    type: 'started' | 'consumed' | 'released' | 'uncertain',
    detail: string,
    rule: (g: Grant) => 'append' | 'done',
  ): Promise<Grant> {
    return cas(problemId, (state) => {
      const g = grantOf(state, problemId, grantId);
      if (rule(g) === 'done') return { done: g };
      return {
        append: { type, seq: (state as LedgerState).seq + 1, at: now(), grant_id: grantId, detail },
        result: (s) => grantOf(s, problemId, grantId),
      };
    });
  }

  return {
    register: (input) =>
      cas(input.problem_id, (state) => {
        if (state !== null) return { done: toStatus(state) };
        return {
          append: {
            type: 'registered',
            seq: 1,
            at: now(),
            problem_id: input.problem_id,
            profile: input.profile,
            contract_revision: input.contract_revision,
          },
          result: toStatus,
        };
      }),
    addDirective: (directive) =>
      cas(directive.problem_id, (state) => {
        if (state === null) throw missing(directive.problem_id);
        if (state.directives.some((d) => d.directive_id === directive.directive_id))
          return { done: toStatus(state) };
        return { append: { type: 'directive', seq: state.seq + 1, at: now(), directive }, result: toStatus };
      }),
    reserve: (request, check) =>
      cas<ReserveOutcome>(request.problem_id, (state) => {
        const d = decideReservation(state, request, check.live);
        if (d.kind === 'replay') return { done: { outcome: 'replayed', grant: d.grant } };
        if (d.kind === 'refuse') return { done: { outcome: 'refused', reason: d.reason, detail: d.detail } };
        const seq = (state as LedgerState).seq + 1;
        const at = now();
        const grant: Grant = {
          schema: GATE_GRANT_SCHEMA,
          grant_id: contentId('grt', { problem_id: request.problem_id, seq, key: request.idempotency_key }),
          problem_id: request.problem_id,
          candidate: request.candidate,
          slot: d.slot,
          ordinal: d.ordinal,
          idempotency_key: request.idempotency_key,
          directive_id: request.directive_id,
          requested_by: request.requested_by,
          state: 'reserved',
          started: false,
          reserved_at: at,
          started_at: null,
          consumed_at: null,
          released_at: null,
          uncertain_at: null,
        };
        return {
          append: { type: 'reserved', seq, at, grant },
          result: () => ({ outcome: 'granted', grant }),
        };
      }),
    start: (p, id) =>
      mark(p, id, 'started', '', (g) => {
        if (g.state !== 'reserved') throw badState(g, 'start');
        return g.started ? 'done' : 'append';
      }),
    consume: (p, id) =>
      mark(p, id, 'consumed', '', (g) => {
        if (g.state === 'consumed') return 'done';
        if (g.state !== 'reserved') throw badState(g, 'consume');
        return 'append';
      }),
    release: (p, id, reason) =>
      mark(p, id, 'released', reason, (g) => {
        if (g.state === 'released') return 'done';
        if (g.state !== 'reserved' || g.started) throw badState(g, 'release');
        return 'append';
      }),
    async reconcile(p, id) {
      const cur = await load(p);
      const g = grantOf(cur?.state ?? null, p, id);
      if (g.state === 'consumed') return { action: 'done', grant: g };
      if (g.state === 'released') return { action: 'released', grant: g };
      if (g.state === 'uncertain') return { action: 'lead-review', grant: g };
      if (!g.started) return { action: 'resume', grant: g };
      const after = await mark(p, id, 'uncertain', 'crash between start and consume; not replayed', (x) =>
        x.state === 'reserved' ? 'append' : 'done',
      );
      return { action: after.state === 'consumed' ? 'done' : 'lead-review', grant: after };
    },
    recordLeadHandoff: (p, info) =>
      cas(p, (state) => {
        if (state === null) throw missing(p);
        return {
          append: {
            type: 'lead-handoff',
            seq: state.seq + 1,
            at: now(),
            packet_id: info.packet_id,
            route: info.route,
          },
          result: toStatus,
        };
      }),
    async status(p) {
      const cur = await load(p);
      return cur === null ? null : toStatus(cur.state);
    },
    traced(source) {
      let pending: TraceStep[] = [];
      let start = true;
      return createLogLedger(
        {
          read: (p) => log.read(p),
          append: async (p, e) => {
            pending = pending.concat(source.take());
            const ok = await log.append(p, e, { trace: { start, steps: pending } });
            if (ok) {
              pending = [];
              start = false;
            }
            return ok;
          },
        },
        options,
      );
    },
  };
}

/**
 * An in-memory {@link LedgerLog} (single process; for tests and embedding).
 *
 * @example
 * ```ts
 * const ledger = createLogLedger(memoryLedgerLog(), { now });
 * ```
 */
export function memoryLedgerLog(): LedgerLog {
  const logs = new Map<string, LedgerEvent[]>();
  return {
    read: async (p) => {
      const l = logs.get(p);
      return l === undefined ? null : [...l];
    },
    append: async (p, e) => {
      const l = logs.get(p) ?? [];
      if (l.length + 1 !== e.seq) return false;
      l.push(structuredClone(e));
      logs.set(p, l);
      return true;
    },
  };
}
