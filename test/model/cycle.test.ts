/**
 * Model-based tests of machines/cycle: shortest paths over a bounded context with an explicit
 * event list (the actors' done/error events), replayed on live actors (xstate.init skipped), an
 * invariant table keyed by state, whole-path properties (a forbidden relaunch is never
 * dispatched; a stuck target passes review then replan before the next tick; a custody violation
 * never reaches a checkpoint), a coverage assertion over every state node and transition, and a
 * fast-check random walk over the pure transition function with the same properties. Engine II
 * (deep, repair, router, falsification) is covered by two inputs with those actors available;
 * its properties: rolled-back files are never in a checkpoint's files, a failed rollback never
 * reaches a checkpoint, deep is never dispatched after a can-deep denial.
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
import { cycleMachine } from '../../machines/cycle.js';
import { type Handoff, rerunGuard, validateHandoff } from '../../src/contract/index.js';
import { relaunchVerdict } from '../../src/cycle/relaunch.js';
import { editsToRestore } from '../../src/cycle/restore-edits.js';
import type {
  CycleInput,
  DiagnosticsOutput,
  TargetInfo,
  WorkerInput,
  WorkOutcome,
} from '../../src/cycle/types.js';
import { canDeep } from '../../src/tracker/counters.js';
import { BASELINE, cycleInput, FILE, T1, workerHandoff } from '../cycle/fixture.js';
import { boundedShortestPaths } from './bounded-paths.js';

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
// the pre-dispatch baseline a failed edit's restore goes back to (src/cycle/restore-edits.ts)
// (other bytes than the returned BASELINE: a refuted edit changed the file)
const PRE_DISPATCH = { ...BASELINE, files: BASELINE.files.map((f) => ({ ...f, sha256: 'b'.repeat(64) })) };
const dispatchStub = { target: T1.id, file_baseline: PRE_DISPATCH };
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
const review = (
  mode: 'normal' | 'stuck',
  nextAction: Handoff['next_action'] = mode === 'stuck' ? 'stop' : 'continue',
  falsification = false,
) => ({
  now: 0,
  mode,
  primaryBlocker: mode === 'stuck' ? 'arithmetic' : null,
  topBlockers: [],
  evidence: [],
  falsification,
  nextAction,
  suggestions: [],
});
/** The stuck reviews the router distinguishes: each next_action, and a falsification flag. */
const STUCK_REVIEWS = [
  review('stuck', 'continue'),
  review('stuck', 'stop'),
  review('stuck', 'deep'),
  review('stuck', 'repair'),
  review('stuck', 'redraft'),
  review('stuck', 'continue', true),
];
/** Engine II outcomes. */
const T_EXTRA: TargetInfo = { id: 'A.lean:7', file: 'A.lean', line: 7, goal: 'sorry' };
const ERRORS3 = ['A.lean:3:type mismatch', 'A.lean:4:unknown identifier', 'A.lean:5:timeout'];
const deepOutcome = (linesChanged: number): WorkOutcome => ({
  ...(outcome('handoff') as WorkOutcome & { kind: 'handoff' }),
  linesChanged,
});
const repairOutcomeOf = (diff: boolean): WorkOutcome => ({
  ...(stuckOutcome as WorkOutcome & { kind: 'handoff' }),
  handoff: {
    ...workerHandoff('stuck'),
    artifacts: diff
      ? [{ kind: 'unified-diff', content: '--- a/A.lean\n+++ b/A.lean\n@@ -1 +1 @@\n-x\n+y\n' }]
      : [],
  },
});
const restored = (ok: boolean) => ({
  now: 0,
  ok,
  restored: ok ? ['A.lean'] : [],
  detail: ok ? null : 'conflict',
});

function leaf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as object)[0] as [string, unknown];
  return `${k}.${leaf(v)}`;
}

/** Engine II inputs (deep and repair available) get every router outcome; the others today's. */
const engine2 = (s: Snap): boolean => s.context.available.deep;

/**
 * The engine II inputs take only these events (by index) in the states the other inputs cover
 * exhaustively: enough to reach every new state, few enough to keep the graph small.
 */
const E2_KEEP: Record<string, readonly number[]> = {
  'plan.discover': [0],
  'plan.planning': [0],
  'work.dispatching': [0, 1],
  'work.verify': [1, 2],
  'checkpoint.gate': [0],
  'checkpoint.commit': [0],
  'replan.planning': [0],
  'replan.approve': [0, 1],
  'boundary.finalCheck': [1],
  'boundary.askContinue': [0],
  'boundary.askBlocker': [1, 2],
};

