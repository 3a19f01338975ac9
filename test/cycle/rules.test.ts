/** The cycle's stuck rules, target choice, trivial goals and review timing (src/cycle). */
import { describe, expect, it } from 'vitest';
import { reviewDue, reviewScopeFor } from '../../src/cycle/review.js';
import { detectStuck } from '../../src/cycle/stuck.js';
import { isTrivialGoal, pickTarget } from '../../src/cycle/targets.js';
import type { AttemptRecord, TargetInfo } from '../../src/cycle/types.js';

const T: TargetInfo = { id: 'A.lean:4', file: 'A.lean', line: 4, goal: 'sorry' };
const fail = (sig: string | null, snippets: string[] = [], emptySearch = false): AttemptRecord => ({
  cycle: 1,
  solved: false,
  signature: sig,
  snippets,
  emptySearch,
});
const stuckIn = (attempts: AttemptRecord[], extra: Partial<Parameters<typeof detectStuck>[0]> = {}) =>
  detectStuck({
    target: T,
    attempts,
    gateErrors: [],
    now: 0,
    lastDecreaseAt: 0,
    openCount: 1,
    stallMinutes: 10,
    maxFailuresPerTarget: 3,
    ...extra,
  });

describe('stuck conditions', () => {
  it('same blocker on two consecutive attempts', () => {
    expect(stuckIn([fail('A.lean:4:x')])).toBeNull();
    expect(stuckIn([fail('A.lean:4:x'), fail('A.lean:4:x')])).toMatchObject({
      condition: 'repeated-failure',
      signature: 'A.lean:4:x',
    });
    expect(stuckIn([fail('A.lean:4:x'), fail('A.lean:4:y')])).toBeNull();
  });
  it('failed N times with no new approach', () => {
    const a = [fail('s1', ['simp']), fail('s2', ['omega']), fail('s3', ['simp'])];
    expect(stuckIn(a)?.detail).toMatch(/failed 3 times with no new approach/);
    expect(stuckIn([fail('s1', ['simp']), fail('s2', ['omega']), fail('s3', ['ring'])])).toBeNull();
  });
  it('the same build error after two repair attempts', () => {
    const e = ['A.lean:9:type mismatch'];
    expect(stuckIn([fail('a')], { gateErrors: [e, e] })).toBeNull();
    expect(stuckIn([fail('a')], { gateErrors: [e, e, e] })).toMatchObject({
      condition: 'repeated-build-error',
      signature: 'A.lean:9:type mismatch',
    });
  });
  it('no decrease for the stall time, and empty search twice', () => {
    expect(stuckIn([fail('a')], { now: 599_999 })).toBeNull();
    expect(stuckIn([fail('a')], { now: 600_000 })?.condition).toBe('no-progress');
    expect(stuckIn([fail('a', [], true), fail('b', [], true)])?.condition).toBe('empty-search');
  });
});

describe('target choice, trivial goals, reviews', () => {
  it('prefers plan order and unblocked targets; skips refused ones', () => {
    const a = { id: 'A:1', file: 'A', line: 1, goal: '' };
    const b = { id: 'B:1', file: 'B', line: 1, goal: '' };
    const base = {
      targets: [a, b],
      plan: [
        { target: 'B:1', note: '' },
        { target: 'A:1', note: '' },
      ],
      blocked: {},
      refused: [],
    };
    expect(pickTarget(base)?.id).toBe('B:1');
    expect(pickTarget({ ...base, blocked: { 'B:1': {} as never } })?.id).toBe('A:1');
    expect(pickTarget({ ...base, refused: ['A:1', 'B:1'] })).toBeNull();
  });
  it('recognizes trivial goals', () => {
    expect(isTrivialGoal('rfl')).toBe(true);
    expect(isTrivialGoal('  sorry -- hint: simp')).toBe(true);
    expect(isTrivialGoal('sorry -- trivial')).toBe(true);
    expect(isTrivialGoal('theorem t : a = b := sorry')).toBe(false);
  });
  it('schedules reviews and never picks project scope', () => {
    expect(reviewDue('checkpoint', 1, true)).toBe(true);
    expect(reviewDue('checkpoint', 1, false)).toBe(false);
    expect(reviewDue(2, 4, false)).toBe(true);
    expect(reviewDue('never', 4, true)).toBe(false);
    expect(reviewScopeFor('sorry', T)).toEqual({ scope: 'sorry', file: 'A.lean', line: 4 });
    for (const s of ['project', 'changed', 'deps', 'file'] as const)
      expect(reviewScopeFor(s, T).scope).toBe('file');
  });
});
