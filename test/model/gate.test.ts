/**
 * Model-based tests of machines/gate, generated from the machine's own graph (xstate/graph — the
 * maintained home of @xstate/graph): shortest paths to every reachable state with an explicit
 * events list, each replayed on a live actor (skipping xstate.init); an invariant table keyed by
 * state; full state and transition coverage; and a fast-check random walk over the pure transition.
 * On every path: at most one ordinary repair and one gate continuation before the first lead
 * handoff, no grant on any evaluator-failure path, STOP whenever a hard stop is present, and every
 * path ends at the lead.
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
import { gateMachine } from '../../machines/gate.js';
import { boundedShortestPaths } from './bounded-paths.js';

type Snap = SnapshotFrom<typeof gateMachine>;
type Ev = { type: string; [k: string]: unknown };

const INPUT = { problem_id: 'p1', profile: { ordinary_repairs: 1, gate_continuations: 1 } };
const done = (id: string, output: unknown): Ev => ({ type: `xstate.done.actor.${id}`, output, actorId: id });
const error = (id: string): Ev => ({
  type: `xstate.error.actor.${id}`,
  error: new Error('boom'),
  actorId: id,
});

const assess = (id: string) => [
  done(id, { assessment_id: 'asm_1', status: 'EVALUATED' }),
  done(id, { assessment_id: 'asm_2', status: 'NOT_EVALUATED' }),
  done(id, { assessment_id: 'asm_3', status: 'INVALID' }),
  error(id),
];

/** Every event each state can meet — including misbehaving actors (a ledger granting too much). */
function eventsFor(s: Snap): Ev[] {
  const stop: Ev = { type: 'HARD_STOP', reason: 'halt' };
  switch (s.value) {
    case 'provisional':
      return [{ type: 'WORKER.PROVISIONAL' }, { type: 'WORKER.BLOCKED' }, stop];
    case 'collecting':
      return [done('collect', { packet_id: 'pkt_1' }), error('collect'), stop];
    case 'checking':
      return [
        done('check', { ok: true, stop: false, codes: [] }),
        done('check', { ok: false, stop: false, codes: ['scope_violation'] }),
        done('check', { ok: false, stop: true, codes: ['hard_stop'] }),
        error('check'),
        stop,
      ];
    case 'evaluating':
      return [...assess('evaluate'), stop];
    case 'assessingBlocked':
      return [...assess('assessBlocked'), stop];
    case 'routing':
      return [
        ...(['REVIEW_READY', 'LEAD_REVIEW', 'CONTINUATION_ELIGIBLE', 'STOP'] as const).map((route) =>
          done('route', { route_id: 'rte_1', route }),
        ),
        error('route'),
        stop,
      ];
    case 'reserving':
      return [
        done('reserve', { outcome: 'granted', grant_id: 'g1', slot: 'ordinary-repair', reason: null }),
        done('reserve', { outcome: 'granted', grant_id: 'g2', slot: 'gate-continuation', reason: null }),
        done('reserve', { outcome: 'granted', grant_id: 'g3', slot: 'lead-directed', reason: null }),
        done('reserve', { outcome: 'replayed', grant_id: 'g1', slot: 'ordinary-repair', reason: null }),
        done('reserve', { outcome: 'refused', grant_id: null, slot: null, reason: 'exhausted' }),
        error('reserve'),
        stop,
      ];
    case 'continuing':
      return [
        done('continueWork', { worker_status: 'provisional' }),
        done('continueWork', { worker_status: 'blocked' }),
        error('continueWork'),
        stop,
      ];
    case 'validating':
      return [done('validate', { consumed: true }), error('validate'), stop];
    default:
      return [];
  }
}

const serialize = (s: Snap) => JSON.stringify({ v: s.value, c: s.context });

