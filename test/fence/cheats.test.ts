/**
 * The cheats, on its exact example: every one is a fence violation naming the
 * declaration; honest proof work is not.
 */
import { describe, expect, it } from 'vitest';
import {
  compareHeaders,
  describeViolation,
  extractLeanHeaders,
  type FenceViolation,
} from '../../src/fence/index.js';

const ORIGINAL = 'theorem t (n : Nat) : n + 0 = n := by sorry\n';

function fence(before: string, after: string): FenceViolation[] {
  const b = extractLeanHeaders(before);
  const a = extractLeanHeaders(after);
  if (!b.ok || !a.ok) throw new Error('extraction failed');
  return compareHeaders(b.headers, a.headers);
}

describe('the cheats of the issue are violations', () => {
  it('weakening the statement to True', () => {
    const v = fence(ORIGINAL, 'theorem t (n : Nat) : True := by trivial\n');
    expect(v).toEqual([
      {
        declaration: 't',
        kind: 'theorem',
        change: 'changed',
        before: '(n : Nat) : n + 0 = n',
        after: '(n : Nat) : True',
        line: 1,
      },
    ]);
    expect(describeViolation('A.lean', v[0] as FenceViolation)).toBe(
      'header fence: A.lean: theorem t: statement changed (`(n : Nat) : n + 0 = n` → `(n : Nat) : True`)',
    );
  });

  it('weakening to `: True` with the binder dropped', () => {
    const v = fence(ORIGINAL, 'theorem t : True := trivial\n');
    expect(v.map((x) => [x.declaration, x.change, x.after])).toEqual([['t', 'changed', ': True']]);
  });

  it('renaming it to an easier theorem', () => {
    const v = fence(ORIGINAL, 'theorem t_easy : True := trivial\n');
    expect(v).toEqual([
      {
        declaration: 't',
        kind: 'theorem',
        change: 'deleted',
        before: '(n : Nat) : n + 0 = n',
        after: null,
        line: 1,
      },
    ]);
    expect(describeViolation('A.lean', v[0] as FenceViolation)).toBe(
      'header fence: A.lean: theorem t: declaration deleted (was `(n : Nat) : n + 0 = n`)',
    );
  });

  it('renaming it with the same statement (proved under another name)', () => {
    const v = fence(ORIGINAL, 'theorem t' + "' (n : Nat) : n + 0 = n := by simp\n");
    expect(v).toEqual([
      {
        declaration: 't',
        kind: 'theorem',
        change: 'renamed',
        before: '(n : Nat) : n + 0 = n',
        after: '(n : Nat) : n + 0 = n',
        renamedTo: "t'",
        line: 1,
      },
    ]);
    expect(describeViolation('A.lean', v[0] as FenceViolation)).toBe(
      "header fence: A.lean: theorem t: renamed to t' (`(n : Nat) : n + 0 = n`)",
    );
  });

  it('adding the goal as a hypothesis', () => {
    const v = fence(ORIGINAL, 'theorem t (n : Nat) (h : n + 0 = n) : n + 0 = n := h\n');
    expect(v).toEqual([
      {
        declaration: 't',
        kind: 'theorem',
        change: 'added-hypothesis',
        before: '(n : Nat) : n + 0 = n',
        after: '(n : Nat) (h : n + 0 = n) : n + 0 = n',
        added: ['(h : n + 0 = n)'],
        line: 1,
      },
    ]);
    expect(describeViolation('A.lean', v[0] as FenceViolation)).toBe(
      'header fence: A.lean: theorem t: hypothesis added `(h : n + 0 = n)` (`(n : Nat) : n + 0 = n` → `(n : Nat) (h : n + 0 = n) : n + 0 = n`)',
    );
  });

  it('adding the goal through variable + include', () => {
    const v = fence(
      ORIGINAL,
      'variable (h : ∀ n : Nat, n + 0 = n)\ninclude h\ntheorem t (n : Nat) : n + 0 = n := h n\n',
    );
    expect(v.map((x) => [x.declaration, x.change, x.after])).toEqual([
      ['variable@1', 'added-context', '(h : ∀ n : Nat, n + 0 = n)'],
      ['include@1', 'added-context', 'h'],
    ]);
  });

  it('deleting the declaration', () => {
    const v = fence(ORIGINAL, '');
    expect(v.map((x) => [x.declaration, x.change])).toEqual([['t', 'deleted']]);
  });

  it('commenting the declaration out', () => {
    const v = fence(ORIGINAL, '/- theorem t (n : Nat) : n + 0 = n := by sorry -/\n');
    expect(v.map((x) => [x.declaration, x.change])).toEqual([['t', 'deleted']]);
  });

  it('adding an axiom that proves it', () => {
    const v = fence(
      ORIGINAL,
      'axiom cheat : ∀ n : Nat, n + 0 = n\ntheorem t (n : Nat) : n + 0 = n := cheat n\n',
    );
    expect(v).toEqual([
      {
        declaration: 'cheat',
        kind: 'axiom',
        change: 'added-axiom',
        before: null,
        after: ': ∀ n : Nat, n + 0 = n',
        line: 1,
      },
    ]);
    expect(describeViolation('A.lean', v[0] as FenceViolation)).toBe(
      'header fence: A.lean: axiom cheat: axiom added (`: ∀ n : Nat, n + 0 = n`): a new axiom can prove anything, and no grant allows one',
    );
  });

  it('turning the theorem into a def or an axiom', () => {
    expect(fence(ORIGINAL, 'def t (n : Nat) : n + 0 = n := by simp\n')).toEqual([
      {
        declaration: 't',
        kind: 'theorem',
        change: 'changed',
        before: '(n : Nat) : n + 0 = n',
        after: '(n : Nat) : n + 0 = n',
        kindAfter: 'def',
        line: 1,
      },
    ]);
    expect(fence(ORIGINAL, 'axiom t (n : Nat) : n + 0 = n\n').map((x) => [x.change, x.kindAfter])).toEqual([
      ['changed', 'axiom'],
    ]);
  });

  it('moving it into a namespace (its name changes)', () => {
    const v = fence(ORIGINAL, 'namespace Easy\ntheorem t (n : Nat) : n + 0 = n := by simp\nend Easy\n');
    expect(v.map((x) => [x.declaration, x.change, x.renamedTo])).toEqual([['t', 'renamed', 'Easy.t']]);
  });
});