/** The prove engine II input covers prove's own new states (ask deep, its router, falsification). */
const E2_PROVE_KEEP: Record<string, readonly number[]> = {
  ...E2_KEEP,
  'work.deep.snapshot': [0],
  'work.deep.baseline': [0],
  'work.deep.dispatching': [0],
  'work.deep.verify': [1],
  'work.deep.rollback': [0],
  'work.repair.dispatching': [0],
  'work.repair.patching': [0],
  'work.repair.verify': [0, 1],
  'work.falsify.dispatching': [0],
  'work.falsify.verify': [0],
  'replan.askFalsify': [0, 2, 3, 4],
  'checkpoint.confirm': [0],
};

/** The exhaustive event list: every outcome each active actor can report. */
function eventsFor(s: Snap): AnyEventObject[] {
  const all = allEventsFor(s);
  const table = s.context.options.mode === 'prove' ? E2_PROVE_KEEP : E2_KEEP;
  const keep = engine2(s) ? table[leaf(s.value)] : undefined;
  if (keep !== undefined) return keep.map((i) => all[i] as AnyEventObject);
  // the repair trigger's three errors only matter where repair is available
  return engine2(s) || leaf(s.value) !== 'work.verify' ? all : all.filter((_, i) => i !== 2);
}

function allEventsFor(s: Snap): AnyEventObject[] {
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
      return [
        done('verify', diag([])),
        done('verify', diag([T1])),
        done('verify', { ...diag([T1]), errors: ERRORS3, ok: false }),
        fail('verify'),
      ];
    case 'work.askDeep':
      return ['deep', 'skip', 'stop'].map((a) => done('approveDeep', human(a))).concat(fail('approveDeep'));
    case 'work.deep.snapshot':
      return [done('snapshotter', { now: 0, id: 'snap-1', files: ['A.lean'] }), fail('snapshotter')];
    case 'work.deep.baseline':
      return [done('deepBaseline', diag([T1])), fail('deepBaseline')];
    case 'work.deep.dispatching':
      return [
        done('deepWorker', deepOutcome(4)),
        done('deepWorker', deepOutcome(9999)),
        done('deepWorker', stuckOutcome),
        done('deepWorker', outcome('fence-violation')),
        done('deepWorker', outcome('custody-violation')),
        done('deepWorker', outcome('protocol-error')),
        done('deepWorker', outcome('operational-error')),
        fail('deepWorker'),
      ];
    case 'work.deep.verify':
      return [
        done('deepVerify', diag([])),
        done('deepVerify', diag([T1])),
        done('deepVerify', diag([T1, T_EXTRA])),
        fail('deepVerify'),
      ];
    case 'work.deep.rollback':
      return [done('restorer', restored(true)), done('restorer', restored(false)), fail('restorer')];
    case 'work.repair.dispatching':
      return [
        done('repairWorker', repairOutcomeOf(true)),
        done('repairWorker', repairOutcomeOf(false)),
        done('repairWorker', outcome('fence-violation')),
        done('repairWorker', outcome('custody-violation')),
        done('repairWorker', outcome('protocol-error')),
        done('repairWorker', outcome('operational-error')),
        fail('repairWorker'),
      ];
    case 'work.repair.patching':
      return [
        done('patcher', { now: 0, kind: 'applied', changed: [FILE], baseline: BASELINE }),
        done('patcher', { now: 0, kind: 'stale', detail: 'A.lean changed on disk' }),
        done('patcher', { now: 0, kind: 'refused', detail: 'fuzzy hunk' }),
        fail('patcher'),
      ];
    case 'work.repair.verify':
      return [
        done('repairVerify', diag([T1])),
        done('repairVerify', { ...diag([T1]), errors: ERRORS3.concat('A.lean:1:error'), ok: false }),
        fail('repairVerify'),
      ];
    case 'work.falsify.dispatching':
      return [
        done('falsifyWorker', stuckOutcome),
        done('falsifyWorker', outcome('fence-violation')),
        done('falsifyWorker', outcome('custody-violation')),
        done('falsifyWorker', outcome('protocol-error')),
        done('falsifyWorker', outcome('operational-error')),
        fail('falsifyWorker'),
      ];
    case 'work.falsify.verify':
      return [done('falsifyVerify', diag([T1])), fail('falsifyVerify')];
    case 'replan.askFalsify':
      return ['salvage', 'negate', 'skip', 'stop']
        .map((a) => done('askFalsification', human(a)))
        .concat(fail('askFalsification'));
    case 'checkpoint.restore':
      return [
        done('editRestorer', { now: 0, restored: [FILE], failed: [], detail: null }),
        done('editRestorer', { now: 0, restored: [], failed: [FILE], detail: 'EACCES' }),
        fail('editRestorer'),
      ];
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
      return (stuckNow ? (engine2(s) ? STUCK_REVIEWS : [review('stuck', 'continue')]) : [review('normal')])
        .map((r) => done('reviewer', r))
        .concat(fail('reviewer'));
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
      return (engine2(s) ? STUCK_REVIEWS.slice(1, 5) : [review('stuck', 'stop')])
        .map((r) => done('stuckReview', r))
        .concat(fail('stuckReview'));
    default:
      return [];
  }
}

