/**
 * Model-based tests of machines/cycle: shortest paths over a bounded context with an explicit
 * event list (the actors' done/error events), replayed on live actors (xstate.init skipped), an
 * invariant table keyed by state, whole-path properties (a forbidden relaunch is never
 * dispatched; a stuck target passes review then replan before the next tick; a custody violation
 * never reaches a checkpoint), a coverage assertion over every state node and transition, and a
 * fast-check random walk over the pure transition function with the same properties.
 *
 * The shortest paths of one input form a tree (each path is its parent's path plus one step), so
 * the replay walks that tree once: each state is reached on a live actor restored from its parent's
 * persisted snapshot, and from each state every event is sent once (tree edges continue the walk,
 * the others are the "one step further" that reaches every edge). Each test computes what it needs
 * through a per-input memo, so any test passes alone (`vitest -t`) and in any order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyEventObject,
  type AnyStateNode,
  type AnyTransitionDefinition,
  createActor,
  fromPromise,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { cycleMachine } from '../../machines/cycle.js';
import { type Handoff, rerunGuard, validateHandoff } from '../../src/contract/index.js';
import { relaunchVerdict } from '../../src/cycle/relaunch.js';
import type {
  CycleInput,
  DiagnosticsOutput,
  TargetInfo,
  WorkerInput,
  WorkOutcome,
} from '../../src/cycle/types.js';
import { BASELINE, cycleInput, FILE, T1, workerHandoff } from '../cycle/fixture.js';

type Snap = SnapshotFrom<typeof cycleMachine>;

const TRIVIAL: TargetInfo = { id: 'A.lean:5', file: 'A.lean', line: 5, goal: 'sorry -- hint: rfl' };

const done = (id: string, output: unknown): AnyEventObject => ({ type: `xstate.done.actor.${id}`, output });
const fail = (id: string): AnyEventObject => ({ type: `xstate.error.actor.${id}`, error: 'boom' });
const diag = (targets: TargetInfo[], ok = true): DiagnosticsOutput => ({
  now: 0,
  tier: 'file-fast',
  targets,
  errors: ok ? [] : ['A.lean:1:error'],
  ok,
});
const human = (answer: string, evidence: string[] = []) => ({ now: 0, answer, evidence });
const plan = {
  now: 0,
  steps: [{ target: T1.id, note: 'attempt' }],
  searches: [],
  evidence: {},
  summary: 'p',
};
const dispatchStub = null;
const outcome = (kind: WorkOutcome['kind']): WorkOutcome =>
  kind === 'handoff'
    ? ({
        kind,
        now: 0,
        dispatch: dispatchStub as never,
        handoff: workerHandoff('solved'),
        accepted: [FILE],
        baseline: BASELINE,
        progressLines: 0,
        importsChanged: false,
      } as WorkOutcome)
    : { kind, now: 0, detail: `${kind} detail`, dispatch: null };
const stuckOutcome: WorkOutcome = {
  kind: 'handoff',
  now: 0,
  dispatch: dispatchStub as never,
  handoff: workerHandoff('stuck'),
  accepted: [],
  baseline: BASELINE,
  progressLines: 0,
  importsChanged: false,
};
const review = (mode: 'normal' | 'stuck') => ({
  now: 0,
  mode,
  primaryBlocker: mode === 'stuck' ? 'arithmetic' : null,
  topBlockers: [],
  evidence: [],
  falsification: false,
  nextAction: mode === 'stuck' ? ('stop' as const) : ('continue' as const),
  suggestions: [],
});

function leaf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as object)[0] as [string, unknown];
  return `${k}.${leaf(v)}`;
}

/** The exhaustive event list: every outcome each active actor can report. */
function eventsFor(s: Snap): AnyEventObject[] {
  const stuckNow = s.context.stuck !== null;
  switch (leaf(s.value)) {
    case 'plan.discover':
      return [
        done('discover', diag([T1])),
        done('discover', diag([TRIVIAL])),
        done('discover', diag([])),
        fail('discover'),
      ];
    case 'plan.planning':
      return [done('planner', plan), fail('planner')];
    case 'plan.approve':
      return [done('approvePlan', human('approve')), done('approvePlan', human('stop')), fail('approvePlan')];
    case 'work.dispatching':
      return [
        done('worker', outcome('handoff')),
        done('worker', stuckOutcome),
        done('worker', outcome('custody-violation')),
        done('worker', outcome('fence-violation')),
        done('worker', outcome('protocol-error')),
        done('worker', outcome('operational-error')),
        done('worker', outcome('permission-denied')),
        fail('worker'),
      ];
    case 'work.verify':
      return [done('verify', diag([])), done('verify', diag([T1])), fail('verify')];
    case 'checkpoint.gate':
      return [
        done('gate', { ...diag([]), tier: 'project' }),
        done('gate', { ...diag([], false), tier: 'project' }),
        fail('gate'),
      ];
    case 'checkpoint.confirm':
      return ['commit', 'skip', 'stop']
        .map((a) => done('approveCommit', human(a)))
        .concat(fail('approveCommit'));
    case 'checkpoint.commit':
      return [
        done('checkpointer', { now: 0, committed: true, commit: 'abc', message: 'checkpoint: x' }),
        done('checkpointer', {
          now: 0,
          committed: false,
          commit: null,
          message: 'checkpoint refused',
          refused: 'late write',
        }),
        fail('checkpointer'),
      ];
    case 'review.reviewing':
      return [done('reviewer', review(stuckNow ? 'stuck' : 'normal')), fail('reviewer')];
    case 'replan.planning':
      return [done('replanner', plan), fail('replanner')];
    case 'replan.approve':
      return ['approve', 'decline', 'stop']
        .map((a) => done('approveReplan', human(a)))
        .concat(fail('approveReplan'));
    case 'boundary.finalCheck':
      return [done('finalCheck', diag([])), done('finalCheck', diag([T1])), fail('finalCheck')];
    case 'boundary.askContinue':
      return ['continue', 'stop'].map((a) => done('askContinue', human(a))).concat(fail('askContinue'));
    case 'boundary.askBlocker':
      return [
        done('askBlocker', human('continue-with-evidence', ['use: omega'])),
        done('askBlocker', human('formalize')),
        done('askBlocker', human('review-stuck')),
        done('askBlocker', human('stop')),
        fail('askBlocker'),
      ];
    case 'boundary.stuckReview':
      return [done('stuckReview', review('stuck')), fail('stuckReview')];
    default:
      return [];
  }
}

