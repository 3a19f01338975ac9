/**
 * Falsification (src/cycle/falsification.ts): when the witness search runs, what the falsify
 * worker is sent, declaration names at a line of real Lean text, and the safety rule over a
 * falsify pass — a hostile worker that proves `¬P` next to `T : P := sorry`, in every spelling,
 * is caught; a counterexample or a salvage lemma is not.
 */
import fc from 'fast-check';
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
    // binder spellings that differ from the header's `(n : Nat)` as text
    ['¬ (∀ n : Nat, P)', 'theorem bad_neg : ¬ (∀ n : Nat, n + 1 = n) := by omega'],
    ['¬ ∀ n, P with the type inferred', 'theorem bad_neg : ¬ ∀ n, n + 1 = n := by omega'],
    ['¬ ∀ {n : Nat}, P', 'theorem bad_neg : ¬ ∀ {n : Nat}, n + 1 = n := by omega'],
    ['an implicit header binder', 'theorem bad_neg {n : Nat} : ¬ n + 1 = n := by omega'],
    ['∀ n : Nat, ¬ P without header binders', 'theorem bad_neg : ∀ n : Nat, ¬ (n + 1 = n) := by omega'],
    ['no spaces at all', 'theorem bad_neg:¬(∀ n:Nat,n+1=n) := by omega'],
    ['ASCII forall and ->', 'theorem bad_neg : (forall n : Nat, n + 1 = n) -> False := by omega'],
    ['(∀ n, P) → False', 'theorem bad_neg : (∀ n : Nat, n + 1 = n) → False := by omega'],
    ['Not (∀ n, P)', 'theorem bad_neg : Not (∀ (n : Nat), n + 1 = n) := by omega'],
    [
      'the statement as a hypothesis of False',
      'theorem bad_neg (h : ∀ n : Nat, n + 1 = n) : False := h 0 ▸ rfl',
    ],
    [
      'pointwise, P as a hypothesis of False',
      'theorem bad_neg (n : Nat) (h : n + 1 = n) : False := by omega',
    ],
    ['parentheses around a variable', 'theorem bad_neg : ¬ ∀ (n : Nat), ((n)) + 1 = (n) := by omega'],
    // renamed bound variables (alpha-equivalence)
    ['¬ ∀ m : Nat, P m', 'theorem bad_neg : ¬ ∀ m : Nat, m + 1 = m := by omega'],
    ['pointwise under a renamed binder', 'theorem bad_neg (k : Nat) : ¬ (k + 1 = k) := by omega'],
    ['a ≠ b pointwise', 'theorem bad_neg (m : Nat) : m + 1 ≠ m := by omega'],
    ['ℕ for Nat', 'theorem bad_neg : ¬ ∀ m : ℕ, m + 1 = m := by omega'],
    ['a renamed binder with a subscript', "theorem bad_neg : ¬ ∀ n₁' : Nat, n₁' + 1 = n₁' := by omega"],
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
    [
      'a counterexample with a renamed witness',
      'theorem bad_counterexample : ∃ m : Nat, ¬ m + 1 = m := ⟨0, by omega⟩',
    ],
    [
      'a negation under an extra hypothesis',
      'theorem bad_neg (m : Nat) (h : 3 < m) : ¬ (m + 1 = m) := by omega',
    ],
    ['the negation over another type', 'theorem bad_neg : ¬ ∀ n : Int, n + 1 = n := by omega'],
    [
      'a renamed restatement of T itself',
      'theorem bad_salvaged : ∀ m : Nat, m + 1 = m → True := fun _ _ => trivial',
    ],
    ['¬ A ∧ B is (¬ A) ∧ B', 'theorem bad_neg (n : Nat) : ¬ n + 1 = n + 2 ∧ n + 1 = n := sorry'],
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
    const renamed = withExtra('theorem bad_neg : ¬ ∀ m, m + 1 = m := by omega');
    expect(negationViolation(renamed, `${renamed}\n-- a note\n`, 'bad', 'salvage')).toBeNull();
  });

  it('the review example: ¬ (∀ n : Nat, n + 0 = n) next to t (n : Nat) : n + 0 = n := sorry', () => {
    const before = 'theorem t (n : Nat) : n + 0 = n := sorry\n';
    const after = `${before}theorem t_false : ¬ (∀ n : Nat, n + 0 = n) := by simp\n`;
    expect(negationViolation(before, after, 't', 'salvage')).toBe(
      'falsification: t_false proves the negation of t while t is still sorry (policy salvage)',
    );
    const renamed = `${before}theorem t_false : ¬ ∀ m : Nat, m + 0 = m := by simp\n`;
    expect(negationViolation(before, renamed, 't', 'salvage')).not.toBeNull();
  });

  it('when T states ¬ Q, proving Q in any binder spelling is its negation', () => {
    const before = 'theorem t (n : Nat) : ¬ (n + 0 = n) := sorry\n';
    for (const q of [
      'theorem q : ∀ m : Nat, m + 0 = m := by simp',
      'theorem q (k : Nat) : k + 0 = k := by simp',
    ]) {
      expect(negationViolation(before, `${before}${q}\n`, 't', 'salvage')).toBe(
        'falsification: q proves the negation of t while t is still sorry (policy salvage)',
      );
    }
    const ne = 'theorem t (n : Nat) : n + 0 ≠ n := sorry\n';
    expect(
      negationViolation(ne, `${ne}theorem q : ∀ m : ℕ, m + 0 = m := by simp\n`, 't', 'salvage'),
    ).not.toBeNull();
    expect(
      negationViolation(ne, `${ne}theorem q : ∀ m : ℕ, m + 1 = m + 1 := by simp\n`, 't', 'salvage'),
    ).toBeNull();
  });

  describe('binder spellings of a two-variable statement', () => {
    const COMM = 'namespace Demo\n\ntheorem comm (a b : Nat) : a + b = b + a := by\n  sorry\n\nend Demo\n';
    const add = (extra: string) => COMM.replace('end Demo', `${extra}\n\nend Demo`);
    const VIOLATION =
      'falsification: Demo.comm_neg proves the negation of Demo.comm while Demo.comm is still sorry (policy salvage)';

    it.each<[string, string]>([
      ['¬ ∀ x y : Nat,', 'theorem comm_neg : ¬ ∀ x y : Nat, x + y = y + x := by omega'],
      ['¬ ∀ (x : Nat) (y : Nat),', 'theorem comm_neg : ¬ ∀ (x : Nat) (y : Nat), x + y = y + x := by omega'],
      ['¬ ∀ x, ∀ y,', 'theorem comm_neg : ¬ ∀ x, ∀ y, x + y = y + x := by omega'],
      ['¬ ∀ x (y : Nat),', 'theorem comm_neg : ¬ ∀ x (y : Nat), x + y = y + x := by omega'],
      [
        'one binder in the header, one under ¬ ∀',
        'theorem comm_neg (b : Nat) : ¬ ∀ a : Nat, b + a = a + b := by omega',
      ],
      ['separate header groups', 'theorem comm_neg (b : Nat) (a : Nat) : ¬ b + a = a + b := by omega'],
      ['the names swapped', 'theorem comm_neg : ¬ ∀ b a : Nat, b + a = a + b := by omega'],
    ])('caught: %s', (_name, extra) => {
      expect(negationViolation(COMM, add(extra), 'comm', 'salvage')).toBe(VIOLATION);
    });

    it.each<[string, string]>([
      ['the binders in the other order', 'theorem comm_neg : ¬ ∀ x y : Nat, y + x = x + y := by omega'],
      ['one variable only', 'theorem comm_neg : ¬ ∀ x : Nat, x + x = x + x := by omega'],
      ['a counterexample', 'theorem comm_counterexample : ∃ x y : Nat, ¬ x + y = y + x := by omega'],
    ])('allowed: %s', (_name, extra) => {
      expect(negationViolation(COMM, add(extra), 'comm', 'salvage')).toBeNull();
    });

    /** One spelling of `∀ u v : Nat, body` negated: binders in the header, under `∀`, or split. */
    const spelling = fc.record({
      names: fc.uniqueArray(fc.constantFrom('a', 'b', 'x', 'y', 'm', 'k', 'n₁', "x'", 'α'), {
        minLength: 2,
        maxLength: 2,
      }),
      binders: fc.integer({ min: 0, max: 8 }),
      negation: fc.integer({ min: 0, max: 4 }),
      tight: fc.boolean(),
      parens: fc.boolean(),
    });

    /** The declaration: `header : prop`, with the negation spelled by `negation` around `stmt`. */
    function render(
      s: { names: string[]; binders: number; negation: number; tight: boolean; parens: boolean },
      negate: boolean,
    ): string {
      const [u, v] = s.names as [string, string];
      const sp = s.tight ? '' : ' ';
      const w = (x: string) => (s.parens ? `((${x}))` : x);
      const body = `${w(u)}${sp}+${sp}${v}${sp}=${sp}${v}${sp}+${sp}${w(u)}`;
      const forms: [string, string][] = [
        [`(${u} ${v} : Nat)`, body],
        [`(${u} : Nat) (${v} : Nat)`, body],
        [`{${u} : Nat} (${v} : Nat)`, body],
        ['', `∀ ${u} ${v} : Nat, ${body}`],
        ['', `∀ (${u} : Nat) (${v} : Nat), ${body}`],
        ['', `∀ ${u}, ∀ ${v}, ${body}`],
        ['', `(∀ ${u} : Nat, ∀ ${v} : Nat, ${body})`],
        [`(${u} : Nat)`, `∀ ${v}, ${body}`],
        [`(${u} : Nat)`, `forall ${v} : Nat, ${body}`],
      ];
      const [header, stmt] = forms[s.binders] as [string, string];
      if (!negate) return `theorem comm_neg ${header} : ${stmt} := by omega`;
      const spelled = [
        `${header} : ¬${sp}(${stmt})`,
        `${header} : Not (${stmt})`,
        `${header} : (${stmt}) → False`,
        `${header} : (${stmt}) -> False`,
        `${header} (h : ${stmt}) : False`,
      ][s.negation] as string;
      return `theorem comm_neg ${spelled} := by omega`;
    }

    it('every binder spelling of ¬ T is caught, and the same spelling of T itself is not', () => {
      fc.assert(
        fc.property(spelling, (s) => {
          expect(negationViolation(COMM, add(render(s, true)), 'comm', 'salvage')).toBe(VIOLATION);
          expect(negationViolation(COMM, add(render(s, true)), 'comm', 'negate')).toBeNull();
          expect(negationViolation(COMM, add(render(s, false)), 'comm', 'salvage')).toBeNull();
        }),
        { seed: 20_261_202, numRuns: 300 },
      );
    });
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
