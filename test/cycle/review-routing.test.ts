/**
 * The review router's cycle reducers (src/cycle/review-routing.ts, src/cycle/falsify-reducers.ts):
 * a review cannot route into deep mode past the prove human's `--deep=ask` (unless the human
 * asked for that review with `review-stuck`), and a routed pass
 * (deep, repair, falsify) after a deep rollback of the same cycle gets its verified work staged —
 * both found by the end-to-end runs of test/e2e/engine2-*.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { checkpointInput } from '../../src/cycle/actor-inputs.js';
import { startFalsify } from '../../src/cycle/falsify-reducers.js';
import { markRouted, reviewRoute } from '../../src/cycle/review-routing.js';
import type { CycleContext, StuckVerdict } from '../../src/cycle/types.js';
import { cycleContext, FILE, T1 } from './fixture.js';

const stuck: StuckVerdict = { target: T1.id, condition: 'deep-rollback', signature: 's', detail: 'd' };
const review = (nextAction: 'deep' | 'repair' | 'continue' | 'stop', falsification = false) => ({
  now: 0,
  mode: 'stuck' as const,
  primaryBlocker: null,
  topBlockers: [],
  evidence: [],
  falsification,
  nextAction,
  suggestions: [],
});
const ctx = (over: Partial<CycleContext>, flags: Record<string, unknown> = {}) =>
  cycleContext({ stuck, available: { deep: true, repair: true }, ...over }, flags);

describe('reviewRoute and the --deep policy', () => {
  it('prove --deep=ask: the human answered at work.askDeep, a review cannot send the target to deep', () => {
    const prove = { mode: 'prove', deep: 'ask' };
    expect(reviewRoute(ctx({ review: review('deep') }, prove))).toBe('resume');
    // the other routes are untouched by the deep policy
    expect(reviewRoute(ctx({ review: review('repair') }, prove))).toBe('repair');
    expect(reviewRoute(ctx({ review: review('continue') }, prove))).toBe('resume');
  });
  it('prove --deep=ask: the human’s own review-stuck (boundary.stuckRoute) lets the review route deep', () => {
    const prove = { mode: 'prove', deep: 'ask' };
    const reviewStuck = { now: 0, answer: 'review-stuck', evidence: [] };
    expect(reviewRoute(ctx({ review: review('deep'), humanAnswer: reviewStuck }, prove))).toBe('deep');
    // a skip at work.askDeep (or any other answer) keeps the review from routing deep
    for (const answer of ['skip', 'approve', 'commit']) {
      const h = { now: 0, answer, evidence: [] };
      expect(reviewRoute(ctx({ review: review('deep'), humanAnswer: h }, prove)), answer).toBe('resume');
    }
  });
  it('autoprove with an uncoerced ask (a library caller): no human was asked, the review routes deep', () => {
    const c = ctx({ review: review('deep') });
    expect(reviewRoute({ ...c, options: { ...c.options, deep: 'ask' } })).toBe('deep');
  });
  it('--deep=stuck and --deep=always still route deep (prove and autoprove)', () => {
    for (const flags of [
      { mode: 'prove', deep: 'stuck' },
      { mode: 'prove', deep: 'always' },
      { mode: 'autoprove' },
    ]) {
      expect(reviewRoute(ctx({ review: review('deep') }, flags)), JSON.stringify(flags)).toBe('deep');
    }
  });
});

describe('a routed pass after a deep rollback of the same cycle', () => {
  const rolledBack = { rolledBack: ['A.lean'], accepted: [] as string[], review: review('deep') };
  it('markRouted clears the rolled-back marks, so the routed pass’s accepted file is staged', () => {
    const c = ctx(rolledBack);
    // before the fix the routed deep pass's verified file was filtered out of the checkpoint
    expect(checkpointInput({ ...c, accepted: [FILE] }).files).toEqual([]);
    const routed = { ...c, ...markRouted(c, { route: 'deep' }) };
    expect(routed.rolledBack).toEqual([]);
    expect(routed.routed).toEqual([T1.id]);
    expect(routed.log.at(-1)).toBe('router: A.lean:2 → deep');
    // nothing is staged until the routed pass is accepted; then exactly its file
    expect(checkpointInput(routed).files).toEqual([]);
    expect(checkpointInput({ ...routed, accepted: [FILE] }).files).toEqual([FILE]);
  });
  it('markRouted without a rollback leaves rolledBack alone (no spurious update)', () => {
    const c = ctx({ review: review('repair') });
    expect('rolledBack' in markRouted(c, { route: 'repair' })).toBe(false);
  });
  it('startFalsify clears the rolled-back marks too', () => {
    const c = ctx({ ...rolledBack, review: review('stop', true) });
    const u = startFalsify(c, { policy: null });
    expect(u.rolledBack).toEqual([]);
    expect(u.log?.at(-1)).toBe('falsify: A.lean:2 — witness search (salvage)');
    expect(checkpointInput({ ...c, ...u, accepted: [FILE] }).files).toEqual([FILE]);
  });
});
