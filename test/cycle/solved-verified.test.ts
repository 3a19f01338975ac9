/**
 * The cycle's side of "solved means verified" (pure): discovery ends a run solved only with no
 * target and no error, an edit whose solved claim did not hold is never checkpointed, and the
 * verify line names why a target the port kept open is open.
 */
import { describe, expect, it } from 'vitest';
import { checkpointInput } from '../../src/cycle/actor-inputs.js';
import { errorsBlocker, finalHandoff } from '../../src/cycle/final-handoff.js';
import { nothingOpen } from '../../src/cycle/nothing-open.js';
import type { AttemptRecord } from '../../src/cycle/types.js';
import { verifyEdit } from '../../src/cycle/verify-edit.js';
import { cycleContext, FILE, handoffOutcome, T1, workerHandoff } from './fixture.js';

const attempt = (cycle: number, solved: boolean): AttemptRecord => ({
  cycle,
  solved,
  signature: solved ? null : 'A.lean:2:not verified',
  snippets: [],
  emptySearch: false,
});

describe('nothingOpen', () => {
  it('no target and no error ends the run solved; an error alone does not', () => {
    expect(nothingOpen({ targets: [], errors: [] })).toBe(true);
    expect(nothingOpen({ targets: [], errors: ['A.lean:2:type mismatch'] })).toBe(false);
    expect(nothingOpen({ targets: [], errors: ['A.lean:0:unverifiable: not valid UTF-8 text'] })).toBe(false);
    expect(nothingOpen({ targets: [T1], errors: [] })).toBe(false);
  });
});

describe('checkpointInput after a refuted solved claim', () => {
  const ctx = cycleContext({
    lastWork: handoffOutcome(workerHandoff('solved')),
    accepted: [FILE],
    tracker: { ...cycleContext().tracker, cycles: 1 },
  });
  it('a verified claim commits the accepted files', () => {
    const ok = checkpointInput({ ...ctx, attempts: { [T1.id]: [attempt(1, true)] } });
    expect(ok.files).toEqual([FILE]);
    expect(ok.summary).toMatch(/A\.lean:2 solved$/);
  });
  it('a refuted one commits nothing (the summary still says not verified)', () => {
    const refuted = checkpointInput({ ...ctx, attempts: { [T1.id]: [attempt(1, false)] } });
    expect(refuted.files).toEqual([]);
    expect(refuted.summary).toMatch(/A\.lean:2 not verified$/);
  });
});

describe('verifyEdit names why a kept-open target is open', () => {
  it('the reason the port appended to the goal is in the line', () => {
    const out = {
      tier: 'file-fast' as const,
      targets: [{ ...T1, goal: `${T1.goal} (\`sorry\` still in theorem t (line 3))` }],
      errors: [],
    };
    const v = verifyEdit(T1, [attempt(1, true)], 'solved', out);
    expect(v.confirmed).toBe(false);
    expect(v.line).toBe(
      'verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open (`sorry` still in theorem t (line 3))',
    );
    const plain = verifyEdit(T1, [attempt(1, true)], 'solved', { ...out, targets: [T1] });
    expect(plain.line).toBe('verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open');
  });
});

describe('a run stuck on discovery errors says why', () => {
  it('the first error is the signature, every error a failed avenue', () => {
    const errors = ['T.lean:0:unverifiable: a NUL byte at offset 3 (not text)', 'U.lean:4:type mismatch'];
    const f = finalHandoff({ ...cycleContext(), discoveryErrors: errors }, { status: 'stuck', stuck: null });
    expect(f.status).toBe('stuck');
    expect(f.blocker_kind).toBe('operational');
    expect(f.blocker_signature).toBe(errors[0]);
    expect(f.failed_avenues).toEqual(errors.map((e) => `diagnostics: ${e}`));
    expect(errorsBlocker({ discoveryErrors: [] })).toBeNull();
    // a solved record carries no blocker whatever the context holds
    expect(
      finalHandoff({ ...cycleContext(), discoveryErrors: errors }, { status: 'solved' }).blocker_signature,
    ).toBeNull();
  });
});
