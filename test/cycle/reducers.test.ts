/**
 * The cycle's reducers, actor inputs and routing predicates (src/cycle), called directly — no
 * machine, no actor: `(context, output) => context update`, and each update merged the way the
 * machine's `assign` merges it.
 */
import { describe, expect, it } from 'vitest';
import { emptyEvidence, validateHandoff } from '../../src/contract/index.js';
import {
  blockerQuestion,
  checkpointInput,
  diagnosticsRequest,
  plannerInput,
  reviewInput,
  stuckReviewInput,
  verifyRequest,
  workerInput,
} from '../../src/cycle/actor-inputs.js';
import {
  absorbHuman,
  absorbHumanEvidence,
  answeredWithEvidence,
  nextCycle,
  tickTracker,
} from '../../src/cycle/boundary-reducers.js';
import {
  absorbCheckpoint,
  absorbGate,
  checkpointRefused,
  noteSkipCheckpoint,
} from '../../src/cycle/checkpoint-reducers.js';
import type { CycleUpdate } from '../../src/cycle/context.js';
import { absorbDiagnostics, absorbPlan, chooseTarget } from '../../src/cycle/plan-reducers.js';
import { relaunchForbidden } from '../../src/cycle/relaunch.js';
import { absorbReview } from '../../src/cycle/review-reducers.js';
import { checkpointSkipped, nothingToVerify, planningSkipped } from '../../src/cycle/routes.js';
import {
  checkpointStop,
  errorStop,
  finalizeStopped,
  finalizeStuck,
  limitStop,
  runOutput,
  stopFor,
  workStop,
} from '../../src/cycle/run-end.js';
import type {
  CycleContext,
  DiagnosticsOutput,
  ReviewOutput,
  StuckVerdict,
  WorkOutcome,
} from '../../src/cycle/types.js';
import {
  absorbVerify,
  absorbWork,
  assessStuck,
  markFenceStuck,
  markRefused,
  switchToInline,
} from '../../src/cycle/work-reducers.js';
import { recordKwSearch } from '../../src/tracker/counters.js';
import { BASELINE, cycleContext, FILE, handoffOutcome, T1, workerHandoff } from './fixture.js';

/** Applies an update the way xstate's `assign` does. */
const apply = (c: CycleContext, u: CycleUpdate): CycleContext => ({ ...c, ...u });

const diag = (over: Partial<DiagnosticsOutput> = {}): DiagnosticsOutput => ({
  now: 0,
  tier: 'file-fast',
  targets: [T1],
  errors: [],
  ok: true,
  ...over,
});
const stuckReview: ReviewOutput = {
  now: 7,
  mode: 'stuck',
  primaryBlocker: 'missing library lemma',
  topBlockers: [],
  evidence: [],
  falsification: false,
  nextAction: 'stop',
  suggestions: [],
};
const verdict: StuckVerdict = {
  target: T1.id,
  condition: 'repeated-failure',
  signature: 'A.lean:2:omega failed',
  detail: 'same blocker on two consecutive attempts: A.lean:2:omega failed',
};
const violation = (
  kind: Exclude<WorkOutcome['kind'], 'handoff'>,
  detail = `${kind} detail`,
): WorkOutcome => ({
  kind,
  now: 4,
  detail,
  dispatch: null,
});