const inputFor = cycleInput;

const INPUTS: Record<string, CycleInput> = {
  provePrior: {
    ...inputFor({ mode: 'prove', reviewEvery: 'never' }),
    priorHandoff: { ...workerHandoff('stuck'), mode: 'prove' },
  },
  autoprove: inputFor({}, true),
  prove: inputFor({ mode: 'prove', reviewEvery: 'never' }),
  proveReview: inputFor({ mode: 'prove', planning: 'on', reviewEvery: '2' }),
  autoOff: inputFor({ planning: 'off', commit: 'never' }),
};

function serialize(s: Snap): string {
  const c = s.context;
  return JSON.stringify({
    v: s.value,
    st: s.status,
    cy: c.tracker.cycles,
    cs: c.tracker.consecutive_stuck,
    stuck: c.stuck?.condition ?? null,
    last: c.lastStuck !== null,
    blocked: Object.keys(c.blocked),
    ev: Object.keys(c.evidenceFor),
    refused: c.refused,
    cur: c.current?.id ?? null,
    att: Object.values(c.attempts).map((a) => a.map((x) => x.solved)),
    acc: c.accepted.length,
    com: c.committedThisCycle,
    del: c.delegation,
    stop: c.pendingStop,
    lim: c.limitViolations,
    planned: c.plannedCycle,
    rev: c.review?.mode ?? null,
    sh: c.stuckHandoff !== null,
    t: c.targets.map((t) => t.id),
  });
}

type Invariant = (s: Snap) => boolean;
const finalIs =
  (status: Handoff['status']): Invariant =>
  (s) =>
    s.status === 'done' && s.context.final?.status === status && validateHandoff(s.output).ok;
const neverStable: Invariant = () => false;

