/**
 * The review router end to end (docs/cycle.md "The review router"; seed 002 § Review Router;
 * lean4-contracts §8): autoprove `handoff run` from dist/ on a real git project with a reviewer
 * command (`--reviewer`, the engine-II fixture reviewer) whose stuck review answers one
 * `next_action`, and the engine-II fixture worker, both real child processes.
 *   continue / stop / redraft (no outer loop: informational) → no route: the replan goes on to the
 *     next target, the stuck one stays blocked (the rerun guard refuses it), the run ends stuck;
 *   deep → `router: H.lean:2 → deep`, one routed deep dispatch carrying the review's decision, its
 *     verified work checkpointed;
 *   repair → `router: H.lean:2 → repair`, a patch-only repair dispatch, the runtime applies the
 *     diff, improvement accepted and checkpointed;
 *   a hostile reviewer's unknown next_action → a protocol refusal, never a route.
 */
import { describe, expect, it } from 'vitest';
import { cycleLines, FALSE_PROJECT, FALSE_THM, runEngine2 } from './fixtures/engine2-run.js';

/** H.lean:2 (stubborn) first in plan order, then an easy target. */
const TWO = { ...FALSE_PROJECT, 'Z.lean': 'theorem z : 1 = 1 := by\n  sorry -- hint: rfl\n' };
const STUCK_H = [
  'plan: 2 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'plan: 2 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'stuck: same blocker on two consecutive attempts: H.lean:2:omega failed',
  'checkpoint: No changes this cycle — skipping checkpoint',
];