describe('plan reducers', () => {
  it('absorbDiagnostics keeps the first count and the time of the last decrease', () => {
    const two = { ...T1, id: 'A.lean:9', line: 9 };
    let c = cycleContext({ lastCount: null, targets: [] });
    c = apply(c, absorbDiagnostics(c, diag({ now: 5, targets: [T1, two] })));
    expect([c.initialCount, c.lastCount, c.lastDecreaseAt, c.now]).toEqual([2, 2, 0, 5]);
    c = apply(c, absorbDiagnostics(c, diag({ now: 9, targets: [two] })));
    expect([c.initialCount, c.lastCount, c.lastDecreaseAt, c.now]).toEqual([2, 1, 9, 9]);
    // the clock never runs backwards; an unchanged count keeps the last decrease
    c = apply(c, absorbDiagnostics(c, diag({ now: 3, targets: [two] })));
    expect([c.lastDecreaseAt, c.now]).toEqual([9, 9]);
  });

  it('absorbPlan keeps only the searches the tracker admits, records each, and merges evidence', () => {
    const search = (top: string[]) => ({ tool: 'loogle', query: 'q', top });
    const c = cycleContext({ evidenceFor: { [T1.id]: ['old'] } });
    const u = absorbPlan(c, {
      now: 2,
      steps: [{ target: T1.id, note: 'attempt' }],
      searches: [search([]), search(['x']), search([]), search([])],
      evidence: { [T1.id]: ['new lemma'] },
      summary: 'attempt A.lean:2',
    });
    expect(u.searches).toHaveLength(3);
    expect(u.tracker?.kw_search_this_cycle).toBe(3);
    expect(u.evidenceFor?.[T1.id]).toEqual(['old', 'new lemma']);
    // two of the three kept searches came back empty: the fallback ledger of the planned target
    expect(u.searchLedgers?.[T1.id]).toEqual({ inconclusive: 2, unavailable: [] });
    expect(u.plannedCycle).toBe(1);
    expect(u.log).toEqual(['plan: attempt A.lean:2']);
  });

  it('chooseTarget picks in plan order and returns null when every target was refused', () => {
    expect(chooseTarget(cycleContext({ current: null })).current).toEqual(T1);
    expect(chooseTarget(cycleContext({ refused: [T1.id] })).current).toBeNull();
  });
});

describe('work reducers', () => {
  it('absorbWork records a failed attempt, its searches and the accepted files', () => {
    const h = workerHandoff('stuck', {
      files_changed: [FILE],
      evidence: { ...emptyEvidence(), queries: ['a', 'b'] },
    });
    const c = cycleContext();
    const u = absorbWork(c, handoffOutcome(h, { now: 3 }));
    expect(u.attempts?.[T1.id]).toEqual([
      { cycle: 1, solved: false, signature: 'A.lean:2:omega failed', snippets: [], emptySearch: true },
    ]);
    expect(u.tracker?.kw_search_this_cycle).toBe(2);
    expect(u.searchLedgers?.[T1.id]).toEqual({ inconclusive: 2, unavailable: [] });
    expect([u.accepted, u.filesChanged, u.handoffs]).toEqual([[FILE], [FILE], [h]]);
    expect(u.baseline).toEqual(BASELINE);
    expect([u.now, u.log]).toEqual([3, ['work: A.lean:2 → stuck']]);
  });

  it('absorbWork: a solve clears the target’s blocker, a relaunch consumes its evidence', () => {
    const blocked = { [T1.id]: workerHandoff('stuck') };
    const evidenceFor = { [T1.id]: ['use: omega'] };
    const solved = absorbWork(
      cycleContext({ blocked, evidenceFor }),
      handoffOutcome(workerHandoff('solved')),
    );
    expect([solved.blocked, solved.evidenceFor]).toEqual([{}, {}]);
    const again = absorbWork(cycleContext({ blocked, evidenceFor }), handoffOutcome(workerHandoff('stuck')));
    expect([again.blocked, again.evidenceFor]).toEqual([blocked, {}]);
  });

  it('absorbWork: an outcome without a handoff only becomes lastWork', () => {
    const out = violation('custody-violation');
    expect(absorbWork(cycleContext({ now: 9 }), out)).toEqual({ lastWork: out, now: 9 });
  });

  it('markFenceStuck declares the target stuck at once with the fence’s detail', () => {
    const u = markFenceStuck(cycleContext(), violation('fence-violation', 'header fence: theorem t changed'));
    expect(u.stuck).toEqual({
      target: T1.id,
      condition: 'fence-violation',
      signature: 'A.lean:2:header fence',
      detail: 'header fence: theorem t changed',
    });
    expect(u.lastStuck).toEqual(u.stuck);
    expect(markFenceStuck(cycleContext({ current: null }), violation('fence-violation'))).toEqual({});
    // the falsify role's refusal is named for what it is
    const f = markFenceStuck(
      cycleContext(),
      violation('fence-violation', 'falsification: t_false proves ¬t'),
    );
    expect(f.stuck?.signature).toBe('A.lean:2:falsification');
  });

  it('assessStuck: the same blocker twice is stuck, a confirmed solve never is', () => {
    const fail = { cycle: 1, solved: false, signature: 'A.lean:2:x', snippets: [], emptySearch: false };
    const twice = cycleContext({ attempts: { [T1.id]: [fail, fail] } });
    expect(assessStuck(twice).stuck?.condition).toBe('repeated-failure');
    const solvedNow = { ...twice, lastWork: handoffOutcome(workerHandoff('solved')) };
    expect(assessStuck(solvedNow)).toEqual({});
    expect(assessStuck(cycleContext({ current: null }))).toEqual({});
  });

  it('absorbVerify downgrades a solved claim the diagnostics contradict', () => {
    const solved = { cycle: 1, solved: true, signature: null, snippets: [], emptySearch: false };
    const c = cycleContext({
      attempts: { [T1.id]: [solved] },
      lastWork: handoffOutcome(workerHandoff('solved')),
    });
    const u = absorbVerify(c, diag({ now: 6 }));
    expect(u.attempts?.[T1.id]?.[0]).toMatchObject({ solved: false, signature: 'A.lean:2:not verified' });
    expect(u.log?.at(-1)).toBe('verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open');
    expect(absorbVerify(cycleContext(), diag())).toEqual({});
  });

  it('markRefused skips the target for the cycle; switchToInline changes the delegation', () => {
    const blocked = { [T1.id]: workerHandoff('stuck') };
    const u = markRefused(cycleContext({ blocked }));
    expect(u.refused).toEqual([T1.id]);
    expect(u.stuckHandoff).toBe(blocked[T1.id]);
    expect(u.log?.[0]).toMatch(/^guard: relaunch of A\.lean:2 refused — /);
    expect(switchToInline(cycleContext()).delegation).toBe('inline');
  });
});