/** One invariant per state node (transient `always` states must never be observed as stable). */
const INVARIANTS: Record<string, Invariant> = {
  'plan.discover': (s) => s.context.final === null && s.context.current === null,
  'plan.choose': neverStable,
  'plan.planning': (s) => s.context.current !== null && s.context.options.planning !== 'off',
  'plan.approve': (s) => s.context.options.mode === 'prove' && s.context.options.planning === 'ask',
  'work.guard': neverStable,
  'work.refused': neverStable,
  'work.dispatching': (s) => s.context.current !== null && !s.context.refused.includes(s.context.current.id),
  'work.fallback': neverStable,
  'work.verifyRoute': neverStable,
  'work.verify': (s) =>
    s.context.lastWork?.kind === 'handoff' &&
    (s.context.lastWork.accepted.length > 0 || s.context.lastWork.handoff.status === 'solved') &&
    s.context.current !== null,
  'checkpoint.gate': (s) =>
    s.context.lastWork?.kind === 'handoff' ||
    // a refused statement change: stuck at once, nothing of that dispatch accepted
    (s.context.lastWork?.kind === 'fence-violation' && s.context.stuck?.condition === 'fence-violation'),
  'checkpoint.route': neverStable,
  'checkpoint.confirm': (s) => s.context.options.commit === 'ask' && s.context.accepted.length > 0,
  'checkpoint.commit': (s) => s.context.accepted.length > 0 && s.context.options.commit !== 'never',
  'checkpoint.skip': neverStable,
  'review.route': neverStable,
  'review.reviewing': (s) => s.context.stuck !== null || s.context.options.reviewEvery !== 'never',
  'replan.planning': (s) => s.context.review !== null,
  'replan.approve': (s) => s.context.options.mode === 'prove',
  'boundary.tick': neverStable,
  'boundary.finalCheck': (s) => s.context.limitViolations.length > 0,
  'boundary.askContinue': (s) => s.context.options.mode === 'prove' && s.context.limitViolations.length === 0,
  'boundary.askBlocker': (s) =>
    s.context.options.mode === 'prove' && (s.context.stuck !== null || s.context.stuckHandoff !== null),
  'boundary.stuckReview': (s) => s.context.options.mode === 'prove',
  solved: finalIs('solved'),
  stuck: (s) => finalIs('stuck')(s) && s.context.final?.blocker_signature !== null,
  stopped: (s) => finalIs('stopped')(s) && s.context.final?.stop_reason !== null,
};

function checkInvariants(s: Snap): void {
  const key = leaf(s.value);
  const inv = INVARIANTS[key];
  expect(inv, `no invariant for state ${key}`).toBeDefined();
  expect(inv?.(s), `invariant of ${key} broken: ${serialize(s)}`).toBe(true);
  expect(s.context.tracker.cycles).toBeLessThanOrEqual(s.context.options.maxCycles);
  if (s.status !== 'done') expect(s.context.final).toBeNull();
}

function allStateIds(node: AnyStateNode): string[] {
  return [node.id, ...Object.values(node.states).flatMap((c) => allStateIds(c as AnyStateNode))];
}

function transitionKey(t: AnyTransitionDefinition): string {
  const src = t.source;
  const list = t.eventType === '' ? (src.always ?? []) : (src.transitions.get(t.eventType) ?? []);
  return `${src.id}|${t.eventType}|${list.indexOf(t)}`;
}

function allTransitionKeys(node: AnyStateNode): string[] {
  const own: string[] = [];
  for (const [type, list] of node.transitions) {
    for (let i = 0; i < list.length; i++) own.push(`${node.id}|${type}|${i}`);
  }
  for (let i = 0; i < (node.always ?? []).length; i++) own.push(`${node.id}||${i}`);
  return [...own, ...Object.values(node.states).flatMap((c) => allTransitionKeys(c as AnyStateNode))];
}

