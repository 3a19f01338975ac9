/**
 * Model-based tests of machines/transfer, generated from the machine's own graph (xstate/graph):
 * shortest paths to every reachable state under an exhaustive events list (requests over allowed
 * and forbidden routes, from the active agent and from others, live and past the lease, replays
 * and conflicting reuses of a request id, return, escalation, revocation, expiry, journal writes
 * that succeed or fail), each replayed on a live actor; an invariant table keyed by state; full
 * state and transition coverage; and a fast-check random walk over the pure transition. The
 * seed's controls as invariants: never two active agents, no transfer outside the allowlist, a
 * redacted key (and its value) never in a filtered context or a journal line, a revoked or expired
 * lease never acts, and replaying a request id gives the same decision.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyStateMachine,
  createActor,
  fromPromise,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { type AppendJournalInput, transferMachine } from '../../machines/transfer.js';
import type { RoutePolicy } from '../../src/transfer/policy-schema.js';
import type { TransferRequest } from '../../src/transfer/request-schema.js';
import { leaseLive } from '../../src/transfer/rules/lease.js';
import { findRoute } from '../../src/transfer/rules/route-lookup.js';
import { boundedShortestPaths } from './bounded-paths.js';

type Snap = SnapshotFrom<typeof transferMachine>;
type Ev = { type: string; [k: string]: unknown };

const SECRET = 'S3CRET-4111';
const POLICY: RoutePolicy = {
  schema: 'handoff-routes/v1',
  entry: 'a',
  lease_seconds: 100,
  max_transfers: 3,
  routes: [
    { from: 'a', to: 'b', context: { include: ['x', 'y', 'card'], redact: ['card'] } },
    { from: 'b', to: 'c', context: { include: ['x'], redact: [] }, max_per_session: 1 },
    { from: 'b', to: 'a', context: { include: ['x', 'card'], redact: ['card'] } },
  ],
};
const INPUT = { policy: POLICY, session: 's1' };
const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const LATE = T0 + 1_000_000;

const req = (
  request_id: string,
  from: string,
  to: string | undefined,
  extra: Partial<TransferRequest> = {},
): TransferRequest => ({
  schema: 'handoff-transfer/v1',
  session: 's1',
  request_id,
  kind: 'transfer',
  from,
  ...(to === undefined ? {} : { to }),
  reason: 'because',
  context: { x: 1, y: 2, card: SECRET, z: 3 },
  blocker: null,
  evidence_delta: [],
  ...extra,
});

const REQUESTS: TransferRequest[] = [
  req('r1', 'a', 'b', { blocker: 'blk' }),
  req('r1', 'a', 'b', { reason: 'another request, same id' }),
  req('r2', 'b', 'c'),
  req('r3', 'a', 'c'), // not allowlisted
  req('r4', 'b', 'a'),
  req('r5', 'a', 'b', { blocker: 'blk' }), // same agent, same blocker, nothing new
  req('r6', 'a', 'b', { blocker: 'blk', evidence_delta: ['the refund policy page'] }),
  req('ret', 'c', undefined, { kind: 'return' }),
  req('esc', 'b', undefined, { kind: 'escalate' }),
];

const done = (id: string): Ev => ({ type: `xstate.done.actor.${id}`, output: undefined, actorId: id });
const fail = (id: string): Ev => ({ type: `xstate.error.actor.${id}`, error: new Error('EIO'), actorId: id });

/** Every event each state can meet. */
function eventsFor(s: Snap): Ev[] {
  switch (s.value) {
    case 'idle':
    case 'active':
      return [
        ...REQUESTS.map((request) => ({ type: 'REQUEST', request, now: T0 })),
        { type: 'REQUEST', request: REQUESTS[2], now: LATE },
        { type: 'REQUEST', request: REQUESTS[0], now: LATE },
        { type: 'REVOKE', by: 'operator', reason: 'customer left', now: T0 },
        { type: 'TICK', now: T0 },
        { type: 'TICK', now: LATE },
      ];
    case 'transferring':
    case 'refusing':
    case 'closing':
      return [done('journal'), fail('journal')];
    default:
      return [];
  }
}

/**
 * The abstraction the walk explores: what decides the future (status, active agent, lease, counts,
 * grants, what is pending). Refused and replayed decisions are left out — they change nothing but
 * the replay table, whose every order would multiply the graph; the random walk covers replays.
 */
const serialize = (s: Snap) => {
  const st = s.context.state;
  return JSON.stringify({
    v: s.value,
    st: [st.status, st.active, st.lease, st.transfers, st.route_counts, st.grants],
    p: s.context.pending.map((l) =>
      l.entry.kind === 'decision' ? [l.entry.decision.code, l.entry.decision.request_id] : l.entry.kind,
    ),
  });
};

const FINAL = ['returned', 'escalated', 'revoked', 'expired'];