describe('checkpoint, review and boundary reducers', () => {
  it('absorbGate keeps the last five gate results', () => {
    let c = cycleContext();
    for (let i = 0; i < 7; i++) c = apply(c, absorbGate(c, diag({ errors: [`A.lean:${i}:e`] })));
    expect(c.gateErrors.map((e) => e[0])).toEqual([
      'A.lean:2:e',
      'A.lean:3:e',
      'A.lean:4:e',
      'A.lean:5:e',
      'A.lean:6:e',
    ]);
  });

  it('absorbCheckpoint records a commit; a refusal is logged and records nothing', () => {
    const c = cycleContext({ accepted: [FILE] });
    const done = absorbCheckpoint(c, {
      now: 1,
      committed: true,
      commit: 'abcdef0123',
      message: 'checkpoint: x',
    });
    expect(done.checkpoints).toEqual([
      { cycle: 1, commit: 'abcdef0123', files: [FILE], message: 'checkpoint: x' },
    ]);
    expect([done.committedThisCycle, done.log]).toEqual([true, ['checkpoint: x (abcdef01)']]);
    const refusal = { now: 1, committed: false, commit: null, message: 'x', refused: 'late write to A.lean' };
    const refused = absorbCheckpoint(c, refusal);
    expect([refused.checkpoints, refused.log]).toEqual([[], ['checkpoint: refused — late write to A.lean']]);
    expect(checkpointRefused(refusal)).toBe(true);
    expect(checkpointRefused({ ...refusal, refused: null })).toBe(false);
    expect(noteSkipCheckpoint(cycleContext()).log).toEqual([
      'checkpoint: No changes this cycle — skipping checkpoint',
    ]);
  });

  it('absorbReview wraps a stuck review into the target’s declared blocker', () => {
    const c = cycleContext({ stuck: verdict, handoffs: [workerHandoff('stuck')] });
    const u = absorbReview(c, stuckReview);
    const wrapped = u.blocked?.[T1.id];
    expect(wrapped).toBe(u.stuckHandoff);
    expect(wrapped).toMatchObject({
      target: T1.id,
      status: 'stuck',
      blocker_class: 'missing-library-lemma',
      blocker_signature: verdict.signature,
    });
    expect(validateHandoff(wrapped).ok).toBe(true);
    expect(u.reviews).toBe(1);
    const normal = absorbReview(c, { ...stuckReview, mode: 'normal', suggestions: ['split it'] });
    expect([normal.blocked, normal.log]).toEqual([undefined, ['review: split it']]);
  });

  it('tickTracker reports the limits reached; nextCycle resets the cycle', () => {
    let c = cycleContext({ stuck: verdict });
    c = apply(c, tickTracker(c));
    c = apply(c, tickTracker(c));
    expect(c.limitViolations).toEqual(['max-stuck']);
    expect(c.tracker.cycles).toBe(2);
    expect(nextCycle()).toMatchObject({
      current: null,
      stuck: null,
      accepted: [],
      refused: [],
      review: null,
    });
  });

  it('human answers: evidence goes to the stuck target, blank evidence does not count', () => {
    const answer = { now: 8, answer: 'continue-with-evidence', evidence: ['use: omega'] };
    expect(answeredWithEvidence(answer)).toBe(true);
    expect(answeredWithEvidence({ ...answer, evidence: [' '] })).toBe(false);
    expect(answeredWithEvidence({ ...answer, answer: 'stop' })).toBe(false);
    const stuckHandoff = { ...workerHandoff('stuck'), target: 'B.lean:1' };
    const u = absorbHumanEvidence(cycleContext({ stuckHandoff }), answer);
    expect(u.evidenceFor).toEqual({ 'B.lean:1': ['use: omega'] });
    expect(u.log).toEqual(['human: new evidence for B.lean:1']);
    expect(absorbHuman(cycleContext({ now: 9 }), answer)).toEqual({ humanAnswer: answer, now: 9 });
  });
});

