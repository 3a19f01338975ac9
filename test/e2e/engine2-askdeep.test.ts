/**
 * prove's `work.askDeep` end to end (docs/cycle.md "Engine II": prove with `--deep=ask` and the
 * target stuck → the human answers deep / skip / stop): `handoff run` from dist/ on a real git
 * project, the engine-II fixture worker as a real child process, and the interactive human port
 * (answers typed on stdin, each question printed on stderr) so the order of questions is part of
 * what is checked: the human is asked before any deep dispatch; `deep` runs deep mode (snapshot,
 * deep worker, then accepted + committed or rolled back byte for byte, as the checks say); `skip`
 * runs no deep pass — and a stuck review answering `next_action: deep` afterwards does not
 * override the human either.
 */
import { describe, expect, it } from 'vitest';
import { cycleLines, FALSE_THM, runEngine2 } from './fixtures/engine2-run.js';

const STUCK = [
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'stuck: same blocker on two consecutive attempts: H.lean:2:omega failed',
];
const Q = {
  plan: '? approve-plan: plan: 1 open target(s); next H.lean:2',
  cont1: '? continue: cycle 1 done; 1 open target(s) before it',
  deep: '? approve-deep: H.lean:2 is stuck: same blocker on two consecutive attempts: H.lean:2:omega failed — enter deep mode?',
};
const DEEP_BUDGET = {
  deep_budget: {
    scope: 'target',
    max_files: 1,
    max_lines: 120,
    sorry_budget: 1,
    time_budget: '10m',
    files: ['H.lean'],
  },
};