/** Holds in every state: the machine's own counts never exceed the profile, grants match them. */
function everywhere(s: Snap): void {
  const c = s.context;
  expect(c.ordinary_repairs_used).toBeLessThanOrEqual(c.profile.ordinary_repairs);
  expect(c.gate_continuations_used).toBeLessThanOrEqual(c.profile.gate_continuations);
  const slots = c.grants.map((g) => g.slot);
  expect(slots.every((x) => x === 'ordinary-repair' || x === 'gate-continuation')).toBe(true);
  // ordinary repair first: a gate continuation is only ever granted after it
  const gate = slots.indexOf('gate-continuation');
  if (gate >= 0) expect(c.ordinary_repairs_used).toBe(c.profile.ordinary_repairs);
  expect(c.lead_handoffs).toBe(s.status === 'done' ? 1 : 0);
}

/** Invariants per state; a state missing here fails the coverage test. */
const INVARIANTS: Record<string, (s: Snap) => void> = {
  provisional: (s) => expect(s.context.grants).toEqual([]),
  blocked: (s) => expect(s.context.mode).toBe('blocked'),
  collecting: (s) => expect(s.context.packet_id).toBeNull(),
  checking: (s) => expect(s.context.packet_id).not.toBeNull(),
  evaluating: (s) => expect(s.context.exact?.ok).toBe(true),
  assessingBlocked: (s) => {
    expect(s.context.mode).toBe('blocked');
    expect(s.context.exact?.ok).toBe(true);
  },
  routing: (s) => expect(s.context.exact).not.toBeNull(),
  reserving: (s) => {
    expect(s.context.route).toBe('CONTINUATION_ELIGIBLE');
    expect(s.context.assessment?.status).toBe('EVALUATED');
    expect(s.context.hard_stop).toBeNull();
    expect(s.context.gate_continuations_used).toBe(0);
  },
  continuing: (s) => {
    expect(s.context.grant).not.toBeNull();
    expect(s.context.grants.at(-1)).toEqual(s.context.grant);
  },
  validating: (s) => {
    expect(s.context.grant).not.toBeNull();
    // validation starts a fresh round: nothing of the previous round's decision is carried over
    expect(s.context.route).toBeNull();
    expect(s.context.assessment).toBeNull();
  },
  leadReview: (s) => {
    expect(s.status).toBe('done');
    expect(s.context.outcome).toBe('lead-review');
    expect(s.context.lead_handoffs).toBe(1);
    expect(s.context.hard_stop).toBeNull();
    // the machine's output: what the shell (gate-runner) reads at the final state
    expect(s.output).toEqual({ outcome: 'lead-review', notes: s.context.notes });
  },
  stopped: (s) => {
    expect(s.status).toBe('done');
    expect(s.context.outcome).toBe('stopped');
    expect(s.context.lead_handoffs).toBe(1);
    expect(s.output).toEqual({ outcome: 'stopped', notes: s.context.notes });
  },
};

/** Path-wide properties checked on every step sequence. */
function checkPath(states: Snap[], events: Ev[]): void {
  let evaluatorFailedThisRound = false;
  for (let i = 0; i < states.length; i++) {
    const s = states[i] as Snap;
    const e = events[i];
    if (s.context.lead_handoffs === 0) {
      expect(s.context.ordinary_repairs_used).toBeLessThanOrEqual(1);
      expect(s.context.gate_continuations_used).toBeLessThanOrEqual(1);
    }
    if (
      e?.type.startsWith('xstate.error.actor.evaluate') ||
      e?.type.startsWith('xstate.error.actor.assessBlocked')
    ) {
      evaluatorFailedThisRound = true;
    }
    const out = (e as { output?: { status?: string } } | undefined)?.output;
    if (
      e?.type.startsWith('xstate.done.actor.evaluate') ||
      e?.type.startsWith('xstate.done.actor.assessBlocked')
    ) {
      evaluatorFailedThisRound = out?.status !== 'EVALUATED';
    }
    if (e?.type === 'xstate.done.actor.collect') evaluatorFailedThisRound = false;
    // no grant (not even a reservation attempt) on an evaluator-failure path
    if (evaluatorFailedThisRound) expect(['reserving', 'continuing', 'validating']).not.toContain(s.value);
    if (s.context.hard_stop !== null) expect(s.value).toBe('stopped');
  }
  const last = states[states.length - 1] as Snap;
  if (last.status === 'done') expect(['leadReview', 'stopped']).toContain(last.value);
}

