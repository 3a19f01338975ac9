import { describe, expect, it } from 'vitest';
import { addedBinders, splitBinders } from '../../src/fence/binders.js';
import { isAnonymousHeader } from '../../src/fence/compare.js';
import { compareHeaders, type DeclarationHeader } from '../../src/fence/index.js';

function h(name: string, signature: string, line: number, kind = 'theorem'): DeclarationHeader {
  return { name, kind, signature, line };
}

describe('compareHeaders', () => {
  it('finds nothing between identical header lists', () => {
    const hs = [h('a', ': True', 1), h('b', '(n : Nat) : n = n', 3)];
    expect(compareHeaders(hs, hs)).toEqual([]);
  });

  it('ignores line moves', () => {
    expect(compareHeaders([h('a', ': True', 1)], [h('a', ': True', 40)])).toEqual([]);
  });

  it('orders violations by before line, then name', () => {
    const before = [h('z', ': A', 1), h('b', ': B', 5), h('a', ': C', 5)];
    const after = [h('z', ': X', 1), h('b', ': Y', 5), h('a', ': Z', 5)];
    expect(compareHeaders(before, after).map((v) => v.declaration)).toEqual(['z', 'a', 'b']);
  });

  it('uses each rename target once, earliest first, and only names new in after', () => {
    const before = [h('a', ': P', 1), h('b', ': P', 2), h('c', ': P', 3)];
    const after = [h('c', ': P', 1), h('x', ': P', 2)];
    expect(compareHeaders(before, after).map((v) => [v.declaration, v.change, v.renamedTo])).toEqual([
      ['a', 'renamed', 'x'],
      ['b', 'deleted', undefined],
    ]);
  });

  it('does not take a different kind as a rename', () => {
    expect(compareHeaders([h('a', ': P', 1)], [h('b', ': P', 1, 'def')]).map((v) => v.change)).toEqual([
      'deleted',
    ]);
  });

  it('pairs repeated names by occurrence', () => {
    const before = [h('a', ': P', 1), h('a', ': Q', 2)];
    expect(
      compareHeaders(before, [h('a', ': P', 1), h('a', ': R', 2)]).map((v) => [v.change, v.after]),
    ).toEqual([['changed', ': R']]);
    expect(compareHeaders(before, [h('a', ': P', 1)]).map((v) => [v.change, v.before])).toEqual([
      ['deleted', ': Q'],
    ]);
  });

  it('allows new declarations except axioms and context commands', () => {
    const after = [
      h('helper', ': True', 1, 'lemma'),
      h('f', ': Nat', 2, 'def'),
      h('o', ': Nat', 3, 'opaque'),
      h('instance@1', ': Inhabited Nat', 4, 'instance'),
      h('ax', ': False', 5, 'axiom'),
      h('variable@1', '(h : False)', 6, 'variable'),
    ];
    expect(compareHeaders([], after).map((v) => [v.declaration, v.change, v.line])).toEqual([
      ['ax', 'added-axiom', 5],
      ['variable@1', 'added-context', 6],
    ]);
  });

  it('matches anonymous declarations by signature, so inserting one shifts nothing', () => {
    const before = [h('example@1', ': 1 = 1', 1, 'example'), h('example@2', ': 2 = 2', 2, 'example')];
    const after = [
      h('example@1', ': 0 = 0', 1, 'example'),
      h('example@2', ': 1 = 1', 2, 'example'),
      h('example@3', ': 2 = 2', 3, 'example'),
    ];
    expect(compareHeaders(before, after)).toEqual([]);
  });

  it('reports a changed or deleted anonymous declaration', () => {
    const before = [
      h('instance@1', ': Inhabited Nat', 1, 'instance'),
      h('example@1', ': 1 = 1', 2, 'example'),
    ];
    expect(compareHeaders(before, [h('instance@1', ': Inhabited Int', 1, 'instance')])).toEqual([
      {
        declaration: 'instance@1',
        kind: 'instance',
        change: 'changed',
        before: ': Inhabited Nat',
        after: ': Inhabited Int',
        line: 1,
      },
      {
        declaration: 'example@1',
        kind: 'example',
        change: 'deleted',
        before: ': 1 = 1',
        after: null,
        line: 2,
      },
    ]);
  });

  it('keeps anonymous declarations apart by namespace', () => {
    const before = [h('A.example@1', ': P', 1, 'example')];
    expect(compareHeaders(before, [h('B.example@1', ': P', 1, 'example')]).map((v) => v.change)).toEqual([
      'deleted',
    ]);
  });

  it('tells an added hypothesis from other changes', () => {
    const before = [h('t', '{α : Type} (n : Nat) : n + 0 = n', 1)];
    const cases: [string, string][] = [
      ['{α : Type} (n : Nat) (h : n + 0 = n) : n + 0 = n', 'added-hypothesis'],
      ['(h : False) {α : Type} (n : Nat) : n + 0 = n', 'added-hypothesis'],
      ['{α : Type} [Inhabited α] (n : Nat) {h : True} : n + 0 = n', 'added-hypothesis'],
      ['{α : Type} (n : Nat) : n + 0 = n → n + 0 = n', 'changed'],
      ['{α : Type} (n m : Nat) : n + 0 = n', 'changed'],
      ['(n : Nat) (h : n + 0 = n) : n + 0 = n', 'changed'],
    ];
    for (const [after, change] of cases) {
      expect(compareHeaders(before, [h('t', after, 1)])[0]?.change, after).toBe(change);
    }
  });
});

describe('binders', () => {
  it('splits at the first top-level colon', () => {
    expect(splitBinders('.{u} {α : Sort u} (f : α → α := id) : ∀ x : α, f x = x')).toEqual({
      binders: ['.{u}', '{α : Sort u}', '(f : α → α := id)'],
      rest: ': ∀ x : α, f x = x',
    });
    expect(splitBinders('')).toEqual({ binders: [], rest: '' });
    expect(splitBinders('(x : Nat)')).toEqual({ binders: ['(x : Nat)'], rest: '' });
  });

  it('skips brackets inside string literals', () => {
    expect(splitBinders('(s : String := ")") : s = s')).toEqual({
      binders: ['(s : String := ")")'],
      rest: ': s = s',
    });
  });

  it('reports the added binders only when nothing else changed', () => {
    expect(addedBinders('(n : Nat) : P n', '(n : Nat) (h₁ : Q) (h₂ : R) : P n')).toEqual([
      '(h₁ : Q)',
      '(h₂ : R)',
    ]);
    expect(addedBinders('(n : Nat) : P n', '(n : Nat) : P n')).toBeNull();
    expect(addedBinders('(n : Nat) : P n', '(n : Nat) extra : P n')).toBeNull();
    expect(addedBinders('(a, b) -> int', '(a, b, c) -> int')).toBeNull();
  });
});

describe('isAnonymousHeader', () => {
  it('recognizes only kind@ordinal names of the same kind', () => {
    expect(isAnonymousHeader(h('N.M.example@12', ': P', 1, 'example'))).toBe(true);
    expect(isAnonymousHeader(h('example@1', ': P', 1, 'theorem'))).toBe(false);
    expect(isAnonymousHeader(h('instance@x', ': P', 1, 'instance'))).toBe(false);
    expect(isAnonymousHeader(h('t', ': P', 1))).toBe(false);
  });
});