describe('how the run ends', () => {
  it('stop details name the phase, the worker outcome or the refusal', () => {
    expect(stopFor('user-stop').pendingStop).toEqual({ reason: 'user-stop', detail: null });
    const custody = cycleContext({ lastWork: violation('custody-violation', 'A.lean changed') });
    expect(workStop(custody, { reason: 'protocol-error', prefix: 'custody violation' }).pendingStop).toEqual({
      reason: 'protocol-error',
      detail: 'custody violation: A.lean changed',
    });
    const handoff = cycleContext({ lastWork: handoffOutcome(workerHandoff('stuck')) });
    expect(workStop(handoff, { reason: 'protocol-error', prefix: 'p' }).pendingStop?.detail).toBe('p');
    expect(errorStop({ phase: 'worker', error: new Error('boom') }).pendingStop).toEqual({
      reason: 'operational-error',
      detail: 'worker failed: Error: boom',
    });
    expect(errorStop({ phase: 'human', error: undefined }).pendingStop?.detail).toBe(
      'human failed: unknown error',
    );
    expect(
      checkpointStop({ now: 0, committed: false, commit: null, message: '', refused: 'late' }).pendingStop,
    ).toEqual({ reason: 'protocol-error', detail: 'custody violation at checkpoint: late' });
  });

  it('limitStop prefers max-stuck; finalizeStopped on max-stuck carries the blocker fields', () => {
    expect(limitStop({ limitViolations: ['max-cycles', 'max-stuck'] }).pendingStop?.reason).toBe('max-stuck');
    expect(limitStop({ limitViolations: ['max-runtime'] }).pendingStop?.reason).toBe('max-runtime');
    const c = cycleContext({
      lastStuck: verdict,
      handoffs: [workerHandoff('stuck')],
      pendingStop: { reason: 'max-stuck', detail: null },
    });
    const final = finalizeStopped(c).final;
    expect(final).toMatchObject({
      status: 'stopped',
      stop_reason: 'max-stuck',
      blocker_signature: verdict.signature,
    });
    expect(validateHandoff(final).ok).toBe(true);
  });

  it('finalizeStuck takes the wrapped handoff (or the refused target’s) and the formalize override', () => {
    const blocked = { [T1.id]: workerHandoff('stuck') };
    const f = finalizeStuck(cycleContext({ blocked, refused: [T1.id], nextActionOverride: 'redraft' })).final;
    expect(f).toMatchObject({
      status: 'stuck',
      blocker_signature: 'A.lean:2:omega failed',
      next_action: 'redraft',
    });
    expect(validateHandoff(f).ok).toBe(true);
  });

  it('runOutput is the recorded final, or an operational-error record when none was recorded', () => {
    const c = cycleContext();
    const solved = { ...c, final: { ...workerHandoff('solved'), target: '.' } };
    expect(runOutput(solved)).toBe(solved.final);
    expect(runOutput(c)).toMatchObject({
      status: 'stopped',
      stop_reason: 'operational-error',
      stop_detail: 'the cycle ended without a final record',
    });
  });
});