const inputFor = cycleInput;

/** `input` with a tracker that allows `n` cycles. */
function cycles(input: CycleInput, n: number): CycleInput {
  return { ...input, tracker: { ...input.tracker, limits: { ...input.tracker.limits, max_cycles: n } } };
}

/** `input` run by an outer loop (redraft and golf are handed to it). */
function outerLoop(input: CycleInput): CycleInput {
  return { ...input, options: { ...input.options, outerLoop: true } };
}

/** Today's inputs: no falsification (its states are the engine II inputs'). */
function classic(input: CycleInput): CycleInput {
  return { ...input, options: { ...input.options, falsification: 'off' } };
}

const INPUTS: Record<string, CycleInput> = {
  provePrior: classic({
    ...inputFor({ mode: 'prove', reviewEvery: 'never' }),
    priorHandoff: { ...workerHandoff('stuck'), mode: 'prove' },
  }),
  autoprove: classic(inputFor({}, true)),
  prove: classic(inputFor({ mode: 'prove', reviewEvery: 'never' })),
  proveReview: classic(inputFor({ mode: 'prove', planning: 'on', reviewEvery: '2' })),
  autoOff: classic(inputFor({ planning: 'off', commit: 'never' })),
  engine2: cycles(
    {
      ...outerLoop(inputFor({ planning: 'off', maxCycles: 1, deep: 'always' })),
      available: { deep: true, repair: true, restore: true },
    },
    1,
  ),
  engine2Prove: cycles(
    {
      ...outerLoop(
        inputFor({ mode: 'prove', planning: 'off', reviewEvery: 'never', deep: 'ask', maxCycles: 2 }),
      ),
      available: { deep: true, repair: true },
    },
    2,
  ),
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
    // deep and repair runs matter while they run (what they leave behind is in the other fields)
    deep: leaf(s.value).startsWith('work.deep.') &&
      c.deep && [
        c.deep.snapshotId,
        c.deep.pre !== null,
        c.deep.post !== null,
        c.deep.rollback,
        c.deep.changed,
      ],
    dt: c.tracker.deep_this_cycle,
    rb: c.rolledBack,
    rep: leaf(s.value).startsWith('work.repair.') &&
      c.repair && [c.repair.signature, c.repair.patch !== null, c.repair.changed, c.repair.outcome],
    led: c.repairLedger.total,
    routed: c.routed,
    fp: c.falsifyPolicy,
    ve: engine2(s) ? Object.values(c.verifyErrors).map((e) => e.length) : null,
    nao: c.nextActionOverride,
    // refuted edits waiting to be put back (the checkpoint's or the stop's restore)
    re: c.refutedEdits?.length ?? 0,
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
  'work.escalate': neverStable,
  'work.askDeep': (s) =>
    s.context.options.mode === 'prove' && s.context.options.deep === 'ask' && s.context.stuck !== null,
  'work.deep.preflight': neverStable,
  'work.deep.snapshot': (s) =>
    s.context.deep !== null && s.context.deep.snapshotId === null && s.context.tracker.deep_this_cycle > 0,
  'work.deep.baseline': (s) => s.context.deep?.snapshotId === 'snap-1' && s.context.deep.pre === null,
  'work.deep.dispatching': (s) => s.context.deep?.pre != null && s.context.current !== null,
  'work.deep.verify': (s) => s.context.deep?.pre != null && s.context.lastWork?.kind === 'handoff',
  'work.deep.judge': neverStable,
  'work.deep.rollback': (s) =>
    (s.context.deep?.rollback ?? null) !== null && s.context.deep?.snapshotId != null,
  'work.deep.accepted': neverStable,
  'work.repair.budget': neverStable,
  'work.repair.dispatching': (s) => s.context.repair !== null && s.context.repair.outcome === null,
  'work.repair.patching': (s) => (s.context.repair?.patch ?? null) !== null,
  'work.repair.verify': (s) => s.context.repair !== null && s.context.repair.outcome === null,
  'work.repair.judge': neverStable,
  'work.repair.done': neverStable,
  'work.repair.exhausted': neverStable,
  'work.falsify.dispatching': (s) =>
    s.context.falsifyPolicy !== null &&
    s.context.current !== null &&
    s.context.routed.includes(s.context.current.id),
  'work.falsify.verify': (s) => s.context.lastWork?.kind === 'handoff' && s.context.falsifyPolicy !== null,
  'review.routeNext': neverStable,
  'replan.askFalsify': (s) => s.context.options.mode === 'prove' && s.context.stuck !== null,
  'boundary.stuckRoute': neverStable,
  'checkpoint.gate': (s) =>
    s.context.lastWork?.kind === 'handoff' ||
    // a refused statement change, or a rolled-back deep pass: stuck at once, nothing of it accepted
    (s.context.lastWork !== null &&
      (s.context.stuck?.condition === 'fence-violation' || s.context.stuck?.condition === 'deep-rollback')),
  'checkpoint.route': neverStable,
  'checkpoint.restoreRoute': neverStable,
  'checkpoint.restore': (s) => s.context.available.restore === true && editsToRestore(s.context).length > 0,
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
  /** The tracker's can-deep denied deep mode this cycle. */
  readonly deepDenied: boolean;
}
const START: PathFacts = {
  stuckSeen: false,
  reviewed: false,
  replanned: false,
  custodyViolated: false,
  deepDenied: false,
};