/** Whole-path properties, checked step by step along every replayed path and random walk. */
interface PathFacts {
  /** The current cycle declared a target stuck (seen on a stable snapshot). */
  readonly stuckSeen: boolean;
  /** A stuck-mode review ran this cycle after the stuck verdict. */
  readonly reviewed: boolean;
  /** The replan ran after that review. */
  readonly replanned: boolean;
  /** The worker reported a custody violation, or the checkpointer refused a commit. */
  readonly custodyViolated: boolean;
}
const START: PathFacts = { stuckSeen: false, reviewed: false, replanned: false, custodyViolated: false };

const outputOf = (e: AnyEventObject): { kind?: string; refused?: string | null } | undefined =>
  typeof e.output === 'object' && e.output !== null ? e.output : undefined;

/** One step `prev --event--> next` of a path: checks the properties, returns the facts after it. */
function stepPath(facts: PathFacts, prev: Snap, event: AnyEventObject, next: Snap): PathFacts {
  const at = leaf(next.value);
  // a forbidden relaunch is never dispatched: whenever the worker runs, the rerun guard allows it
  if (at === 'work.dispatching') {
    const t = next.context.current;
    expect(t, 'dispatching without a target').not.toBeNull();
    if (t !== null) expect(relaunchVerdict(next.context, t)?.forbidden ?? false).toBe(false);
  }
  // a custody violation never reaches a checkpoint: the run stops on it (protocol error)
  const out = outputOf(event);
  const violated =
    facts.custodyViolated ||
    (event.type === 'xstate.done.actor.worker' && out?.kind === 'custody-violation') ||
    (event.type === 'xstate.done.actor.checkpointer' && (out?.refused ?? null) !== null);
  if (violated) {
    expect(at.startsWith('checkpoint.'), `custody violation reached ${at}`).toBe(false);
    expect(next.context.checkpoints).toEqual(prev.context.checkpoints);
    expect(next.status).toBe('done');
    expect(next.context.final?.stop_reason).toBe('protocol-error');
  }
  // a stuck target passes review, then replan, before the next tick
  const ticked = next.context.tracker.cycles > prev.context.tracker.cycles;
  if (ticked) {
    if (prev.context.stuck !== null) {
      expect(
        facts.reviewed && facts.replanned,
        `stuck ${prev.context.stuck.target} ticked without review+replan`,
      ).toBe(true);
    }
    return { ...START, custodyViolated: violated };
  }
  const stuckSeen = facts.stuckSeen || next.context.stuck !== null;
  const reviewed = facts.reviewed || (at === 'review.reviewing' && next.context.stuck !== null);
  const replanned = facts.replanned || (reviewed && at === 'replan.planning');
  return { stuckSeen, reviewed, replanned, custodyViolated: violated };
}

/** Every worker input the live actors were started with (checked against the guard, then cleared). */
const dispatched: WorkerInput[] = [];
const pending = () => fromPromise(() => new Promise<never>(() => {})) as never;
const recordingWorker = fromPromise<never, WorkerInput>(({ input }) => {
  dispatched.push(input);
  return new Promise<never>(() => {});
}) as never;
const liveMachine = cycleMachine.provide({
  actors: {
    planner: pending(),
    worker: recordingWorker,
    diagnostics: pending(),
    reviewer: pending(),
    checkpointer: pending(),
    human: pending(),
  },
});

/** The dispatches recorded since the last call never carry a relaunch the rerun guard forbids. */
function checkDispatches(s: Snap): void {
  for (const d of dispatched.splice(0)) {
    const prior = s.context.blocked[d.target.id];
    if (prior === undefined) continue;
    const v = rerunGuard(
      {
        target: d.target.id,
        scope: 'sorry',
        mode: d.mode,
        prior_blocker: d.priorBlocker,
        evidence_delta: [...d.evidenceDelta],
      },
      prior,
    );
    expect(v.forbidden, `dispatched a forbidden relaunch of ${d.target.id}: ${v.reason}`).toBe(false);
  }
}

interface Coverage {
  readonly states: Set<string>;
  readonly transitions: Set<string>;
  /** States reached on live actors, by serialization. */
  readonly reached: Set<string>;
  /** How often each path property had something to check (none of them may be vacuous). */
  readonly exercised: { relaunches: number; stuckTicks: number; custodyStops: number };
}