/** Far above what the bounded input reaches (223 states, 15 deep); a broken machine fails with a named path. */
const GATE_BOUND = { maxStates: 1_500, maxDepth: 45 } as const;

const paths = boundedShortestPaths(
  gateMachine,
  { input: INPUT, events: (s) => eventsFor(s as Snap), serializeState: (s) => serialize(s as Snap) },
  GATE_BOUND,
);

function silentActors() {
  const never = fromPromise(() => new Promise<never>(() => {}));
  return gateMachine.provide({
    actors: {
      collect: never,
      check: never,
      evaluate: never,
      assessBlocked: never,
      route: never,
      reserve: never,
      continueWork: never,
      validate: never,
    } as never,
  });
}

describe('gate machine (graph-generated)', () => {
  it('has a finite, non-trivial state graph', () => {
    expect(paths.length).toBeGreaterThan(30);
  });

  it('replays every shortest path on a live actor and holds the invariants', () => {
    for (const path of paths) {
      const actor = createActor(silentActors(), { input: INPUT });
      actor.start();
      const states: Snap[] = [actor.getSnapshot()];
      const events: Ev[] = [{ type: 'xstate.init' }];
      for (const step of path.steps) {
        if ((step.event as Ev).type === 'xstate.init') continue;
        actor.send(step.event as never);
        const snap = actor.getSnapshot();
        expect(snap.value).toEqual(step.state.value);
        expect(snap.context).toEqual(step.state.context);
        states.push(snap);
        events.push(step.event as Ev);
      }
      for (const s of states) {
        const inv = INVARIANTS[String(s.value)];
        expect(inv, `no invariant for ${String(s.value)}`).toBeDefined();
        inv?.(s);
        everywhere(s);
      }
      checkPath(states, events);
      actor.stop();
    }
  });

  it('covers every state and every transition', () => {
    const machine = gateMachine as unknown as AnyStateMachine;
    const allStates = Object.keys(machine.root.states);
    const reached = new Set(paths.map((p) => String(p.state.value)));
    // `blocked` is transient (eventless): it is passed through on the way to collecting, which a
    // WORKER.BLOCKED step shows by landing in `collecting` in blocked mode (its entry action ran)
    const passed = new Set(paths.flatMap((p) => p.steps.map((s) => String(s.state.value))));
    const throughBlocked = paths.some((p) =>
      p.steps.some(
        (st) =>
          (st.event as Ev).type === 'WORKER.BLOCKED' &&
          st.state.value === 'collecting' &&
          (st.state as Snap).context.mode === 'blocked',
      ),
    );
    if (throughBlocked) passed.add('blocked');
    for (const s of allStates) {
      expect(INVARIANTS[s], `invariant for ${s}`).toBeDefined();
      expect(reached.has(s) || passed.has(s), `state ${s} reached`).toBe(true);
    }
    expect(Object.keys(INVARIANTS).sort()).toEqual([...allStates].sort());

    // every transition definition is taken from some reachable snapshot
    const all = new Set<unknown>();
    for (const node of Object.values(machine.root.states) as { transitions: Map<string, unknown[]> }[]) {
      for (const list of node.transitions.values()) for (const t of list) all.add(t);
    }
    for (const list of machine.root.transitions.values()) for (const t of list) all.add(t);
    const taken = new Set<unknown>();
    for (const p of paths) {
      const s = p.state as Snap;
      for (const e of eventsFor(s)) {
        for (const t of machine.getTransitionData(s as never, e as never) ?? []) taken.add(t);
      }
    }
    const missing = [...all].filter((t) => !taken.has(t)) as { source: { key: string }; eventType: string }[];
    expect(missing.map((t) => `${t.source.key}:${t.eventType}`)).toEqual([]);
  });

  it('pins the ordinary-repair-then-continuation lifecycle and the unconditional lead handoff', () => {
    let s = initialTransition(gateMachine, INPUT)[0] as Snap;
    const seq: Ev[] = [
      { type: 'WORKER.PROVISIONAL' },
      done('collect', { packet_id: 'pkt_1' }),
      done('check', { ok: true, stop: false, codes: [] }),
      done('evaluate', { assessment_id: 'a1', status: 'EVALUATED' }),
      done('route', { route_id: 'r1', route: 'CONTINUATION_ELIGIBLE' }),
      done('reserve', { outcome: 'granted', grant_id: 'g1', slot: 'ordinary-repair', reason: null }),
      done('continueWork', { worker_status: 'provisional' }),
      done('validate', { consumed: true }),
      done('collect', { packet_id: 'pkt_2' }),
      done('check', { ok: true, stop: false, codes: [] }),
      done('evaluate', { assessment_id: 'a2', status: 'EVALUATED' }),
      done('route', { route_id: 'r2', route: 'CONTINUATION_ELIGIBLE' }),
      done('reserve', { outcome: 'granted', grant_id: 'g2', slot: 'gate-continuation', reason: null }),
      done('continueWork', { worker_status: 'provisional' }),
      done('validate', { consumed: true }),
    ];
    const values: string[] = [];
    for (const e of seq) {
      s = transition(gateMachine, s, e as never)[0] as Snap;
      values.push(String(s.value));
    }
    expect(values.slice(-3)).toEqual(['continuing', 'validating', 'leadReview']);
    expect(s.context.grants.map((g) => g.slot)).toEqual(['ordinary-repair', 'gate-continuation']);
    expect(s.context.lead_handoffs).toBe(1);
  });

  it('random walks over the pure transition keep the path properties (fast-check)', () => {
    const initial = initialTransition(gateMachine, INPUT)[0] as Snap;
    fc.assert(
      fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (choices) => {
        let s = initial;
        const states: Snap[] = [s];
        const events: Ev[] = [{ type: 'xstate.init' }];
        for (const c of choices) {
          const options = eventsFor(s);
          if (options.length === 0) break;
          const e = options[c % options.length] as Ev;
          s = transition(gateMachine, s, e as never)[0] as Snap;
          states.push(s);
          events.push(e);
          INVARIANTS[String(s.value)]?.(s);
          everywhere(s);
        }
        checkPath(states, events);
      }),
      { numRuns: 300 },
    );
  });

  it('a restart resumes from the ledger counts: no slot is granted twice (fast-check)', () => {
    for (const used of [
      { ordinary_repairs: 1, gate_continuations: 0 },
      { ordinary_repairs: 1, gate_continuations: 1 },
    ]) {
      const initial = initialTransition(gateMachine, { ...INPUT, used })[0] as Snap;
      fc.assert(
        fc.property(fc.array(fc.nat(), { minLength: 1, maxLength: 40 }), (choices) => {
          let s = initial;
          for (const c of choices) {
            const options = eventsFor(s);
            if (options.length === 0) break;
            s = transition(gateMachine, s, options[c % options.length] as never)[0] as Snap;
            everywhere(s);
            // only what the ledger had left can be granted in this run
            const slots = s.context.grants.map((g) => g.slot);
            expect(slots.filter((x) => x === 'ordinary-repair')).toEqual([]);
            if (used.gate_continuations === 1) expect(slots).toEqual([]);
          }
        }),
        { numRuns: 200 },
      );
    }
  });
});