const outputOf = (e: AnyEventObject): { kind?: string; refused?: string | null; ok?: boolean } | undefined =>
  typeof e.output === 'object' && e.output !== null ? e.output : undefined;

const rolledBackFile = (c: Snap['context'], f: string) =>
  c.rolledBack.some((r) => f === r || f.endsWith(`/${r}`));

/** The engine II properties of one step: rollbacks, failed rollbacks, can-deep denials. */
function stepDeep(facts: PathFacts, prev: Snap, event: AnyEventObject, next: Snap): boolean {
  const at = leaf(next.value);
  // rolled-back files are never in a checkpoint's files
  for (const cp of next.context.checkpoints.slice(prev.context.checkpoints.length)) {
    for (const f of cp.files)
      expect(rolledBackFile(next.context, f), `rolled-back ${f} checkpointed`).toBe(false);
  }
  // a failed rollback never reaches a checkpoint: the run ends stuck "deep: rollback failed"
  const out = outputOf(event);
  if (
    event.type === 'xstate.error.actor.restorer' ||
    (event.type === 'xstate.done.actor.restorer' && out?.ok === false)
  ) {
    expect(at.startsWith('checkpoint.'), `a failed rollback reached ${at}`).toBe(false);
    expect(next.status).toBe('done');
    expect(next.context.final?.status).toBe('stuck');
    expect(next.context.stuck?.detail).toBe('deep: rollback failed');
    expect(next.context.checkpoints).toEqual(prev.context.checkpoints);
  }
  // deep is never dispatched after a can-deep denial (this cycle), and entered only when allowed
  const denied =
    facts.deepDenied ||
    next.context.log.slice(prev.context.log.length).some((l) => l.includes('can-deep denied'));
  if (at === 'work.deep.dispatching') expect(denied, 'deep dispatched after a can-deep denial').toBe(false);
  if (at === 'work.deep.snapshot' && !leaf(prev.value).startsWith('work.deep.'))
    expect(canDeep(prev.context.tracker, prev.context.now).ok).toBe(true);
  return denied;
}

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
  const deepDenied = stepDeep(facts, prev, event, next);
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
  return { stuckSeen, reviewed, replanned, custodyViolated: violated, deepDenied };
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
    snapshotter: pending(),
    restorer: pending(),
    patcher: pending(),
    editRestorer: pending(),
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