describe('autoprove --reviewer: a stuck review’s next_action routes the run', { timeout: 120_000 }, () => {
  it.each(['continue', 'stop', 'redraft'] as const)(
    'next_action %s: no route; the replan moves on to the next target; the stuck one stays blocked',
    async (next) => {
      const r = await runEngine2({
        mode: 'autoprove',
        files: TWO,
        reviewer: true,
        env: { E2_FILL: 'easy', E2_NEXT: next },
        args: ['--deep', 'never', '--batch-size', '1'],
      });
      expect(r.code, r.stderr).toBe(3);
      expect(cycleLines(r)).toEqual([
        ...STUCK_H,
        `review (stuck): arithmetic — next_action ${next}`,
        'plan: replan after stuck H.lean:2 (repeated-failure); 2 open target(s)',
        'work: Z.lean:2 → solved',
        'verify (file-fast): Z.lean:2 confirmed',
        expect.stringMatching(/^checkpoint: cycle 3: Z\.lean:2 solved \([0-9a-f]{8}\)$/),
        'review: done',
        'plan: replan after review; 2 open target(s)',
        'plan: 1 open target(s); next H.lean:2',
        'guard: relaunch of H.lean:2 refused — same task on the same blocker (H.lean:2:omega failed) with an empty evidence_delta',
      ]);
      expect(r.lines.some((l) => l.startsWith('router:'))).toBe(false);
      expect(r.reviews).toEqual([
        { mode: 'stuck', target: 'H.lean:2' },
        { mode: 'normal', target: null },
      ]);
      expect(r.dispatches.map((d) => `${d.role} ${d.target}`)).toEqual([
        'fill H.lean:2',
        'fill H.lean:2',
        'fill Z.lean:2',
      ]);
      expect(r.gitLog).toEqual(['checkpoint: cycle 3: Z.lean:2 solved', 'init']);
      expect(r.files['H.lean']).toBe(FALSE_THM);
      expect(r.handoff).toMatchObject({
        status: 'stuck',
        blocker_kind: 'proof',
        blocker_class: 'arithmetic',
        blocker_signature: 'H.lean:2:omega failed',
        // the final record carries the review's next_action (redraft: informational, no outer loop)
        next_action: next,
      });
    },
  );

  it('next_action deep: a second, routed deep pass after a rollback is accepted and checkpointed', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      reviewer: true,
      env: { E2_NEXT: 'deep', E2_DEEP: 'regress-then-solve' },
      args: ['--max-deep-per-cycle', '2'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(cycleLines(r)).toEqual([
      'plan: 1 open target(s); next H.lean:2',
      'work: H.lean:2 → stuck',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'plan: 1 open target(s); next H.lean:2',
      'work: H.lean:2 → stuck',
      'stuck: same blocker on two consecutive attempts: H.lean:2:omega failed',
      // the escalation's own deep pass (--deep=stuck) regresses and is rolled back
      'deep: entering on H.lean:2 — H.lean',
      'deep: snapshot snap-1 of H.lean',
      'work: H.lean:2 → solved',
      'verify (file-fast): H.lean:2 not confirmed — H.lean:2 still open',
      'deep: rolled back H.lean — deep: regression — sorry count +1',
      'stuck: deep: regression — sorry count +1',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'review (stuck): arithmetic — next_action deep',
      'router: H.lean:2 → deep',
      'deep: entering on H.lean:2 — H.lean',
      'deep: snapshot snap-2 of H.lean',
      'work: H.lean:2 → solved',
      'verify (file-fast): H.lean:2 confirmed',
      'deep: accepted on H.lean:2 (improved)',
      // before the fix in markRouted this was "No changes this cycle" and the run ended solved
      // with the verified proof left uncommitted in the working tree
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 solved \([0-9a-f]{8}\)$/),
      'review: done',
      'plan: replan after review; 1 open target(s)',
    ]);
    const deep = r.dispatches.filter((d) => d.role === 'deep');
    expect(deep.map((d) => d.evidence_delta)).toEqual([
      [],
      ['stuck review: next_action deep', 'reviewer says deep'],
    ]);
    expect(r.gitLog).toEqual(['checkpoint: cycle 2: H.lean:2 solved', 'init']);
    expect(r.committed['H.lean']).toBe('theorem h (n : Nat) : n * n ≥ 2 * n := by\n  omega\n');
    expect(r.status).toBe('');
    expect(r.handoff.status).toBe('solved');
  });

  it('next_action deep under --deep=never: the review cannot override the user, no deep pass', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      reviewer: true,
      env: { E2_NEXT: 'deep', E2_DEEP: 'solve' },
      args: ['--deep', 'never'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.lines).toContain('review (stuck): arithmetic — next_action deep');
    expect(r.lines.some((l) => l.startsWith('router:') || l.startsWith('deep:'))).toBe(false);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
  });

  it('next_action repair: the patch-only worker’s diff is applied by the runtime, improved, checkpointed', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      reviewer: true,
      env: { E2_NEXT: 'repair', E2_FILL: 'error-third' },
      args: ['--deep', 'never'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(cycleLines(r)).toEqual([
      'plan: 1 open target(s); next H.lean:2',
      'work: H.lean:2 → stuck',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'plan: 1 open target(s); next H.lean:2',
      'work: H.lean:2 → stuck',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'plan: 1 open target(s); next H.lean:2',
      'work: H.lean:2 → stuck',
      'verify (file-fast): H.lean checked (stuck claim)',
      'stuck: failed 3 times with no new approach',
      'checkpoint: skipped (gate failed or checkpoint off)',
      'review (stuck): arithmetic — next_action repair',
      'router: H.lean:2 → repair',
      "repair: H.lean:2 — review router: H.lean:2:unknown identifier 'foo'",
      'repair: patch applied to H.lean',
      "repair: H.lean:2:unknown identifier 'foo' — improved (1 → 0 errors)",
      'repair: H.lean:2 improved — accepted H.lean',
      expect.stringMatching(/^checkpoint: cycle 3: H\.lean:2 repaired \([0-9a-f]{8}\)$/),
      'review: done',
      'plan: replan after review; 1 open target(s)',
    ]);
    const repair = r.dispatches.filter((d) => d.role === 'repair');
    expect(repair).toEqual([
      {
        role: 'repair',
        target: 'H.lean:2',
        evidence_delta: ['stuck review: next_action repair', 'reviewer says repair'],
        role_parameters: {
          repair: {
            error: "H.lean:2:unknown identifier 'foo'",
            signature: "H.lean:2:unknown identifier 'foo'",
            errors_in_scope: ["H.lean:2:unknown identifier 'foo'"],
            trigger: 'review router',
          },
        },
      },
    ]);
    expect(r.gitLog).toEqual(['checkpoint: cycle 3: H.lean:2 repaired', 'init']);
    expect(r.committed['H.lean']).toBe('theorem h (n : Nat) : n * n ≥ 2 * n := by\n  omega\n');
    expect(r.status).toBe('');
    expect(r.handoff.status).toBe('solved');
  });

  it('hostile reviewer: an unknown next_action is refused (operational stop), never routed', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      reviewer: true,
      env: { E2_NEXT: 'hostile', E2_DEEP: 'solve' },
      args: ['--deep', 'never'],
    });
    expect(r.code).toBe(4);
    expect(r.lines).toContain(
      'run unpersisted: stopped (operational-error) — review failed: HandoffError: review response: Invalid option: expected one of "continue"|"deep"|"repair"|"redraft"|"golf"|"stop"',
    );
    expect(r.lines.some((l) => l.startsWith('router:'))).toBe(false);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
  });
});