function tracker(cov: Coverage) {
  return (ev: { type: string }): void => {
    if (ev.type !== '@xstate.microstep') return;
    const snap = (ev as unknown as { snapshot: { _nodes?: AnyStateNode[] } }).snapshot;
    for (const n of snap._nodes ?? []) cov.states.add(n.id);
    for (const t of (ev as unknown as { _transitions: AnyTransitionDefinition[] })._transitions) {
      cov.transitions.add(transitionKey(t));
      for (const target of t.target ?? []) cov.states.add(target.id);
    }
  };
}

/** Counts the steps on which a path property had something to check. */
function exercise(cov: Coverage, prev: Snap, next: Snap, after: PathFacts): void {
  const t = next.context.current;
  if (leaf(next.value) === 'work.dispatching' && t !== null && next.context.blocked[t.id] !== undefined)
    cov.exercised.relaunches++;
  if (next.context.tracker.cycles > prev.context.tracker.cycles && prev.context.stuck !== null)
    cov.exercised.stuckTicks++;
  if (after.custodyViolated) cov.exercised.custodyStops++;
}

const replays = new Map<string, Coverage>();

/**
 * Replays the shortest-path tree of one input on live actors (memoized): invariants at every
 * state, the path properties along every path, the live state equal to the graph's at every tree
 * node, and every event sent once from every state.
 */
function replay(name: string): Coverage {
  const done = replays.get(name);
  if (done) return done;
  const input = INPUTS[name] as CycleInput;
  const paths = getShortestPaths(cycleMachine, { input, events: eventsFor, serializeState: serialize });
  expect(paths.length).toBeGreaterThan(10);
  const children = new Map<string, Snap[]>();
  let root: Snap | undefined;
  for (const path of paths) {
    const n = path.steps.length;
    const here = path.steps[n - 1]?.state as Snap;
    if (n === 1) root = here;
    const parent = path.steps[n - 2]?.state as Snap | undefined;
    if (parent === undefined) continue;
    const key = serialize(parent);
    children.set(key, [...(children.get(key) ?? []), here]);
  }
  expect(root, 'the initial path').toBeDefined();
  const cov: Coverage = {
    states: new Set(['cycle']),
    transitions: new Set(),
    reached: new Set(),
    exercised: { relaunches: 0, stuckTicks: 0, custodyStops: 0 },
  };
  const inspect = tracker(cov);
  dispatched.length = 0;
  const first = createActor(liveMachine, { input, inspect });
  first.start();
  const initial = first.getSnapshot();
  for (const n of initial._nodes as AnyStateNode[]) cov.states.add(n.id);
  expect(serialize(initial)).toBe(serialize(root as Snap));
  checkInvariants(initial);
  checkDispatches(initial);
  const walk: { persisted: unknown; snap: Snap; facts: PathFacts }[] = [
    { persisted: first.getPersistedSnapshot(), snap: initial, facts: START },
  ];
  first.stop();
  cov.reached.add(serialize(initial));
  while (walk.length > 0) {
    const { persisted, snap, facts } = walk.pop() as (typeof walk)[number];
    const kids = new Map((children.get(serialize(snap)) ?? []).map((k) => [serialize(k), k]));
    for (const event of eventsFor(snap)) {
      const actor = createActor(liveMachine, { input, snapshot: persisted as never, inspect });
      actor.start();
      dispatched.length = 0; // a restored dispatching state restarts its worker with the same input
      expect(serialize(actor.getSnapshot())).toBe(serialize(snap));
      actor.send(event);
      const next = actor.getSnapshot();
      for (const n of next._nodes as AnyStateNode[]) cov.states.add(n.id);
      checkInvariants(next);
      checkDispatches(next);
      const after = stepPath(facts, snap, event, next);
      exercise(cov, snap, next, after);
      const key = serialize(next);
      if (kids.has(key) && !cov.reached.has(key)) {
        cov.reached.add(key);
        walk.push({ persisted: actor.getPersistedSnapshot(), snap: next, facts: after });
      }
      actor.stop();
    }
  }
  // every state of the graph was reached on a live actor along its shortest path
  expect(cov.reached.size).toBe(paths.length);
  replays.set(name, cov);
  return cov;
}