/** Holds in every state. */
function everywhere(s: Snap): void {
  const c = s.context;
  const st = c.state;
  // one active agent: a name while the session is active, nobody otherwise, and it holds the lease
  expect(st.active !== null).toBe(st.status === 'active');
  if (st.active !== null) expect(st.lease?.holder).toBe(st.active);
  // the active agent is the receiver of the last grant (or the entry agent)
  if (st.status === 'active') expect(st.active).toBe(st.grants.at(-1)?.to ?? POLICY.entry);
  // no transfer outside the allowlist; a filtered context has only include keys, never a redact key
  for (const g of st.grants) {
    const route = findRoute(POLICY, g.from, g.to);
    expect(route, `${g.from} → ${g.to} allowlisted`).not.toBeNull();
    const d = st.decisions[g.request_id]?.decision;
    for (const k of Object.keys(d?.context ?? {})) {
      expect(route?.context.include).toContain(k);
      expect(route?.context.redact).not.toContain(k);
    }
  }
  expect(st.transfers).toBeLessThanOrEqual(POLICY.max_transfers ?? Infinity);
  // pending lines continue the committed journal without a gap
  expect(c.pending.map((l) => l.seq)).toEqual(c.pending.map((_, i) => c.committed.seq + 1 + i));
  // the redacted value is never in a decision, a pending journal line or the session state
  expect(JSON.stringify([c.pending, c.decision, c.state, c.committed])).not.toContain(SECRET);
}

const lastPending = (s: Snap) => s.context.pending.at(-1)?.entry;

/** Invariants per state; a state missing here fails the coverage test. */
const INVARIANTS: Record<string, (s: Snap) => void> = {
  idle: (s) => {
    expect(s.context.committed.status).toBe('new');
    expect(s.context.state.decisions).toEqual({});
  },
  requested: () => {
    throw new Error('requested is transient: never a resting snapshot');
  },
  authorized: () => {
    throw new Error('authorized is transient: never a resting snapshot');
  },
  transferring: (s) => {
    const e = lastPending(s);
    expect(e?.kind).toBe('decision');
    if (e?.kind !== 'decision') return;
    expect(e.decision.outcome).toBe('granted');
    expect(findRoute(POLICY, e.from, e.to ?? '')).not.toBeNull();
    // the granting agent is the active one and its lease is live at the request's clock
    expect(s.context.state.active).toBe(e.from);
    expect(leaseLive(s.context.state.lease, s.context.now)).toBe(true);
    expect(e.decision.active).toBe(e.to);
    expect(e.decision.cite).toBe(`s1#${s.context.pending.at(-1)?.seq}`);
    const route = findRoute(POLICY, e.from, e.to ?? '');
    expect(e.decision.redacted).toEqual(route?.context.redact.filter((k) => k === 'card') ?? []);
    expect(Object.keys(e.decision.context)).not.toContain('card');
  },
  refusing: (s) => {
    const e = lastPending(s);
    expect(e?.kind === 'decision' && e.decision.outcome).toBe('refused');
    // the decision cites the very line that will hold it
    expect(s.context.decision?.cite).toBe(`s1#${s.context.pending.at(-1)?.seq}`);
  },
  active: (s) => {
    expect(s.context.pending).toEqual([]);
    expect(s.context.state).toEqual(s.context.committed);
    expect(s.context.state.status).toBe('active');
  },
  closing: (s) => {
    const e = lastPending(s);
    expect(
      e?.kind === 'end' || (e?.kind === 'decision' && ['returned', 'escalated'].includes(e.decision.code)),
    ).toBe(true);
  },
  returned: (s) => expect(s.context.state.status).toBe('returned'),
  escalated: (s) => expect(s.context.state.status).toBe('escalated'),
  revoked: (s) => expect(s.context.state.status).toBe('revoked'),
  expired: (s) => expect(s.context.state.status).toBe('expired'),
};

/** Path-wide properties: replay is idempotent; nothing acts after the end; grants need a live lease. */
function checkPath(states: Snap[], events: Ev[]): void {
  for (let i = 1; i < states.length; i++) {
    const before = states[i - 1] as Snap;
    const after = states[i] as Snap;
    const e = events[i] as Ev;
    if (e.type === 'REQUEST') {
      const r = e.request as TransferRequest;
      const known = before.context.state.decisions[r.request_id];
      if (
        known !== undefined &&
        JSON.stringify(r) === JSON.stringify(REQUESTS.find((x) => x.request_id === r.request_id))
      ) {
        // the stored decision of this request id came from this very request (REQUESTS' first of the id)
        if (after.context.decision?.code !== 'request_conflict')
          expect(after.context.decision).toEqual(known.decision);
      }
      if (known !== undefined) expect(after.context.pending).toEqual([]);
    }
    if (FINAL.includes(String(before.value))) expect(after).toBe(before);
  }
}