describe('prove: the human’s review-stuck routes through boundary.stuckRoute', { timeout: 120_000 }, () => {
  it('the automatic stuck review says continue; on review-stuck the second says repair → routed repair, human commits', async () => {
    const r = await runEngine2({
      mode: 'prove',
      reviewer: true,
      env: { E2_NEXT: 'continue,repair', E2_FILL: 'error-third' },
      stdin: [
        'approve',
        'continue',
        'approve',
        'continue',
        'approve',
        'approve',
        'review-stuck',
        'commit',
        'approve',
        'continue',
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([
      '? approve-plan: plan: 1 open target(s); next H.lean:2',
      '? continue: cycle 1 done; 1 open target(s) before it',
      '? approve-plan: plan: 1 open target(s); next H.lean:2',
      '? continue: cycle 2 done; 1 open target(s) before it',
      '? approve-plan: plan: 1 open target(s); next H.lean:2',
      '? approve-replan: plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      '? blocker: H.lean:2 is stuck: H.lean:2:omega failed (3)',
      expect.stringMatching(/^\? approve-commit: commit \S+\/H\.lean$/),
      '? approve-replan: plan: replan after review; 1 open target(s)',
      '? continue: cycle 4 done; 1 open target(s) before it',
    ]);
    expect(cycleLines(r).slice(11)).toEqual([
      'review (stuck): arithmetic — next_action continue',
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      'review (stuck): arithmetic — next_action repair',
      'router: H.lean:2 → repair',
      "repair: H.lean:2 — review router: H.lean:2:unknown identifier 'foo'",
      'repair: patch applied to H.lean',
      "repair: H.lean:2:unknown identifier 'foo' — improved (1 → 0 errors)",
      'repair: H.lean:2 improved — accepted H.lean',
      expect.stringMatching(/^checkpoint: cycle 4: H\.lean:2 repaired \([0-9a-f]{8}\)$/),
      'review: done',
      'plan: replan after review; 1 open target(s)',
    ]);
    expect(r.reviews.map((x) => x.mode)).toEqual(['stuck', 'stuck', 'normal']);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'fill', 'repair']);
    expect(r.dispatches[3]?.evidence_delta[0]).toBe('stuck review: next_action repair');
    expect(r.gitLog).toEqual(['checkpoint: cycle 4: H.lean:2 repaired', 'init']);
    expect(r.committed['H.lean']).toBe('theorem h (n : Nat) : n * n ≥ 2 * n := by\n  omega\n');
    expect(r.handoff.status).toBe('solved');
  });
});
