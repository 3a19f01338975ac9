/**
 * Model-based tests of machines/cycle: shortest paths over a bounded context with an explicit
 * event list (the actors' done/error events), replayed on live actors (xstate.init skipped), an
 * invariant table keyed by state, a coverage assertion over every state node and transition, and a
 * fast-check random walk over the pure transition function.
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
import type { FileBaseline } from '../../src/baseline/schema.js';
import { emptyEvidence, type Handoff, validateHandoff } from '../../src/contract/index.js';
import type { CycleInput, DiagnosticsOutput, TargetInfo, WorkOutcome } from '../../src/cycle/types.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { initTracker } from '../../src/tracker/counters.js';

type Snap = SnapshotFrom<typeof cycleMachine>;

const FILE = '/p/A.lean';
const BASELINE: FileBaseline = {
  schema: 'file-baseline/v1',
  files: [{ path: FILE, realpath: FILE, exists: true, sha256: 'a'.repeat(64), size: 3 }],
};
const T1: TargetInfo = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'sorry' };
const TRIVIAL: TargetInfo = { id: 'A.lean:5', file: 'A.lean', line: 5, goal: 'sorry -- hint: rfl' };

function workerHandoff(status: 'solved' | 'stuck'): Handoff {
  const stuck = status === 'stuck';
  return {
    schema: 'run-contract/v1',
    record: 'handoff',
    target: T1.id,
    scope: 'sorry',
    mode: 'autoprove',
    status,
    stop_reason: null,
    stop_detail: null,
    blocker_kind: stuck ? 'proof' : null,
    blocker_class: stuck ? 'arithmetic' : null,
    blocker_signature: stuck ? 'A.lean:2:omega failed' : null,
    attempted_tools: ['t'],
    best_candidates: [],
    failed_avenues: stuck ? ['omega failed'] : [],
    evidence: emptyEvidence(),
    files_owned: [FILE],
    files_changed: stuck ? [] : [FILE],
    file_baseline: BASELINE,
    artifacts: [],
    next_action: stuck ? 'stop' : 'continue',
    new_evidence_required_for_rerun: stuck ? 'a lemma' : null,
  };
}

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

function inputFor(flags: Record<string, unknown>, inline = false): CycleInput {
  const r = resolveCycleOptions({
    target: '.',
    scope: 'project',
    mode: 'autoprove',
    maxCycles: 3,
    maxStuck: 2,
    ...flags,
  });
  if (!r.ok) throw new Error(r.error);
  const t = initTracker({ maxCycles: 3, maxStuck: 2 }, 's', 0);
  if (!t.ok) throw new Error(t.error);
  return {
    options: { ...r.options, inlineFallback: inline },
    warnings: r.warnings,
    tracker: t.state,
    startedAt: 0,
    filesOwned: [FILE],
    baseline: BASELINE,
    priorHandoff: null,
  };
}

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

const pending = () => fromPromise(() => new Promise<never>(() => {})) as never;
const liveMachine = cycleMachine.provide({
  actors: {
    planner: pending(),
    worker: pending(),
    diagnostics: pending(),
    reviewer: pending(),
    checkpointer: pending(),
    human: pending(),
  },
});

const coveredStates = new Set<string>();
const coveredTransitions = new Set<string>();

function track(ev: { type: string }): void {
  if (ev.type !== '@xstate.microstep') return;
  const snap = (ev as unknown as { snapshot: { _nodes?: AnyStateNode[] } }).snapshot;
  for (const n of snap._nodes ?? []) coveredStates.add(n.id);
  for (const t of (ev as unknown as { _transitions: AnyTransitionDefinition[] })._transitions) {
    coveredTransitions.add(transitionKey(t));
    for (const target of t.target ?? []) coveredStates.add(target.id);
  }
}

describe('cycle machine — shortest paths replayed on live actors', () => {
  for (const [name, input] of Object.entries(INPUTS)) {
    it(`every shortest path holds the invariants (${name})`, () => {
      const paths = getShortestPaths(cycleMachine, { input, events: eventsFor, serializeState: serialize });
      expect(paths.length).toBeGreaterThan(10);
      for (const path of paths) {
        const actor = createActor(liveMachine, { input, inspect: track });
        actor.start();
        coveredStates.add('cycle');
        for (const id of actor.getSnapshot()._nodes.map((n: AnyStateNode) => n.id)) coveredStates.add(id);
        checkInvariants(actor.getSnapshot());
        for (const step of path.steps) {
          if (step.event.type === 'xstate.init') continue;
          actor.send(step.event);
          const snap = actor.getSnapshot();
          for (const n of snap._nodes as AnyStateNode[]) coveredStates.add(n.id);
          checkInvariants(snap);
        }
        expect(serialize(actor.getSnapshot())).toBe(serialize(path.state));
        const reached = actor.getPersistedSnapshot();
        actor.stop();
        // one step further along every event (restored from the path's end, not replayed):
        // shortest paths reach every state, these reach every edge
        for (const e of eventsFor(path.state)) {
          const next = createActor(liveMachine, { input, snapshot: reached, inspect: track });
          next.start();
          expect(serialize(next.getSnapshot())).toBe(serialize(path.state));
          next.send(e);
          checkInvariants(next.getSnapshot());
          next.stop();
        }
      }
    });
  }

  it('covers every state node and every transition', () => {
    const states = allStateIds(cycleMachine.root);
    expect(states.filter((s) => !coveredStates.has(s))).toEqual([]);
    const transitions = allTransitionKeys(cycleMachine.root);
    expect(transitions.filter((t) => !coveredTransitions.has(t))).toEqual([]);
    const leaves = states.filter((id) => Object.keys(cycleMachine.getStateNodeById(id).states).length === 0);
    expect(leaves.map((id) => id.replace(/^cycle\./, '')).sort()).toEqual(Object.keys(INVARIANTS).sort());
  });
});

describe('cycle machine — random walk over the pure transition function', () => {
  it('keeps the invariants on random event sequences', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(INPUTS)),
        fc.array(fc.nat(), { minLength: 1, maxLength: 80 }),
        (name, choices) => {
          const input = INPUTS[name] as CycleInput;
          let [s] = initialTransition(cycleMachine, input);
          checkInvariants(s);
          for (const c of choices) {
            const evs = eventsFor(s);
            if (evs.length === 0 || s.status === 'done') break;
            [s] = transition(cycleMachine, s, evs[c % evs.length] as AnyEventObject);
            checkInvariants(s);
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
