import { describe, expect, it } from 'vitest';
import { validateHandoff } from '../../src/contract/index.js';
import { stuckBlocker, wrapStuckHandoff } from '../../src/cycle/final-handoff.js';
import type { ReviewOutput, StuckVerdict } from '../../src/cycle/types.js';
import { CODE_BLOCKER_CLASSES } from '../../src/profile/index.js';
import { builtinReviewer } from '../../src/runtime/builtin-ports.js';
import { cycleContext, T1, workerHandoff } from './fixture.js';

const verdict: StuckVerdict = {
  target: T1.id,
  condition: 'repeated-failure',
  signature: 'A.lean:2:no search tool',
  detail: 'same blocker on two consecutive attempts: A.lean:2:no search tool',
};

function review(primaryBlocker: string | null): ReviewOutput {
  return {
    now: 0,
    mode: 'stuck',
    primaryBlocker,
    topBlockers: [],
    evidence: [],
    falsification: false,
    nextAction: 'stop',
    suggestions: [],
  };
}

const capability = workerHandoff('stuck', {
  blocker_kind: 'capability',
  blocker_class: null,
  blocker_signature: 'A.lean:2:no search tool',
});

describe('the stuck review keeps non-proof blocker kinds (stuckBlocker)', () => {
  it('a worker capability blocker stays capability, even when the review names a proof class', () => {
    expect(stuckBlocker(review('needs helper lemma'), capability, 'repeated-failure')).toEqual({
      kind: 'capability',
      cls: null,
    });
    expect(stuckBlocker(null, capability, 'no-progress')).toEqual({ kind: 'capability', cls: null });
  });

  it('every non-proof kind survives unchanged', () => {
    for (const kind of [
      'capability',
      'false-statement',
      'safety-guard',
      'protocol',
      'operational',
    ] as const) {
      const h = { ...capability, blocker_kind: kind };
      expect(stuckBlocker(review('arithmetic'), h, 'repeated-failure')).toEqual({ kind, cls: null });
    }
  });

  it('a proof blocker is classified by the review, then the worker, then the fallback', () => {
    const proof = workerHandoff('stuck');
    expect(stuckBlocker(review('missing library lemma'), proof, 'repeated-failure')).toEqual({
      kind: 'proof',
      cls: 'missing-library-lemma',
    });
    expect(stuckBlocker(null, proof, 'repeated-failure')).toEqual({ kind: 'proof', cls: 'arithmetic' });
    expect(stuckBlocker(null, null, 'no-progress')).toEqual({ kind: 'proof', cls: 'needs-helper-lemma' });
  });

  it('a fence violation is a safety guard whatever the worker said', () => {
    expect(stuckBlocker(review('arithmetic'), workerHandoff('stuck'), 'fence-violation')).toEqual({
      kind: 'safety-guard',
      cls: null,
    });
  });

  it("a domain profile's phrases map a review's words to the record's classes", () => {
    const proof = workerHandoff('stuck', { blocker_class: 'needs-helper-lemma' });
    expect(stuckBlocker(review('Type error'), proof, 'repeated-failure', CODE_BLOCKER_CLASSES)).toEqual({
      kind: 'proof',
      cls: 'typeclass-coercion-elaboration',
    });
  });
});

describe('wrapStuckHandoff with a capability blocker', () => {
  it('keeps blocker_kind capability, no class, and the record validates', () => {
    const ctx = cycleContext({ handoffs: [capability] });
    const h = wrapStuckHandoff(ctx, verdict, review('needs helper lemma'));
    expect(h.blocker_kind).toBe('capability');
    expect(h.blocker_class).toBeNull();
    expect(validateHandoff(h).ok).toBe(true);
  });

  it('the built-in stuck review names the kind, and the wrapped record keeps it', async () => {
    const out = await builtinReviewer().review({
      mode: 'stuck',
      scope: 'sorry',
      file: 'A.lean',
      line: 2,
      cycle: 1,
      lastHandoff: capability,
      stuck: verdict,
    } as never);
    expect(out.primaryBlocker).toBe('capability');
    const h = wrapStuckHandoff(cycleContext({ handoffs: [capability] }), verdict, { ...out, now: 0 });
    expect([h.blocker_kind, h.blocker_class]).toEqual(['capability', null]);
  });

  it('a proof blocker is wrapped as before', () => {
    const h = wrapStuckHandoff(cycleContext({ handoffs: [workerHandoff('stuck')] }), verdict, null);
    expect([h.blocker_kind, h.blocker_class]).toEqual(['proof', 'arithmetic']);
  });
});
