/**
 * Falsification end to end (seed 002 § Stuck → Counterexample / Salvage, § Falsification
 * Artifacts; docs/cycle.md "Falsification"): `handoff run` from dist/ on a real git project with
 * the engine-II fixture worker as a real child process. autoprove: the stuck review flags
 * falsification (the built-in reviewer on a `false-statement` blocker, or a `--reviewer` command
 * raising the flag) and the falsify dispatch runs — a counterexample and a salvage lemma are
 * verified and checkpointed with `h : P := sorry` untouched; a hostile worker proving `¬P` beside
 * the sorry is refused and nothing is committed. prove: after a declined replan the human picks
 * the policy (`--answers`): salvage, negate, skip, stop.
 */
import { describe, expect, it } from 'vitest';
import { cycleLines, FALSE_THM, runEngine2 } from './fixtures/engine2-run.js';

/** The two stuck attempts every run starts with (the fixture worker's `false-statement` blocker). */
const STUCK_FALSE = [
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'stuck: same blocker on two consecutive attempts: H.lean:2:statement is false for n = 0',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'review (stuck): false-statement — next_action stop',
];
/** The same with the ordinary proof blocker (`omega failed`) and the built-in review. */
const STUCK_PROOF = [
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'plan: 1 open target(s); next H.lean:2',
  'work: H.lean:2 → stuck',
  'stuck: same blocker on two consecutive attempts: H.lean:2:omega failed',
  'checkpoint: No changes this cycle — skipping checkpoint',
  'review (stuck): arithmetic — next_action stop',
];
const COUNTEREXAMPLE = 'theorem h_counterexample : ∃ n : Nat, ¬ (n * n ≥ 2 * n) := ⟨1, by decide⟩\n';

/** The falsify dispatch's parameters, checked field by field (the artifact names: see the report). */
function expectFalsifyDispatch(
  d: { role: string; target: string; evidence_delta: string[]; role_parameters: unknown },
  policy: 'salvage' | 'negate',
  evidence: string,
) {
  expect(d.role).toBe('falsify');
  expect(d.target).toBe('H.lean:2');
  // the route is the review's decision, carried once as the dispatch's evidence (rerun guard)
  expect(d.evidence_delta).toEqual(['stuck review: next_action falsify', evidence]);
  const f = (d.role_parameters as { falsification: Record<string, unknown> }).falsification;
  expect(f).toMatchObject({ policy, target: 'H.lean:2', negation_allowed: policy === 'negate' });
  expect(f.artifacts).toHaveLength(2);
  expect((f.artifacts as string[])[0]).toMatch(/_counterexample$/);
  expect((f.artifacts as string[])[1]).toMatch(/_salvaged$/);
}