const BOUND = { maxStates: 5_000, maxDepth: 40 } as const;
const paths = boundedShortestPaths(
  transferMachine,
  { input: INPUT, events: (s) => eventsFor(s as Snap), serializeState: (s) => serialize(s as Snap) },
  BOUND,
);

const silent = () =>
  transferMachine.provide({
    actors: { appendJournal: fromPromise<void, AppendJournalInput>(() => new Promise<void>(() => {})) },
  });

describe('transfer machine (graph-generated)', () => {
  it('has a finite, non-trivial state graph', () => {
    expect(paths.length).toBeGreaterThan(30);
  });

  it('replays every shortest path on a live actor and holds the invariants', () => {
    for (const path of paths) {
      const actor = createActor(silent(), { input: INPUT });
      actor.start();
      const states: Snap[] = [actor.getSnapshot()];
      const events: Ev[] = [{ type: 'xstate.init' }];
      for (const step of path.steps) {
        if ((step.event as Ev).type === 'xstate.init') continue;
        actor.send(step.event as never);
        const snap = actor.getSnapshot();
        // the walk explores an abstraction (see serialize): a live step lands in the same abstract state
        expect(serialize(snap)).toBe(serialize(step.state as Snap));
        states.push(snap);
        events.push(step.event as Ev);
      }
      for (const s of states) {
        const inv = INVARIANTS[String(s.value)];
        expect(inv, `no invariant for ${String(s.value)}`).toBeDefined();
        inv?.(s);
        everywhere(s);
      }
      actor.stop();
    }
  });

  it('covers every state and every event transition', () => {
    const machine = transferMachine as unknown as AnyStateMachine;
    const allStates = Object.keys(machine.root.states);
    expect(Object.keys(INVARIANTS).sort()).toEqual([...allStates].sort());
    const reached = new Set(paths.map((p) => String(p.state.value)));
    // requested and authorized are transient: a refusal passes requested, a grant passes both
    for (const s of allStates.filter((x) => x !== 'requested' && x !== 'authorized')) {
      expect(reached.has(s), `state ${s} reached`).toBe(true);
    }
    const all = new Set<unknown>();
    for (const node of Object.values(machine.root.states) as { transitions: Map<string, unknown[]> }[]) {
      for (const list of node.transitions.values()) for (const t of list) all.add(t);
    }
    const taken = new Set<unknown>();
    for (const p of paths) {
      const s = p.state as Snap;
      for (const e of eventsFor(s))
        for (const t of machine.getTransitionData(s as never, e as never) ?? []) taken.add(t);
    }
    const missing = [...all].filter((t) => !taken.has(t)) as { source: { key: string }; eventType: string }[];
    expect(missing.map((t) => `${t.source.key}:${t.eventType}`)).toEqual([]);
    // every refusal code the policy can produce here, and both grant kinds, appear on some path
    const codes = new Set(
      paths.flatMap((p) =>
        (p.state as Snap).context.pending.flatMap((l) =>
          l.entry.kind === 'decision' ? [l.entry.decision.code] : [],
        ),
      ),
    );
    for (const code of [
      'granted',
      'returned',
      'escalated',
      'not_active',
      'not_allowlisted',
      'lease_expired',
      'limit_reached',
      'rerun_forbidden',
    ]) {
      expect(codes.has(code as never), code).toBe(true);
    }
  });

  it('16 requests from the active agent in one session: exactly one is granted', () => {
    let s = initialTransition(transferMachine, INPUT)[0] as Snap;
    const grants: string[] = [];
    for (let i = 0; i < 16; i++) {
      s = transition(transferMachine, s, {
        type: 'REQUEST',
        request: req(`q${i}`, 'a', 'b'),
        now: T0,
      })[0] as Snap;
      if (s.context.decision?.outcome === 'granted') grants.push(`q${i}`);
      else expect(s.context.decision?.code).toBe('not_active');
      s = transition(transferMachine, s, done('journal') as never)[0] as Snap;
    }
    expect(grants).toEqual(['q0']);
    expect(s.context.state.active).toBe('b');
  });

  it('random walks over the pure transition keep the invariants and path properties (fast-check)', () => {
    const initial = initialTransition(transferMachine, INPUT)[0] as Snap;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 60 }), (choices) => {
        let s = initial;
        const states: Snap[] = [s];
        const events: Ev[] = [{ type: 'xstate.init' }];
        for (const c of choices) {
          const options = eventsFor(s);
          if (options.length === 0) break;
          const e = options[c % options.length] as Ev;
          s = transition(transferMachine, s, e as never)[0] as Snap;
          states.push(s);
          events.push(e);
          INVARIANTS[String(s.value)]?.(s);
          everywhere(s);
        }
        checkPath(states, events);
      }),
      { numRuns: 200 },
    );
  });
});
