/**
 * What proof work may add (proof-work-rules.ts, proof-work.ts, through fenceCheck with the
 * built-in Lean extractor): proofs, theorems, lemmas and examples — nothing that changes the
 * language an unchanged statement is read in. One test per command class; each was accepted by
 * the fence before the rule existed.
 */
import { describe, expect, it } from 'vitest';
import {
  COMMAND_CLASS_GRANTS,
  commandClass,
  describeViolation,
  FENCE_GRANT_NEW_DEFINITIONS,
  fenceCheck,
  type HeaderSnapshot,
  leanHeaderExtractor,
  proofWorkAllows,
} from '../../src/fence/index.js';

const LEAN = leanHeaderExtractor();
const FILE = '/p/A.lean';
const BASE = [
  'namespace Foo',
  '',
  'theorem add_zero_right (n : Nat) : n + 0 = n := by',
  '  sorry',
  '',
  'end Foo',
].join('\n');
const THEOREM_LINE = 'theorem add_zero_right (n : Nat) : n + 0 = n := by';

async function snap(text: string): Promise<HeaderSnapshot> {
  return new Map([[FILE, await LEAN.extract(FILE, text)]]);
}

/** The fence's description lines for `after` against `before` (default BASE). */
async function fence(after: string, grants: readonly string[] = [], before = BASE): Promise<string[]> {
  return fenceCheck(await snap(before), await snap(after), grants).flatMap(({ violations }) =>
    violations.map((v) => describeViolation('A.lean', v)),
  );
}

/** BASE with `lines` inserted before the theorem. */
const aboveTheorem = (...lines: string[]) => BASE.replace(THEOREM_LINE, [...lines, THEOREM_LINE].join('\n'));

