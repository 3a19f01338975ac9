/**
 * Falsification (src/cycle/falsification.ts): when the witness search runs, what the falsify
 * worker is sent, declaration names at a line of real Lean text, and the safety rule over a
 * falsify pass — a hostile worker that proves `¬P` next to `T : P := sorry`, in every spelling,
 * is caught; a counterexample or a salvage lemma is not.
 */
import { describe, expect, it } from 'vitest';
import {
  declarationNameAt,
  falsificationParameters,
  falsificationWanted,
  negationViolation,
} from '../../src/cycle/falsification.js';
import type { CycleOptions, ReviewOutput, TargetInfo } from '../../src/cycle/types.js';

const REVIEW: ReviewOutput = {
  now: 0,
  mode: 'stuck',
  primaryBlocker: 'false statement',
  topBlockers: [],
  evidence: [],
  falsification: false,
  nextAction: 'continue',
  suggestions: [],
};
const T: TargetInfo = { id: 'Demo/Basic.lean:7', file: 'Demo/Basic.lean', line: 7, goal: 'sorry' };
type Policy = CycleOptions['falsification'];

describe('falsificationWanted', () => {
  const flagged = { ...REVIEW, falsification: true };
  it.each<[string, 'prove' | 'autoprove', Policy, ReviewOutput | null, boolean, boolean]>([
    ['autoprove, the review flags falsification', 'autoprove', 'salvage', flagged, false, true],
    ['autoprove, the review does not', 'autoprove', 'salvage', REVIEW, true, false],
    ['autoprove, no review', 'autoprove', 'salvage', null, true, false],
    ['autoprove, policy off', 'autoprove', 'off', flagged, true, false],
    ['prove, the human declined the plan', 'prove', 'salvage', null, true, true],
    ['prove, negate, declined', 'prove', 'negate', REVIEW, true, true],
    ['prove, plan accepted even with a flag', 'prove', 'salvage', flagged, false, false],
    ['prove, policy off', 'prove', 'off', flagged, true, false],
  ])('%s', (_name, mode, policy, review, declined, expected) => {
    expect(falsificationWanted(mode, policy, review, declined)).toBe(expected);
  });
  it('a hostile review whose flag is truthy but not true does not count', () => {
    const odd = { ...REVIEW, falsification: 'yes' } as unknown as ReviewOutput;
    expect(falsificationWanted('autoprove', 'salvage', odd, false)).toBe(false);
  });
});

describe('falsificationParameters', () => {
  it.each<[Policy, boolean]>([
    ['salvage', false],
    ['negate', true],
    ['off', false],
  ])('policy %s', (policy, negation) => {
    expect(falsificationParameters(policy, T, 'Demo.add_comm')).toEqual({
      falsification: {
        policy,
        target: 'Demo/Basic.lean:7',
        artifacts: ['Demo.add_comm_counterexample', 'Demo.add_comm_salvaged'],
        negation_allowed: negation,
      },
    });
  });
  it('without a declaration name, the artifacts are named after the file and line', () => {
    expect(falsificationParameters('salvage', T)).toMatchObject({
      falsification: { artifacts: ['Basic_7_counterexample', 'Basic_7_salvaged'] },
    });
    const odd: TargetInfo = { id: '9-x.lean:3', file: '9-x.lean', line: 3, goal: '' };
    expect(falsificationParameters('salvage', odd, '')).toMatchObject({
      falsification: { artifacts: ['T_9_x_3_counterexample', 'T_9_x_3_salvaged'] },
    });
  });
});

const FILE = `import Mathlib

/-- The naive statement. -/
namespace Demo

theorem helper (n : Nat) : n ≤ n := le_refl n

-- theorem ghost : False := sorry
theorem bad (n : Nat) : n + 1 = n := by
  simp
  sorry

lemma other : 1 = 1 := rfl

def notATheorem : Nat := 3

end Demo
`;

describe('declarationNameAt', () => {
  it.each<[number, string | null]>([
    [1, null],
    [3, null],
    [6, 'Demo.helper'],
    [8, 'Demo.helper'],
    [9, 'Demo.bad'],
    [11, 'Demo.bad'],
    [13, 'Demo.other'],
    [15, null],
    [0, null],
    [-3, null],
    [1.5, null],
  ])('line %i → %s', (line, expected) => {
    expect(declarationNameAt(FILE, line)).toBe(expected);
  });
  it('text the extractor cannot read has no declaration', () => {
    expect(declarationNameAt('theorem t : True := by\n  /- unterminated', 2)).toBeNull();
  });
});

/** A file with `bad` still sorry and `extra` appended. */
const withExtra = (extra: string, bad = 'theorem bad (n : Nat) : n + 1 = n := by\n  simp\n  sorry') =>
  FILE.replace('theorem bad (n : Nat) : n + 1 = n := by\n  simp\n  sorry', bad).replace(
    'end Demo',
    `${extra}\n\nend Demo`,
  );

const PROVES_NEGATION =
  'falsification: Demo.bad_neg proves the negation of Demo.bad while Demo.bad is still sorry (policy salvage)';

