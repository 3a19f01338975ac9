/**
 * The falsify pass through `handoff run` (real worker, real git): its artifacts are named after
 * the target's declaration (seed: `T_counterexample`, `T_salvaged`), and the target's
 * `false-statement` blocker keeps its kind through the pass (issue 13: non-proof blockers keep
 * their kind) — the pass's `solved` only says its artifacts were produced.
 */
import { describe, expect, it } from 'vitest';
import { runEngine2 } from './fixtures/engine2-run.js';

describe('the falsify pass: artifact names and the blocker it leaves', { timeout: 120_000 }, () => {
  it('the falsify dispatch names the artifacts after the theorem (seed: T_counterexample, T_salvaged)', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      env: { E2_FILL: 'false', E2_FALSIFY: 'counterexample-named' },
    });
    const f = r.dispatches.find((d) => d.role === 'falsify');
    expect(
      (f?.role_parameters as { falsification?: { artifacts?: string[] } } | undefined)?.falsification
        ?.artifacts,
    ).toEqual(['h_counterexample', 'h_salvaged']);
  });

  it('a false-statement blocker keeps its kind through the falsify pass (issue 13: non-proof blockers keep their kind)', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      env: { E2_FILL: 'false', E2_FALSIFY: 'counterexample' },
    });
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_kind: 'false-statement',
      blocker_class: null,
      blocker_signature: 'H.lean:2:statement is false for n = 0',
    });
  });
});
