import { describe, expect, it } from 'vitest';
import { rerunGuard, sameTask } from '../../src/contract/index.js';
import { canonicalDispatch, solvedHandoff, stoppedHandoff, stuckHandoff } from './fixtures.js';

const relaunch = (over: Partial<ReturnType<typeof canonicalDispatch>> = {}) => ({
  ...canonicalDispatch(),
  prior_blocker: stuckHandoff().blocker_signature,
  ...over,
});

describe('rerun guard: blocker branch', () => {
  it('forbids the same task on the same blocker with no new evidence', () => {
    const v = rerunGuard(relaunch(), stuckHandoff());
    expect(v).toMatchObject({ forbidden: true, branch: 'blocker' });
    expect(v.required_evidence).toBe(stuckHandoff().new_evidence_required_for_rerun);
  });

  it('allows it with a non-empty evidence_delta', () => {
    expect(
      rerunGuard(relaunch({ evidence_delta: ['20260101T000000Z-0123abcd#4'] }), stuckHandoff()).forbidden,
    ).toBe(false);
  });

  it('allows a different prior_blocker (a first dispatch carries null)', () => {
    expect(rerunGuard(canonicalDispatch(), stuckHandoff()).forbidden).toBe(false);
    expect(rerunGuard(relaunch({ prior_blocker: 'Other.lean:1:x' }), stuckHandoff()).forbidden).toBe(false);
  });

  it.each([
    ['target', { target: 'Mathlib/Foo.lean:43' }],
    ['scope', { scope: 'file' as const }],
    ['mode', { mode: 'autoprove' as const }],
  ])('treats a different %s as a different task', (_f, over) => {
    const v = rerunGuard(relaunch(over), stuckHandoff());
    expect(v.forbidden).toBe(false);
    expect(v.branch).toBe('unrelated-task');
  });

  it('never forbids on null == null: non-blocker stops rerun freely', () => {
    for (const r of ['queue-empty', 'max-cycles', 'max-runtime', 'user-stop'] as const) {
      const v = rerunGuard({ ...canonicalDispatch(), prior_blocker: null }, stoppedHandoff(r));
      expect(v, r).toMatchObject({ forbidden: false, branch: 'free' });
    }
    expect(rerunGuard({ ...canonicalDispatch(), prior_blocker: null }, solvedHandoff()).forbidden).toBe(
      false,
    );
  });

  it('forbids after a max-stuck stop on the same blocker', () => {
    expect(rerunGuard(relaunch(), stoppedHandoff('max-stuck')).forbidden).toBe(true);
  });
});

describe('rerun guard: operational/protocol branch', () => {
  it('forbids relaunching the same task after an operational stop without evidence', () => {
    const v = rerunGuard(canonicalDispatch(), stoppedHandoff('operational-error'));
    expect(v).toMatchObject({ forbidden: true, branch: 'operational' });
    expect(v.required_evidence).toContain('operational-error happened');
  });

  it('allows it when the evidence_delta says how the stop was resolved', () => {
    const v = rerunGuard(
      { ...canonicalDispatch(), evidence_delta: ['checker restored'] },
      stoppedHandoff('operational-error'),
    );
    expect(v).toMatchObject({ forbidden: false, branch: 'operational' });
  });

  it('is scoped to the same task when the prior identity is known', () => {
    const v = rerunGuard({ ...canonicalDispatch(), target: 'Other.lean' }, stoppedHandoff('protocol-error'));
    expect(v).toMatchObject({ forbidden: false, branch: 'unrelated-task' });
  });

  it('applies to any retry when the prior identity is unknown (malformed dispatch)', () => {
    const prior = {
      ...stoppedHandoff('protocol-error'),
      target: null,
      scope: null,
      mode: null,
      file_baseline: null,
    };
    expect(rerunGuard({ ...canonicalDispatch(), target: 'Anything.lean' }, prior).forbidden).toBe(true);
    expect(
      rerunGuard({ ...canonicalDispatch(), evidence_delta: ['dispatch corrected'] }, prior).forbidden,
    ).toBe(false);
  });

  it('ignores a matching blocker signature on an operational stop (operational branch first)', () => {
    const prior = { ...stoppedHandoff('operational-error') };
    const v = rerunGuard({ ...canonicalDispatch(), evidence_delta: ['baseline reconciled'] }, prior);
    expect(v.branch).toBe('operational');
  });
});

describe('sameTask', () => {
  it('compares target, scope and mode', () => {
    expect(sameTask(canonicalDispatch(), stuckHandoff())).toBe(true);
    expect(sameTask({ ...canonicalDispatch(), mode: 'golf' }, stuckHandoff())).toBe(false);
  });
});