describe('prove --deep=ask: the human is asked before deep mode runs', { timeout: 120_000 }, () => {
  it('"deep" → snapshot, deep worker, accepted (improved) and committed after the human’s commit', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_DEEP: 'solve' },
      args: ['--deep', 'ask'],
      stdin: ['approve', 'continue', 'approve', 'deep', 'commit', 'approve', 'continue'],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([
      Q.plan,
      Q.cont1,
      Q.plan,
      Q.deep,
      expect.stringMatching(/^\? approve-commit: commit \S+\/H\.lean$/),
      '? approve-replan: plan: replan after review; 1 open target(s)',
      '? continue: cycle 2 done; 1 open target(s) before it',
    ]);
    expect(cycleLines(r)).toEqual([
      ...STUCK,
      'deep: entering on H.lean:2 — H.lean',
      'deep: snapshot snap-1 of H.lean',
      'work: H.lean:2 → solved',
      'verify (file-fast): H.lean:2 confirmed',
      'deep: accepted on H.lean:2 (improved)',
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 solved \([0-9a-f]{8}\)$/),
      'review: reviewed file H.lean: continue with the plan',
      'plan: replan after review; 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'deep']);
    // the human's yes is the deep pass's authority: no review evidence rides along
    expect(r.dispatches[2]).toEqual({
      role: 'deep',
      target: 'H.lean:2',
      evidence_delta: [],
      role_parameters: DEEP_BUDGET,
    });
    expect(r.gitLog).toEqual(['checkpoint: cycle 2: H.lean:2 solved', 'init']);
    expect(r.committed['H.lean']).toBe('theorem h (n : Nat) : n * n ≥ 2 * n := by\n  omega\n');
    expect(r.status).toBe('');
    expect(r.handoff).toMatchObject({ status: 'solved', blocker_signature: null });
  });

  it('"deep" with a regressing pass → rolled back byte for byte, stuck, nothing committed', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_DEEP: 'regress' },
      args: ['--deep', 'ask'],
      stdin: ['approve', 'continue', 'approve', 'deep', 'approve', 'stop'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.questions).toEqual([
      Q.plan,
      Q.cont1,
      Q.plan,
      Q.deep,
      '? approve-replan: plan: replan after stuck H.lean:2 (deep-rollback); 1 open target(s)',
      '? blocker: H.lean:2 is stuck: H.lean:2:deep rollback',
    ]);
    expect(cycleLines(r)).toEqual([
      ...STUCK,
      'deep: entering on H.lean:2 — H.lean',
      'deep: snapshot snap-1 of H.lean',
      'work: H.lean:2 → solved',
      'verify (file-fast): H.lean:2 not confirmed — H.lean:2 still open',
      'deep: rolled back H.lean — deep: regression — sorry count +1',
      'stuck: deep: regression — sorry count +1',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'review (stuck): needs-helper-lemma — next_action stop',
      'plan: replan after stuck H.lean:2 (deep-rollback); 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'deep']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
    expect(r.status).toBe('');
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_signature: 'H.lean:2:deep rollback',
      files_changed: [],
      next_action: 'stop',
    });
  });

  it('"skip" → no deep pass; the stuck review’s next_action deep does not override the human', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_DEEP: 'solve' },
      args: ['--deep', 'ask'],
      stdin: ['approve', 'continue', 'approve', 'skip', 'approve', 'stop'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.questions).toEqual([
      Q.plan,
      Q.cont1,
      Q.plan,
      Q.deep,
      '? approve-replan: plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      '? blocker: H.lean:2 is stuck: H.lean:2:omega failed',
    ]);
    expect(cycleLines(r)).toEqual([
      ...STUCK,
      'checkpoint: No changes this cycle — skipping checkpoint',
      // the built-in reviewer proposes deep (a stubborn proof blocker, deep available) …
      'review (stuck): arithmetic — next_action deep',
      // … but the human said skip: no `router: H.lean:2 → deep`, no deep dispatch
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'arithmetic',
      blocker_signature: 'H.lean:2:omega failed',
    });
  });

  it('"skip", then the human’s own review-stuck whose review says deep → deep runs (the human asked for it)', async () => {
    const r = await runEngine2({
      mode: 'prove',
      reviewer: true,
      env: { E2_DEEP: 'solve', E2_NEXT: 'continue,deep' },
      args: ['--deep', 'ask'],
      stdin: [
        'approve',
        'continue',
        'approve',
        'skip',
        'approve',
        'review-stuck',
        'commit',
        'approve',
        'continue',
      ],
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.questions).toEqual([
      Q.plan,
      Q.cont1,
      Q.plan,
      Q.deep,
      '? approve-replan: plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      '? blocker: H.lean:2 is stuck: H.lean:2:omega failed',
      expect.stringMatching(/^\? approve-commit: commit \S+\/H\.lean$/),
      '? approve-replan: plan: replan after review; 1 open target(s)',
      '? continue: cycle 3 done; 1 open target(s) before it',
    ]);
    expect(cycleLines(r)).toEqual([
      ...STUCK,
      'checkpoint: No changes this cycle — skipping checkpoint',
      'review (stuck): arithmetic — next_action continue',
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      'review (stuck): arithmetic — next_action deep',
      'router: H.lean:2 → deep',
      'deep: entering on H.lean:2 — H.lean',
      'deep: snapshot snap-1 of H.lean',
      'work: H.lean:2 → solved',
      'verify (file-fast): H.lean:2 confirmed',
      'deep: accepted on H.lean:2 (improved)',
      expect.stringMatching(/^checkpoint: cycle 3: H\.lean:2 solved \([0-9a-f]{8}\)$/),
      'review: done',
      'plan: replan after review; 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'deep']);
    expect(r.dispatches[2]?.evidence_delta).toEqual(['stuck review: next_action deep']);
    expect(r.gitLog).toEqual(['checkpoint: cycle 3: H.lean:2 solved', 'init']);
    expect(r.handoff.status).toBe('solved');
  });

  it('"stop" → the run stops at the question: no deep pass, nothing committed', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_DEEP: 'solve' },
      args: ['--deep', 'ask'],
      stdin: ['approve', 'continue', 'approve', 'stop'],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(r.questions).toEqual([Q.plan, Q.cont1, Q.plan, Q.deep]);
    expect(cycleLines(r)).toEqual(STUCK);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'user-stop' });
  });

  it('--deep=never (prove’s default) never asks', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_DEEP: 'solve' },
      stdin: ['approve', 'continue', 'approve', 'approve', 'stop'],
    });
    expect(r.questions).not.toContain(Q.deep);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
  });
});