describe('actor inputs and routes', () => {
  it('the worker gets the prior blocker and relaunch evidence only for a blocked target', () => {
    const blocked = { [T1.id]: workerHandoff('stuck') };
    const c = cycleContext({ blocked, evidenceFor: { [T1.id]: ['use: omega'] } });
    expect(workerInput(c)).toMatchObject({
      target: T1,
      cycle: 1,
      priorBlocker: 'A.lean:2:omega failed',
      evidenceDelta: ['use: omega'],
      searchBudget: 2,
      budget: { max_cycles: 3, max_stuck_cycles: 2 },
    });
    expect(workerInput(cycleContext({ evidenceFor: { [T1.id]: ['x'] } })).evidenceDelta).toEqual([]);
    const spent = cycleContext();
    const oneLeft = { ...spent, tracker: recordKwSearch(recordKwSearch(spent.tracker)) };
    expect(workerInput(oneLeft).searchBudget).toBe(1);
    expect(() => workerInput(cycleContext({ current: null }))).toThrow(/after choosing a target/);
  });

  it('planner, checkpointer, reviewer and diagnostics requests come from the context', () => {
    const c = cycleContext({
      stuck: verdict,
      accepted: [FILE],
      lastWork: handoffOutcome(workerHandoff('solved')),
    });
    expect(plannerInput(c, 'plan')).toMatchObject({
      kind: 'plan',
      stuck: null,
      review: null,
      searchBudget: 3,
    });
    expect(plannerInput(c, 'replan').stuck).toBe(verdict);
    expect(checkpointInput(c)).toEqual({
      cycle: 1,
      files: [FILE],
      summary: 'cycle 1: A.lean:2 solved',
      commit: 'auto',
    });
    expect(reviewInput(c)).toMatchObject({ mode: 'stuck', scope: 'file', file: 'A.lean', stuck: verdict });
    expect(stuckReviewInput({ ...c, lastStuck: verdict }).cycle).toBe(0);
    expect(diagnosticsRequest({ kind: 'checkpoint' })).toEqual({
      question: 'checkpoint',
      tier: 'project',
      maxTier: 'project',
      files: [],
    });
    expect(
      verifyRequest({ ...c, lastWork: handoffOutcome(workerHandoff('solved'), { importsChanged: true }) }),
    ).toEqual({
      question: 'edit',
      tier: 'file-deps',
      maxTier: 'module',
      files: ['A.lean'],
    });
    expect(blockerQuestion({ stuckHandoff: workerHandoff('stuck') }).summary).toBe(
      'A.lean:2 is stuck: A.lean:2:omega failed',
    );
  });

  it('routes: planning, verification and the checkpoint are skipped exactly when they should be', () => {
    expect(planningSkipped(cycleContext())).toBe(false);
    expect(planningSkipped(cycleContext({ plannedCycle: 1 }))).toBe(true);
    expect(planningSkipped(cycleContext({}, { planning: 'off' }))).toBe(true);
    expect(planningSkipped(cycleContext({ current: { ...T1, goal: 'sorry -- hint: rfl' } }))).toBe(true);
    expect(nothingToVerify(cycleContext({ lastWork: handoffOutcome(workerHandoff('stuck')) }))).toBe(true);
    // a solved claim is verified even when it changed nothing
    const claim = handoffOutcome(workerHandoff('solved'), { accepted: [] });
    expect(nothingToVerify(cycleContext({ lastWork: claim }))).toBe(false);
    expect(checkpointSkipped(cycleContext({ accepted: [FILE] }))).toBe(false);
    expect(checkpointSkipped(cycleContext({ accepted: [] }))).toBe(true);
    expect(checkpointSkipped(cycleContext({ accepted: [FILE] }, { commit: 'never' }))).toBe(true);
    const blocked = { [T1.id]: workerHandoff('stuck') };
    expect(relaunchForbidden(cycleContext({ blocked }))).toBe(true);
    expect(relaunchForbidden(cycleContext({ blocked, evidenceFor: { [T1.id]: ['use: omega'] } }))).toBe(
      false,
    );
  });
});