describe('autoprove: the stuck review flags falsification → one falsify dispatch', {
  timeout: 120_000,
}, () => {
  it('(a) a counterexample lemma is verified and checkpointed; h : P := sorry stays as it was', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      env: { E2_FILL: 'false', E2_FALSIFY: 'counterexample' },
    });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r)).toEqual([
      ...STUCK_FALSE,
      'falsify: H.lean:2 — witness search (salvage)',
      'work: H.lean:2 → solved',
      'verify (file-fast): falsification artifacts for H.lean:2 build',
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 falsification artifacts \([0-9a-f]{8}\)$/),
      'review (stuck): false-statement — next_action stop',
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      'plan: 1 open target(s); next H.lean:2',
      'guard: relaunch of H.lean:2 refused — same task on the same blocker (H.lean:2:statement is false for n = 0) with an empty evidence_delta',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'falsify']);
    expectFalsifyDispatch(r.dispatches[2]!, 'salvage', 'statement is false for n = 0');
    expect(r.gitLog).toEqual(['checkpoint: cycle 2: H.lean:2 falsification artifacts', 'init']);
    // the commit holds exactly the original statement, its sorry, and the counterexample
    expect(r.committed['H.lean']).toBe(`${FALSE_THM}\n${COUNTEREXAMPLE}`);
    expect(r.status).toBe('');
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      stop_reason: null,
      blocker_signature: 'H.lean:2:statement is false for n = 0',
    });
    expect(r.handoff.files_changed.map((f) => f.split('/').pop())).toEqual(['H.lean']);
  });

  it('(b) a salvage lemma (the weaker statement under an extra hypothesis) is checkpointed', async () => {
    const r = await runEngine2({ mode: 'autoprove', env: { E2_FILL: 'false', E2_FALSIFY: 'salvaged' } });
    expect(r.code, r.stderr).toBe(3);
    const falsify = r.dispatches[2]!;
    expectFalsifyDispatch(falsify, 'salvage', 'statement is false for n = 0');
    const salvaged = ((falsify.role_parameters as { falsification: { artifacts: string[] } }).falsification
      .artifacts[1] ?? '') as string;
    const lemma = `theorem ${salvaged} (n : Nat) (hn : n ≥ 2) : n * n ≥ 2 * n := Nat.mul_le_mul_right n hn\n`;
    expect(cycleLines(r).slice(STUCK_FALSE.length, STUCK_FALSE.length + 4)).toEqual([
      'falsify: H.lean:2 — witness search (salvage)',
      'work: H.lean:2 → solved',
      'verify (file-fast): falsification artifacts for H.lean:2 build',
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 falsification artifacts \([0-9a-f]{8}\)$/),
    ]);
    expect(r.gitLog).toEqual(['checkpoint: cycle 2: H.lean:2 falsification artifacts', 'init']);
    expect(r.committed['H.lean']).toBe(`${FALSE_THM}\n${lemma}`);
    expect(r.handoff.status).toBe('stuck');
  });

  it('(c) hostile: a worker proving ¬P while h : P := sorry stays is refused, restored, nothing committed', async () => {
    const r = await runEngine2({ mode: 'autoprove', env: { E2_FILL: 'false', E2_FALSIFY: 'negation' } });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r)).toEqual([
      ...STUCK_FALSE,
      'falsify: H.lean:2 — witness search (salvage)',
      'stuck: falsification: h_false proves the negation of h while h is still sorry (policy salvage); owned files restored to their pre-dispatch bytes',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'review (stuck): safety-guard — next_action redraft',
      'plan: replan after stuck H.lean:2 (fence-violation); 1 open target(s)',
      'plan: 1 open target(s); next H.lean:2',
      'guard: relaunch of H.lean:2 refused — same task on the same blocker (H.lean:2:falsification) with an empty evidence_delta',
    ]);
    expectFalsifyDispatch(r.dispatches[2]!, 'salvage', 'statement is false for n = 0');
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
    expect(r.status).toBe('');
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_kind: 'safety-guard',
      blocker_class: null,
      files_changed: [],
    });
    expect(r.handoff.failed_avenues).toContain(
      'fence-violation: falsification: h_false proves the negation of h while h is still sorry (policy salvage); owned files restored to their pre-dispatch bytes',
    );
  });

  it('hostile: a worker "salvaging" by weakening h’s own statement is refused by the statement fence', async () => {
    const r = await runEngine2({ mode: 'autoprove', env: { E2_FILL: 'false', E2_FALSIFY: 'weaken' } });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r).slice(STUCK_FALSE.length, STUCK_FALSE.length + 3)).toEqual([
      'falsify: H.lean:2 — witness search (salvage)',
      'stuck: header fence: H.lean: theorem h: hypothesis added `(hn : n ≥ 2)` (`(n : Nat) : n * n ≥ 2 * n` → `(n : Nat) (hn : n ≥ 2) : n * n ≥ 2 * n`); owned files restored to their pre-dispatch bytes',
      'checkpoint: No changes this cycle — skipping checkpoint',
    ]);
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
    expect(r.status).toBe('');
    expect(r.handoff).toMatchObject({ status: 'stuck', blocker_kind: 'safety-guard', files_changed: [] });
  });

  it('autoprove --falsification negate is coerced to salvage (warned): ¬P beside the sorry is still refused', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      env: { E2_FILL: 'false', E2_FALSIFY: 'negation' },
      args: ['--falsification', 'negate'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.lines[0]).toBe(
      'warning: autoprove: --falsification=negate coerced to salvage (autoprove follows the default policy: counterexample + salvage only)',
    );
    expectFalsifyDispatch(r.dispatches[2]!, 'salvage', 'statement is false for n = 0');
    expect(cycleLines(r)).toContain(
      'stuck: falsification: h_false proves the negation of h while h is still sorry (policy salvage); owned files restored to their pre-dispatch bytes',
    );
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
  });

  it('a --reviewer command raising the flag on an ordinary proof blocker also starts the witness search', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      reviewer: true,
      env: { E2_FLAG: '1', E2_NEXT: 'stop', E2_FALSIFY: 'counterexample' },
      args: ['--deep', 'never'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r).slice(5, 11)).toEqual([
      'stuck: same blocker on two consecutive attempts: H.lean:2:omega failed',
      'checkpoint: No changes this cycle — skipping checkpoint',
      'review (stuck): arithmetic — next_action stop',
      'falsify: H.lean:2 — witness search (salvage)',
      'work: H.lean:2 → solved',
      'verify (file-fast): falsification artifacts for H.lean:2 build',
    ]);
    expect(r.reviews[0]).toEqual({ mode: 'stuck', target: 'H.lean:2' });
    expectFalsifyDispatch(r.dispatches[2]!, 'salvage', 'reviewer says stop');
    expect(r.committed['H.lean']).toBe(`${FALSE_THM}\n${COUNTEREXAMPLE}`);
  });

  it('--falsification off: the flag is ignored, no falsify dispatch, nothing committed', async () => {
    const r = await runEngine2({
      mode: 'autoprove',
      env: { E2_FILL: 'false', E2_FALSIFY: 'counterexample' },
      args: ['--falsification', 'off'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(cycleLines(r).some((l) => l.startsWith('falsify:'))).toBe(false);
    expect(r.gitLog).toEqual(['init']);
  });
});

describe('prove: a declined replan of a stuck target → the human picks the falsification policy', {
  timeout: 120_000,
}, () => {
  /** Answers up to the falsification question: plan, continue, plan, decline the replan. */
  const UNTIL_POLICY = ['approve', 'continue', 'approve', 'decline'];

  it('salvage: the falsify dispatch runs under salvage, the human commits its lemma', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_FALSIFY: 'counterexample' },
      answers: [...UNTIL_POLICY, 'salvage', 'commit', 'approve', 'stop'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r)).toEqual([
      ...STUCK_PROOF,
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      'falsify: H.lean:2 — witness search (salvage)',
      'work: H.lean:2 → solved',
      'verify (file-fast): falsification artifacts for H.lean:2 build',
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 falsification artifacts \([0-9a-f]{8}\)$/),
      'review (stuck): arithmetic — next_action stop',
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill', 'falsify']);
    expectFalsifyDispatch(r.dispatches[2]!, 'salvage', 'omega failed');
    expect(r.gitLog).toEqual(['checkpoint: cycle 2: H.lean:2 falsification artifacts', 'init']);
    expect(r.committed['H.lean']).toBe(`${FALSE_THM}\n${COUNTEREXAMPLE}`);
    expect(r.handoff).toMatchObject({ status: 'stuck', blocker_signature: 'H.lean:2:omega failed' });
  });

  it('salvage still refuses ¬P beside the sorry (hostile worker): nothing to commit', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_FALSIFY: 'negation' },
      answers: [...UNTIL_POLICY, 'salvage', 'approve', 'stop'],
    });
    expect(cycleLines(r)).toContain(
      'stuck: falsification: h_false proves the negation of h while h is still sorry (policy salvage); owned files restored to their pre-dispatch bytes',
    );
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
  });

  it('negate: the human allowed the negation, so ¬P beside the sorry is accepted and committed', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_FALSIFY: 'negation' },
      answers: [...UNTIL_POLICY, 'negate', 'commit', 'approve', 'stop'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r).slice(STUCK_PROOF.length, STUCK_PROOF.length + 5)).toEqual([
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
      'falsify: H.lean:2 — witness search (negate)',
      'work: H.lean:2 → solved',
      'verify (file-fast): falsification artifacts for H.lean:2 build',
      expect.stringMatching(/^checkpoint: cycle 2: H\.lean:2 falsification artifacts \([0-9a-f]{8}\)$/),
    ]);
    expectFalsifyDispatch(r.dispatches[2]!, 'negate', 'omega failed');
    expect(r.committed['H.lean']).toBe(
      `${FALSE_THM}\ntheorem h_false (m : Nat) : ¬ (m * m ≥ 2 * m) := by decide\n`,
    );
  });

  it('skip: no witness search; the human gets the blocker options and the run ends stuck', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_FALSIFY: 'counterexample' },
      answers: [...UNTIL_POLICY, 'skip', 'stop'],
    });
    expect(r.code, r.stderr).toBe(3);
    expect(cycleLines(r)).toEqual([
      ...STUCK_PROOF,
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
    ]);
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.handoff).toMatchObject({
      status: 'stuck',
      blocker_kind: 'proof',
      blocker_class: 'arithmetic',
      blocker_signature: 'H.lean:2:omega failed',
    });
  });

  it('stop: the run stops on the human’s word, no falsify dispatch, nothing committed', async () => {
    const r = await runEngine2({
      mode: 'prove',
      env: { E2_FALSIFY: 'counterexample' },
      answers: [...UNTIL_POLICY, 'stop'],
    });
    expect(r.code, r.stderr).toBe(1);
    expect(cycleLines(r)).toEqual([
      ...STUCK_PROOF,
      'plan: replan after stuck H.lean:2 (repeated-failure); 1 open target(s)',
    ]);
    expect(r.lines).toContain('run unpersisted: stopped (user-stop)');
    expect(r.dispatches.map((d) => d.role)).toEqual(['fill', 'fill']);
    expect(r.gitLog).toEqual(['init']);
    expect(r.files['H.lean']).toBe(FALSE_THM);
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'user-stop' });
  });
});
