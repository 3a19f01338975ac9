/**
 * Engine II reducers and guards on the fixture context: escalation, the review route, the
 * files a verification covers, the pre-flight context, the repair trigger's gate history, stuck
 * rule 2 on real repair attempts, and checkpoint inputs that never stage rolled-back files.
 */
import { describe, expect, it } from 'vitest';
import { checkpointInput, preflightFor, verifyRequest } from '../../src/cycle/actor-inputs.js';
import { escalation } from '../../src/cycle/escalation.js';
import { buildErrorRepeats, repairHandoffValid } from '../../src/cycle/repair-reducers.js';
import { reviewRoute } from '../../src/cycle/review-routing.js';
import { detectStuck } from '../../src/cycle/stuck.js';
import type { StuckVerdict } from '../../src/cycle/types.js';
import { verifiedFiles } from '../../src/cycle/verified-files.js';
import { cycleContext, FILE, handoffOutcome, T1, workerHandoff } from './fixture.js';

const stuck: StuckVerdict = { target: T1.id, condition: 'repeated-failure', signature: 's', detail: 'd' };
const failed = { [T1.id]: [{ cycle: 1, solved: false, signature: 's', snippets: [], emptySearch: false }] };
const review = (nextAction: 'deep' | 'repair' | 'redraft' | 'stop' | 'continue', falsification = false) => ({
  now: 0,
  mode: 'stuck' as const,
  primaryBlocker: null,
  topBlockers: [],
  evidence: [],
  falsification,
  nextAction,
  suggestions: [],
});

describe('escalation after the ordinary pass', () => {
  const base = { lastWork: handoffOutcome(workerHandoff('stuck')), attempts: failed, stuck };
  it('deep when stuck and a snapshot port exists; nothing without one', () => {
    expect(escalation(cycleContext({ ...base, available: { deep: true, repair: false } }))).toBe('deep');
    expect(escalation(cycleContext({ ...base, available: { deep: false, repair: false } }))).toBe('none');
  });
  it('repair first when three distinct errors are in scope and a patcher exists', () => {
    const verifyErrors = { [T1.id]: ['A.lean:3:a', 'A.lean:4:b', 'A.lean:5:c'] };
    expect(escalation(cycleContext({ ...base, verifyErrors, available: { deep: true, repair: true } }))).toBe(
      'repair',
    );
  });
  it('neither repair nor deep for a worker blocker that is not a proof blocker', () => {
    const verifyErrors = { [T1.id]: ['A.lean:3:a', 'A.lean:4:b', 'A.lean:5:c'] };
    for (const kind of [
      'capability',
      'operational',
      'protocol',
      'safety-guard',
      'false-statement',
    ] as const) {
      const lastWork = handoffOutcome(workerHandoff('stuck', { blocker_kind: kind, blocker_class: null }));
      const ctx = cycleContext({ ...base, lastWork, verifyErrors, available: { deep: true, repair: true } });
      expect(escalation(ctx), kind).toBe('none');
    }
  });
  it('never after a deep rollback verdict, nor for a solved target', () => {
    const ctx = cycleContext({
      ...base,
      stuck: { ...stuck, condition: 'deep-rollback' },
      available: { deep: true, repair: true },
    });
    expect(escalation(ctx)).toBe('none');
    const solved = { [T1.id]: [{ ...failed[T1.id]![0]!, solved: true }] };
    expect(
      escalation(cycleContext({ ...base, attempts: solved, available: { deep: true, repair: true } })),
    ).toBe('none');
  });
});

describe('the review route', () => {
  const ctx = (over: object, flags: Record<string, unknown> = {}) =>
    cycleContext({ stuck, available: { deep: true, repair: true }, ...over }, flags);
  it('routes deep, repair, and redraft only with an outer loop; once per target per cycle', () => {
    expect(reviewRoute(ctx({ review: review('deep') }))).toBe('deep');
    expect(reviewRoute(ctx({ review: review('repair') }))).toBe('repair');
    expect(reviewRoute(ctx({ review: review('redraft') }))).toBe('resume');
    expect(
      reviewRoute(ctx({ review: review('redraft'), options: { ...ctx({}).options, outerLoop: true } })),
    ).toBe('outer');
    expect(reviewRoute(ctx({ review: review('deep'), routed: [T1.id] }))).toBe('resume');
  });
  it('a forged next_action cannot override --deep=never; falsification first when flagged (autoprove)', () => {
    expect(reviewRoute(ctx({ review: review('deep'), options: { ...ctx({}).options, deep: 'never' } }))).toBe(
      'resume',
    );
    expect(reviewRoute(ctx({ review: review('deep', true) }))).toBe('falsify');
  });
});

describe('verification and dispatch context', () => {
  it('verifies every file accepted this cycle, the target first; imports changed → file-deps', () => {
    const c = cycleContext({ accepted: [FILE, '/p/B.lean'] });
    expect(verifiedFiles(c)).toEqual(['A.lean', 'B.lean']);
    const w = handoffOutcome(workerHandoff('solved'), { importsChanged: true });
    expect(verifyRequest({ ...c, lastWork: w })).toMatchObject({
      tier: 'file-deps',
      files: ['A.lean', 'B.lean'],
    });
  });
  it('pre-flight context: last errors and each tried snippet once', () => {
    const h = workerHandoff('stuck', {
      evidence: {
        queries: [],
        top_candidates: [],
        attempts: [{ snippet: 'simp', result: 'failed' }],
        goal_delta: null,
        diagnostic_delta: null,
      },
    });
    const p = preflightFor(cycleContext({ handoffs: [h, h], verifyErrors: { [T1.id]: ['A.lean:2:x'] } }));
    expect(p).toEqual({
      diagnostics: ['A.lean:2:x'],
      candidatesTested: [{ snippet: 'simp', result: 'failed' }],
      codeActions: [],
    });
  });
  it('a checkpoint never stages a rolled-back file', () => {
    expect(
      checkpointInput(cycleContext({ accepted: [FILE, '/p/B.lean'], rolledBack: ['A.lean'] })).files,
    ).toEqual(['/p/B.lean']);
  });
});

describe('repair rules in the cycle', () => {
  it('counts consecutive gates sharing an error', () => {
    expect(buildErrorRepeats([['x'], ['y', 'x'], ['x']])).toBe(3);
    expect(buildErrorRepeats([['x'], []])).toBe(0);
  });
  it('a hostile repair handoff that changed files or carries no diff is refused', () => {
    const diff = [{ kind: 'unified-diff', content: '--- a/A.lean\n+++ b/A.lean\n' }];
    expect(repairHandoffValid(handoffOutcome(workerHandoff('stuck', { artifacts: diff })))).toBe(true);
    expect(
      repairHandoffValid(handoffOutcome(workerHandoff('stuck', { artifacts: diff, files_changed: [FILE] }))),
    ).toBe(false);
    expect(repairHandoffValid(handoffOutcome(workerHandoff('stuck')))).toBe(false);
  });
  it('stuck rule 2 fires on a build error still present after two real repair attempts', () => {
    const i = {
      target: T1,
      attempts: [],
      gateErrors: [],
      now: 0,
      lastDecreaseAt: 0,
      openCount: 1,
      stallMinutes: 10,
      maxFailuresPerTarget: 3,
      errors: ['A.lean:3:type mismatch'],
    };
    expect(detectStuck({ ...i, repairAttempts: { 'A.lean:3:type mismatch': 1 } })).toBeNull();
    expect(detectStuck({ ...i, repairAttempts: { 'A.lean:3:type mismatch': 2 } })?.condition).toBe(
      'repeated-build-error',
    );
  });
});