describe('negationViolation', () => {
  it.each<[string, string]>([
    ['¬ (∀ binders, P)', 'theorem bad_neg : ¬ (∀ (n : Nat), n + 1 = n) := by omega'],
    ['¬ ∀ binders, P', 'theorem bad_neg : ¬∀ (n : Nat), n + 1 = n := by omega'],
    ['pointwise ¬ P under the same binders', 'theorem bad_neg (n : Nat) : ¬ (n + 1 = n) := by omega'],
    ['pointwise ¬P, no space', 'theorem bad_neg (n : Nat) : ¬n + 1 = n := by omega'],
    ['Not P', 'lemma bad_neg (n : Nat) : Not (n + 1 = n) := by omega'],
    ['P → False', 'theorem bad_neg (n : Nat) : n + 1 = n → False := by omega'],
    [
      'hidden by comments and line breaks',
      'theorem bad_neg (n : Nat) :\n    /- harmless -/ ¬ ( n + 1\n      = n ) -- really\n  := by omega',
    ],
    ['redundant parentheses', 'theorem bad_neg (n : Nat) : ((¬ ((n + 1 = n)))) := by omega'],
  ])('a hostile worker proves the negation: %s', (_name, extra) => {
    expect(negationViolation(FILE, withExtra(extra), 'bad', 'salvage')).toBe(PROVES_NEGATION);
    expect(negationViolation(FILE, withExtra(extra), 'Demo.bad', 'salvage')).toBe(PROVES_NEGATION);
    expect(negationViolation(FILE, withExtra(extra), 'bad', 'negate')).toBeNull();
  });

  it.each<[string, string]>([
    ['a counterexample', 'theorem bad_counterexample : ∃ n : Nat, ¬ (n + 1 = n) := ⟨0, by omega⟩'],
    ['a salvage lemma', 'theorem bad_salvaged (n : Nat) (h : False) : n + 1 = n := h.elim'],
    ['an unrelated negation', 'theorem unrelated (n : Nat) : ¬ (n = n + 1) := by omega'],
    ['the negation of a weaker statement', 'theorem bad_neg (n : Nat) : ¬ (n + 2 = n) := by omega'],
  ])('allowed: %s', (_name, extra) => {
    expect(negationViolation(FILE, withExtra(extra), 'bad', 'salvage')).toBeNull();
  });

  it('proving the negation is fine once T no longer has sorry', () => {
    const proved = 'theorem bad (n : Nat) : n + 1 = n := by\n  exact absurd rfl (by omega)';
    const extra = 'theorem bad_neg (n : Nat) : ¬ (n + 1 = n) := by omega';
    expect(negationViolation(FILE, withExtra(extra, proved), 'bad', 'salvage')).toBeNull();
  });

  it('a sorry in a comment or string of T is not a sorry', () => {
    const noSorry =
      'theorem bad (n : Nat) : n + 1 = n := by\n  -- sorry\n  exact absurd rfl (by simp [show "sorry" = "sorry" from rfl])';
    const extra = 'theorem bad_neg (n : Nat) : ¬ (n + 1 = n) := by omega';
    expect(negationViolation(FILE, withExtra(extra, noSorry), 'bad', 'salvage')).toBeNull();
    const admitted = 'theorem bad (n : Nat) : n + 1 = n := by\n  admit';
    expect(negationViolation(FILE, withExtra(extra, admitted), 'bad', 'salvage')).toBe(PROVES_NEGATION);
  });

  it('a negation that was already there before the pass is not new', () => {
    const before = withExtra('theorem bad_neg (n : Nat) : ¬ (n + 1 = n) := by omega');
    expect(negationViolation(before, `${before}\n-- a note\n`, 'bad', 'salvage')).toBeNull();
  });

  it("T's statement is immutable under every policy", () => {
    const changed = FILE.replace('n + 1 = n := by', 'n + 0 = n := by');
    for (const policy of ['salvage', 'negate', 'off'] as const) {
      expect(negationViolation(FILE, changed, 'bad', policy)).toBe(
        'falsification: the statement of Demo.bad changed',
      );
      expect(negationViolation(FILE, FILE.replace('theorem bad', 'def bad'), 'bad', policy)).toBe(
        'falsification: the statement of Demo.bad changed',
      );
    }
    expect(negationViolation(FILE, FILE.replace('theorem bad', 'theorem bad2'), 'bad', 'negate')).toBe(
      'falsification: Demo.bad was removed',
    );
  });

  it('reformatting T is not a change', () => {
    const reformatted = FILE.replace(
      'theorem bad (n : Nat) : n + 1 = n := by',
      'theorem bad\n    (n : Nat) :\n    n + 1 = n := by',
    );
    expect(negationViolation(FILE, reformatted, 'bad', 'salvage')).toBeNull();
  });

  it('unreadable texts and unknown targets fail closed', () => {
    expect(negationViolation(FILE, `${FILE}\n/- unterminated`, 'bad', 'salvage')).toMatch(
      /^falsification: the file after the pass cannot be read — /,
    );
    expect(negationViolation('/- x', FILE, 'bad', 'salvage')).toMatch(
      /^falsification: the file before the pass cannot be read — /,
    );
    expect(negationViolation(FILE, FILE, 'nope', 'salvage')).toBe(
      'falsification: nope not found before the pass',
    );
  });

  it('an unchanged file passes', () => {
    expect(negationViolation(FILE, FILE, 'bad', 'salvage')).toBeNull();
  });
});