describe('proof work may add proofs and helper lemmas', () => {
  it('accepts proof text, new theorems, lemmas, examples and scope commands', async () => {
    expect(
      await fence(
        [
          'universe u',
          'namespace Foo',
          'section Helpers',
          'theorem helper (n : Nat) : n = n := rfl',
          'lemma helper2 : True := trivial',
          'example : 1 = 1 := rfl',
          'end Helpers',
          THEOREM_LINE,
          '  set_option maxRecDepth 1000 in',
          '  open Nat in',
          '  simp',
          'end Foo',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('proof work may not change the language of the statements', () => {
  it('#exit: Lean reads nothing after it, so the theorem below is gone', async () => {
    const lines = await fence(aboveTheorem('#exit'));
    expect(lines).toContain(
      'header fence: A.lean: new command `#exit` at the end of the file (line 3): proof work may add only theorem, lemma and example',
    );
    expect(lines.some((l) => l.includes('Foo.add_zero_right: declaration deleted'))).toBe(true);
  });

  it('#guard_msgs in: swallowing the proof error is a new command', async () => {
    expect(await fence(aboveTheorem('#guard_msgs in'))).toEqual([
      'header fence: A.lean: new command `#guard_msgs in` before theorem Foo.add_zero_right (line 3): proof work may add only theorem, lemma and example',
    ]);
  });

  it('#eval and other # commands (queries) are new commands', async () => {
    const lines = await fence(`${BASE}\n#eval IO.println "side effect"\n#print axioms Foo.add_zero_right`);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toContain(
      'new command `#eval IO.println "side effect"` at the end of the file (line 7)',
    );
    expect(lines[0]).toContain('(grant: fence:queries)');
  });

  it('set_option (command level, and `set_option … in` before a declaration)', async () => {
    expect(await fence(aboveTheorem('set_option autoImplicit true in'))).toEqual([
      'header fence: A.lean: new command `set_option autoImplicit true in` before theorem Foo.add_zero_right (line 3): proof work may add only theorem, lemma and example (grant: fence:set-option)',
    ]);
    expect(await fence(`set_option autoImplicit true\n${BASE}`)).toHaveLength(1);
    // resource and display options change no statement: proof work may set them
    expect(await fence(aboveTheorem('set_option maxHeartbeats 800000 in'))).toEqual([]);
    expect(
      await fence(
        aboveTheorem('set_option maxHeartbeats 800000 in'),
        [],
        aboveTheorem('set_option maxHeartbeats 400000 in'),
      ),
    ).toEqual([]);
    expect(await fence(`set_option linter.unusedVariables false\n${BASE}`)).toEqual([]);
    expect(await fence(`set_option linterX true\n${BASE}`)).toHaveLength(1);
  });

  it('open / export (command level, and `open … in` before a declaration)', async () => {
    expect(await fence(aboveTheorem('open Classical in'))).toEqual([
      'header fence: A.lean: new command `open Classical in` before theorem Foo.add_zero_right (line 3): proof work may add only theorem, lemma and example (grant: fence:open)',
    ]);
    expect(await fence(`open Nat\n${BASE}`)).toHaveLength(1);
    expect(await fence(`${BASE}\nexport Nat (succ)`)).toHaveLength(1);
  });

  it.each([
    'macro "triv" : tactic => `(tactic| trivial)',
    'macro_rules | `(tactic| sorry) => `(tactic| trivial)',
    'syntax "cheat" : tactic',
    'elab "cheat" : tactic => pure ()',
    'elab_rules : tactic | `(tactic| cheat) => pure ()',
    'declare_syntax_cat cheat',
    'notation:50 a " =' + "'" + ' " b => True',
    'infix:50 " ≈ " => fun _ _ => True',
    'infixl:65 " +" => Nat.mul',
    'infixr:65 " ++" => Nat.mul',
    'prefix:max "√" => id',
    'postfix:max "!" => id',
    'local notation "ℕ" => Nat',
    'scoped notation "ℕ" => Nat',
  ])('syntax: %s', async (command) => {
    const lines = await fence(aboveTheorem(command));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(
      /^header fence: A\.lean: new command `.+` before theorem Foo\.add_zero_right \(line 3\)/,
    );
    expect(lines[0]).toContain('(grant: fence:new-syntax)');
  });

  it('instances: a new one (any priority), a changed priority, deriving instance', async () => {
    expect(await fence(aboveTheorem('instance (priority := high) weird : Add Nat := ⟨Nat.mul⟩'))).toEqual([
      'header fence: A.lean: new command `instance (priority := high)` before theorem Foo.add_zero_right (line 3): proof work may add only theorem, lemma and example (grant: fence:new-instances)',
      'header fence: A.lean: instance Foo.weird: new instance (`: Add Nat`): proof work may add only theorem, lemma and example (grant: fence:new-instances)',
    ]);
    const withInstance = aboveTheorem('instance (priority := low) i : Inhabited Nat := ⟨0⟩');
    const raised = aboveTheorem('instance (priority := high) i : Inhabited Nat := ⟨0⟩');
    expect(await fence(raised, [], withInstance)).toHaveLength(2);
    expect(await fence(aboveTheorem('instance : Inhabited Nat := ⟨1⟩'))).toHaveLength(1);
    expect(await fence(aboveTheorem('deriving instance Repr for Nat'))).toHaveLength(1);
  });

  it.each([
    ['def', 'def cheat : Nat := 0'],
    ['abbrev', 'abbrev Nat2 := Nat'],
    ['opaque', 'opaque secret : Nat'],
    ['structure', 'structure P where x : Nat'],
    ['inductive', 'inductive T | a | b'],
    ['class', 'class C (α : Type) where x : α'],
  ])('definitions: a new %s', async (kind, command) => {
    const lines = await fence(aboveTheorem(command));
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain(`: new ${kind} (`);
    expect(lines[0]).toContain(`(grant: ${FENCE_GRANT_NEW_DEFINITIONS})`);
    expect(await fence(aboveTheorem(command), [FENCE_GRANT_NEW_DEFINITIONS])).toEqual([]);
  });

  it('axioms: a new axiom is reported as a new axiom, and no grant allows it', async () => {
    const cheat = aboveTheorem('axiom cheat : ∀ n : Nat, n + 0 = n');
    const expected = [
      'header fence: A.lean: axiom Foo.cheat: axiom added (`: ∀ n : Nat, n + 0 = n`): a new axiom can prove anything, and no grant allows one',
    ];
    expect(await fence(cheat)).toEqual(expected);
    expect(
      await fence(
        cheat,
        Object.values(COMMAND_CLASS_GRANTS).filter((g) => g !== null),
      ),
    ).toEqual(expected);
  });

  it('attributes: on a new helper lemma, on the theorem, and the attribute command', async () => {
    expect(await fence(aboveTheorem('@[simp] theorem helper : 1 = 1 := rfl'))).toEqual([
      'header fence: A.lean: new command `@[simp]` before theorem Foo.add_zero_right (line 3): proof work may add only theorem, lemma and example (grant: fence:new-attributes)',
    ]);
    expect(await fence(aboveTheorem('@[instance]'))).toHaveLength(1);
    expect(await fence(aboveTheorem('attribute [local instance] Classical.propDecidable in'))).toHaveLength(
      1,
    );
    expect(await fence(`${BASE}\nattribute [simp] Foo.add_zero_right`)).toHaveLength(1);
  });

  it('imports', async () => {
    expect(await fence(`import Mathlib.Tactic\n${BASE}`)).toEqual([
      'header fence: A.lean: new command `import Mathlib.Tactic` before theorem Foo.add_zero_right (line 1): proof work may add only theorem, lemma and example (grant: fence:imports)',
    ]);
  });

  it('meta commands (run_cmd, initialize)', async () => {
    expect(await fence(aboveTheorem('run_cmd pure ()'))).toHaveLength(1);
    expect(await fence(`${BASE}\ninitialize pure ()`)).toHaveLength(1);
  });

  it('a removed or moved command is a violation too', async () => {
    const withOption = `${BASE}\nset_option autoImplicit true`;
    expect(await fence(BASE, [], withOption)).toEqual([
      'header fence: A.lean: command removed `set_option autoImplicit true` at the end of the file (line 7): proof work may add only theorem, lemma and example (grant: fence:set-option)',
    ]);
    const moved = await fence(`set_option autoImplicit true\n${BASE}`, [], withOption);
    expect(moved.map((l) => l.slice(0, l.indexOf(' (line')))).toEqual([
      'header fence: A.lean: new command `set_option autoImplicit true` before theorem Foo.add_zero_right',
      'header fence: A.lean: command removed `set_option autoImplicit true` at the end of the file',
    ]);
    // a helper lemma inserted after an existing command moves nothing
    const helper = withOption.replace('namespace Foo', 'namespace Foo\ntheorem h : True := trivial');
    expect(await fence(helper, [], withOption)).toEqual([]);
  });

  it('grants are per class: the definitions grant allows no instance', async () => {
    expect(
      await fence(aboveTheorem('instance : Inhabited Nat := ⟨1⟩'), [FENCE_GRANT_NEW_DEFINITIONS]),
    ).toHaveLength(1);
    expect(proofWorkAllows('macro', ['fence:new-syntax'])).toBe(true);
    expect(
      proofWorkAllows(
        '#exit',
        Object.values(COMMAND_CLASS_GRANTS).filter((g) => g !== null),
      ),
    ).toBe(false);
  });

  it('classifies every keyword of the rule table', () => {
    expect(commandClass('theorem')).toBeNull();
    expect(commandClass('namespace')).toBeNull();
    expect(commandClass('#exit')).toBe('exit');
    expect(commandClass('#guard_msgs')).toBe('message-filter');
    expect(commandClass('#check')).toBe('query');
    expect(commandClass('local')).toBeNull();
    expect(commandClass('class abbrev')).toBe('definition');
  });

  it('does not apply to extractions without commands (other languages)', async () => {
    const py = (headers: { name: string; kind: string; signature: string; line: number }[]): HeaderSnapshot =>
      new Map([['/p/m.py', { ok: true as const, headers }]]);
    expect(fenceCheck(py([]), py([{ name: 'helper', kind: 'def', signature: '()', line: 1 }]))).toEqual([]);
  });
});

describe('hiding the theorem and renaming by guillemets', () => {
  it('a theorem hidden in a `/--/ … -/` doc comment, a weakened one after: statement changed', async () => {
    const hidden = BASE.replace(
      `${THEOREM_LINE}\n  sorry`,
      `/--/ ${THEOREM_LINE}\n  sorry -/\ntheorem add_zero_right (n : Nat) : True := trivial`,
    );
    expect(await fence(hidden)).toEqual([
      'header fence: A.lean: theorem Foo.add_zero_right: statement changed (`(n : Nat) : n + 0 = n` → `(n : Nat) : True`)',
    ]);
  });

  it('`«add_zero_right»` is the same name as `add_zero_right`; `«a.b»` is not `a.b`', async () => {
    expect(await fence(BASE.replace('theorem add_zero_right', 'theorem «add_zero_right»'))).toEqual([]);
    expect(await fence(BASE.replace('namespace Foo', 'namespace «Foo»'))).toEqual([]);
    const dotted = 'theorem a.b : True := trivial';
    expect(await fence('theorem «a.b» : True := trivial', [], dotted)).toEqual([
      'header fence: A.lean: theorem a.b: renamed to «a.b» (`: True`)',
    ]);
  });
});