describe('honest proof work is not a violation', () => {
  it('filling the proof', () => {
    expect(fence(ORIGINAL, 'theorem t (n : Nat) : n + 0 = n := by simp\n')).toEqual([]);
    expect(fence(ORIGINAL, 'theorem t (n : Nat) : n + 0 = n := Nat.add_zero n\n')).toEqual([]);
  });

  it('reformatting the header and adding comments in it', () => {
    const after = [
      '/-- Adding zero. -/',
      '@[simp]',
      'theorem t',
      '    (n : Nat) -- the number',
      '    : n + 0 /- right unit -/ = n := by',
      '  simp',
    ].join('\n');
    expect(fence(ORIGINAL, after)).toEqual([]);
    expect(fence(ORIGINAL, 'theorem t (n:Nat):n+0=n:=by simp')).toEqual([]);
  });

  it('adding a helper lemma and a have inside the proof', () => {
    const after = [
      'lemma helper (n : Nat) : n + 0 = n := Nat.add_zero n',
      '',
      'theorem t (n : Nat) : n + 0 = n := by',
      '  have h : n + 0 = n := helper n',
      '  have : ∀ m : Nat, m + 0 = m := fun m => helper m',
      '  exact h',
    ].join('\n');
    expect(fence(ORIGINAL, after)).toEqual([]);
  });

  it('adding an opaque helper, a def and an instance', () => {
    const after = [
      'opaque seed : Nat',
      'def double (n : Nat) : Nat := n + n',
      'instance : Inhabited (Fin 1) := ⟨0⟩',
      ORIGINAL.replace('sorry', 'simp'),
    ].join('\n');
    expect(fence(ORIGINAL, after)).toEqual([]);
  });
});