describe('cycle machine — shortest paths replayed on live actors', () => {
  for (const name of Object.keys(INPUTS)) {
    it(`every shortest path holds the invariants and the path properties (${name})`, () => {
      expect(replay(name).reached.size).toBeGreaterThan(10);
    }, 180_000);
  }

  it('covers every state node and every transition', () => {
    const states = new Set<string>();
    const transitions = new Set<string>();
    for (const name of Object.keys(INPUTS)) {
      const cov = replay(name);
      for (const s of cov.states) states.add(s);
      for (const t of cov.transitions) transitions.add(t);
    }
    const all = allStateIds(cycleMachine.root);
    expect(all.filter((s) => !states.has(s))).toEqual([]);
    expect(allTransitionKeys(cycleMachine.root).filter((t) => !transitions.has(t))).toEqual([]);
    const leaves = all.filter((id) => Object.keys(cycleMachine.getStateNodeById(id).states).length === 0);
    expect(leaves.map((id) => id.replace(/^cycle\./, '')).sort()).toEqual(Object.keys(INVARIANTS).sort());
  }, 600_000);

  it('every path property is exercised by the generated paths (none holds vacuously)', () => {
    const total = { relaunches: 0, stuckTicks: 0, custodyStops: 0 };
    for (const name of Object.keys(INPUTS)) {
      const e = replay(name).exercised;
      total.relaunches += e.relaunches;
      total.stuckTicks += e.stuckTicks;
      total.custodyStops += e.custodyStops;
    }
    expect(total.relaunches).toBeGreaterThan(0);
    expect(total.stuckTicks).toBeGreaterThan(0);
    expect(total.custodyStops).toBeGreaterThan(0);
  }, 600_000);

  it('the path properties can fail: each is broken by a path it must refuse', () => {
    const at = (value: unknown, over: Partial<Snap['context']>, status: Snap['status'] = 'active') =>
      ({
        value,
        status,
        context: { ...initialTransition(cycleMachine, INPUTS.autoprove as CycleInput)[0].context, ...over },
      }) as unknown as Snap;
    const cycleOf = (n: number) => ({ ...(INPUTS.autoprove as CycleInput).tracker, cycles: n });
    const blocked = { [T1.id]: workerHandoff('stuck') };
    // dispatching a blocked target without new evidence
    expect(() =>
      stepPath(
        START,
        at('work', { current: T1 }),
        { type: 'x' },
        at({ work: 'dispatching' }, { current: T1, blocked }),
      ),
    ).toThrow();
    // ticking a stuck cycle without its review and replan
    const stuck = { target: T1.id, condition: 'repeated-failure' as const, signature: 's', detail: 'd' };
    expect(() =>
      stepPath(
        START,
        at({ checkpoint: 'gate' }, { stuck, tracker: cycleOf(0) }),
        { type: 'x' },
        at({ plan: 'discover' }, { tracker: cycleOf(1) }),
      ),
    ).toThrow();
    // a custody violation followed by the checkpoint
    expect(() =>
      stepPath(
        START,
        at({ work: 'dispatching' }, { current: T1 }),
        done('worker', outcome('custody-violation')),
        at({ checkpoint: 'gate' }, { current: T1 }),
      ),
    ).toThrow();
  });
});

describe('cycle machine — random walk over the pure transition function', () => {
  it('keeps the invariants and the path properties on random event sequences', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(INPUTS)),
        fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
        (name, choices) => {
          const input = INPUTS[name] as CycleInput;
          let [s] = initialTransition(cycleMachine, input);
          let facts = START;
          checkInvariants(s);
          for (const c of choices) {
            const evs = eventsFor(s);
            if (evs.length === 0 || s.status === 'done') break;
            const e = evs[c % evs.length] as AnyEventObject;
            const [next] = transition(cycleMachine, s, e);
            checkInvariants(next);
            facts = stepPath(facts, s, e, next);
            s = next;
          }
          if (s.status === 'done') {
            const h = s.output as Handoff;
            expect(validateHandoff(h).ok).toBe(true);
            const driven = h.status === 'stuck' || h.stop_reason === 'max-stuck';
            expect(h.blocker_signature !== null).toBe(driven);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});