/**
 * A failing project gate never reaches the commit or its question: the checkpoint is skipped.
 * Returns whether the step had something to check (a failing gate with accepted files).
 */
function checkGate(prev: Snap, event: AnyEventObject, next: Snap): boolean {
  if (leaf(prev.value) !== 'checkpoint.gate' || event.type !== 'xstate.done.actor.gate') return false;
  if ((event.output as DiagnosticsOutput).ok) return false;
  expect(['checkpoint.commit', 'checkpoint.confirm'], 'a failing gate went on to the commit').not.toContain(
    leaf(next.value),
  );
  return prev.context.accepted.length > 0;
}

interface Coverage {
  readonly states: Set<string>;
  readonly transitions: Set<string>;
  /** States reached on live actors, by serialization. */
  readonly reached: Set<string>;
  /** How often each path property had something to check (none of them may be vacuous). */
  readonly exercised: {
    relaunches: number;
    stuckTicks: number;
    custodyStops: number;
    rollbacksBeforeCheckpoint: number;
    failedRollbacks: number;
    deepDenials: number;
    failedGates: number;
  };
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
  const at = leaf(next.value);
  if (at === 'checkpoint.gate' && next.context.rolledBack.length > 0)
    cov.exercised.rollbacksBeforeCheckpoint++;
  if (next.context.stuck?.detail === 'deep: rollback failed' && next.status === 'done')
    cov.exercised.failedRollbacks++;
  if (after.deepDenied) cov.exercised.deepDenials++;
}

const replays = new Map<string, Coverage>();

/** Far above what the bounded inputs reach (at most 5,922 states, 28 deep); a broken machine fails with a named path. */
const CYCLE_BOUND = { maxStates: 20_000, maxDepth: 80 } as const;

/**
 * Replays the shortest-path tree of one input on live actors (memoized): invariants at every
 * state, the path properties along every path, the live state equal to the graph's at every tree
 * node, and every event sent once from every state.
 */
function replay(name: string): Coverage {
  const done = replays.get(name);
  if (done) return done;
  const input = INPUTS[name] as CycleInput;
  const paths = boundedShortestPaths(
    cycleMachine,
    { input, events: (s) => eventsFor(s as Snap), serializeState: (s) => serialize(s as Snap) },
    CYCLE_BOUND,
  );
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
    exercised: {
      relaunches: 0,
      stuckTicks: 0,
      custodyStops: 0,
      rollbacksBeforeCheckpoint: 0,
      failedRollbacks: 0,
      deepDenials: 0,
      failedGates: 0,
    },
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
      if (checkGate(snap, event, next)) cov.exercised.failedGates++;
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
    const total: Record<string, number> = {};
    for (const name of Object.keys(INPUTS)) {
      for (const [k, v] of Object.entries(replay(name).exercised)) total[k] = (total[k] ?? 0) + v;
    }
    for (const [k, v] of Object.entries(total)) expect(v, `${k} never exercised`).toBeGreaterThan(0);
    expect(Object.keys(total).sort()).toEqual([
      'custodyStops',
      'deepDenials',
      'failedGates',
      'failedRollbacks',
      'relaunches',
      'rollbacksBeforeCheckpoint',
      'stuckTicks',
    ]);
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
    // a rolled-back file in a checkpoint
    expect(() =>
      stepPath(
        START,
        at({ checkpoint: 'commit' }, { current: T1, rolledBack: ['A.lean'] }),
        { type: 'x' },
        at(
          { review: 'reviewing' },
          {
            current: T1,
            rolledBack: ['A.lean'],
            checkpoints: [{ cycle: 1, commit: 'c', files: [FILE], message: 'm' }],
          },
        ),
      ),
    ).toThrow();
    // a failed rollback followed by the checkpoint
    expect(() =>
      stepPath(
        START,
        at({ work: { deep: 'rollback' } }, { current: T1 }),
        done('restorer', restored(false)),
        at({ checkpoint: 'gate' }, { current: T1 }),
      ),
    ).toThrow();
    // deep dispatched after a can-deep denial
    expect(() =>
      stepPath(
        { ...START, deepDenied: true },
        at({ work: { deep: 'baseline' } }, { current: T1 }),
        { type: 'x' },
        at({ work: { deep: 'dispatching' } }, { current: T1 }),
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
