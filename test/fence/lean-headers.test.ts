import { describe, expect, it } from 'vitest';
import { type DeclarationHeader, extractLeanHeaders } from '../../src/fence/index.js';

function headers(text: string): DeclarationHeader[] {
  const r = extractLeanHeaders(text);
  if (!r.ok) throw new Error(`extraction failed: ${r.error}`);
  return [...r.headers];
}

function names(text: string): string[] {
  return headers(text).map((h) => h.name);
}

describe('extractLeanHeaders: the basic header', () => {
  it('reads name, kind, signature and line of the issue example', () => {
    expect(headers('theorem t (n : Nat) : n + 0 = n := by sorry')).toEqual([
      { name: 't', kind: 'theorem', signature: '(n : Nat) : n + 0 = n', line: 1 },
    ]);
  });

  it('normalizes whitespace and comments, so reformatting gives the same signature', () => {
    const a = headers('theorem t (n : Nat) : n + 0 = n := by sorry')[0]?.signature;
    const b = headers('theorem t ( n:Nat )\n    -- the goal\n    : n+0 /- zero -/ =n :=\n  by sorry')[0]
      ?.signature;
    expect(b).toBe(a);
  });

  it('reads every declaration kind', () => {
    const text = [
      'theorem a : True := trivial',
      'lemma b : True := trivial',
      'def c : Nat := 1',
      'abbrev d := Nat',
      'axiom e : False',
      'opaque f : Nat',
      'structure G where',
      '  x : Nat',
      'class H (α : Type) where',
      '  op : α → α',
      'inductive I : Type',
      '  | a : I',
      'class inductive J : Prop',
      '  | mk',
      'instance k : Inhabited Nat := ⟨0⟩',
      'instance : Inhabited Bool := ⟨true⟩',
      'example : 1 = 1 := rfl',
      'irreducible_def l : Nat := 3',
    ].join('\n');
    expect(headers(text).map((h) => [h.kind, h.name, h.signature, h.line])).toEqual([
      ['theorem', 'a', ': True', 1],
      ['lemma', 'b', ': True', 2],
      ['def', 'c', ': Nat', 3],
      ['abbrev', 'd', '', 4],
      ['axiom', 'e', ': False', 5],
      ['opaque', 'f', ': Nat', 6],
      ['structure', 'G', '', 7],
      ['class', 'H', '(α : Type)', 9],
      ['inductive', 'I', ': Type', 11],
      ['class inductive', 'J', ': Prop', 13],
      ['instance', 'k', ': Inhabited Nat', 15],
      ['instance', 'instance@1', ': Inhabited Bool', 16],
      ['example', 'example@1', ': 1 = 1', 17],
      ['irreducible_def', 'l', ': Nat', 18],
    ]);
  });

  it('returns no headers for an empty file or a file of comments', () => {
    expect(headers('')).toEqual([]);
    expect(headers('-- theorem t : True\n/- def x := 1 -/\n')).toEqual([]);
  });
});

describe('extractLeanHeaders: comments, strings and chars', () => {
  it('ignores keywords in line, block, nested block and doc comments', () => {
    const text = [
      '-- theorem fake1 : False := sorry',
      '/- theorem fake2 : False',
      '   /- nested: def fake3 := 1 -/',
      '   still comment: lemma fake4 : False -/',
      '/-- The real one; theorem fake5 inside the doc. -/',
      'theorem real : True := trivial',
      '/-! module doc: theorem fake6 -/',
    ].join('\n');
    expect(headers(text)).toEqual([{ name: 'real', kind: 'theorem', signature: ': True', line: 6 }]);
  });

  it('reads strings containing := and keywords, with escapes', () => {
    const text = [
      'def s : String := "theorem x : False := sorry"',
      'theorem q : "a := \\"b\\" where" = "a := \\"b\\" where" := rfl',
      'def r : String := r#"raw "theorem" := "#',
      'def i (n : Nat) : String := s!"n := {n} and {"nested := theorem"}"',
      'theorem after : True := trivial',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['s', ': String'],
      ['q', ': "a := \\"b\\" where" = "a := \\"b\\" where"'],
      ['r', ': String'],
      ['i', '(n : Nat) : String'],
      ['after', ': True'],
    ]);
  });

  it('does not read a string after the `!` operator as interpolated', () => {
    expect(names('def b : Bool := !"{".isEmpty\ntheorem after : True := trivial')).toEqual(['b', 'after']);
  });

  it('reads char literals, including quotes and := lookalikes, and primes in names', () => {
    const text = [
      "theorem c' (h' : 'a' ≠ '\"') : ':' ≠ '=' := by decide",
      "def f'' : Char := '\\''",
      'theorem g : True := trivial',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ["c'", "(h' : 'a' ≠ '\"') : ':' ≠ '='"],
      ["f''", ': Char'],
      ['g', ': True'],
    ]);
  });

  it('fails (does not throw) on an unterminated comment or string', () => {
    const comment = extractLeanHeaders('theorem t : True := trivial\n/- open /- nested -/ still open');
    expect(comment).toEqual({ ok: false, error: 'unterminated block comment opened at line 2' });
    const str = extractLeanHeaders('def x : String := "open\ntheorem t : True := trivial');
    expect(str).toEqual({ ok: false, error: 'unterminated string literal opened at line 1' });
  });

  it('refuses a non-string input without throwing', () => {
    expect(extractLeanHeaders(42 as unknown as string).ok).toBe(false);
  });
});

describe('extractLeanHeaders: attributes and modifiers', () => {
  it('skips single- and multi-line attributes and every modifier', () => {
    const text = [
      '@[simp, norm_cast] theorem a : True := trivial',
      '@[to_additive (attr := simp)',
      '  "doc with theorem in it"]',
      'protected theorem b : True := trivial',
      'private noncomputable def c : Nat := 0',
      'partial def d : Nat → Nat := d',
      'unsafe def e : Nat := 0',
      'nonrec theorem f : True := trivial',
      'scoped instance g : Inhabited Nat := ⟨0⟩',
      'local instance : Inhabited Int := ⟨0⟩',
      'attribute [local instance] g',
      'attribute [simp] a',
      'deriving instance Repr for G',
      'set_option maxHeartbeats 400000 in',
      'theorem h : True := trivial',
      'open Nat in theorem i : True := trivial',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.line])).toEqual([
      ['a', 1],
      ['b', 4],
      ['c', 5],
      ['d', 6],
      ['e', 7],
      ['f', 8],
      ['g', 9],
      ['instance@1', 10],
      ['h', 15],
      ['i', 16],
    ]);
  });

  it('keeps instance priorities out of the name and signature', () => {
    expect(headers('instance (priority := 100) foo : Inhabited Nat := ⟨0⟩')[0]).toMatchObject({
      name: 'foo',
      signature: ': Inhabited Nat',
    });
    expect(headers('instance (priority := low) [Inhabited α] : Inhabited (List α) := ⟨[]⟩')[0]).toMatchObject(
      {
        name: 'instance@1',
        signature: '[Inhabited α] : Inhabited (List α)',
      },
    );
  });

  it('fails on an unterminated attribute list', () => {
    expect(extractLeanHeaders('@[simp\ntheorem t : True := trivial').ok).toBe(false);
  });
});

describe('extractLeanHeaders: statement boundaries', () => {
  it('reads multi-line headers up to :=', () => {
    const text = [
      'theorem long {α : Type}',
      '    [DecidableEq α] (xs : List α)',
      '    (h : xs ≠ []) :',
      '    xs.length > 0 := by',
      '  cases xs <;> simp_all',
    ].join('\n');
    expect(headers(text)[0]?.signature).toBe(
      '{α : Type} [DecidableEq α] (xs : List α) (h : xs ≠ []) : xs.length > 0',
    );
  });

  it('stops at where (instances, structures, classes)', () => {
    const text = [
      'instance : Add Foo where',
      '  add a b := ⟨a.x + b.x⟩',
      'structure P (α : Type) extends Q α where',
      '  y : α := by exact default',
      'class C (α : Type) : Type where',
      '  c : α',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['instance@1', ': Add Foo'],
      ['P', '(α : Type) extends Q α'],
      ['C', '(α : Type) : Type'],
    ]);
  });

  it('stops at pattern-matching alternatives, on their own lines or inline', () => {
    const text = [
      'def f : Nat → Nat',
      '  | 0 => 1',
      '  | n + 1 => f n',
      'def g : Nat → Bool | 0 => true | _ => false',
      'inductive T where | a | b',
      'inductive U : Type | a | b',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['f', ': Nat → Nat'],
      ['g', ': Nat → Bool'],
      ['T', ''],
      ['U', ': Type'],
    ]);
  });

  it('keeps absolute values |a| inside the statement', () => {
    expect(
      headers('theorem abs_nonneg (a : Int) : 0 ≤ |a| ∧ |a - 1| = |1 - a| := by sorry')[0]?.signature,
    ).toBe('(a : Int) : 0 ≤ | a | ∧ | a - 1 | = | 1 - a |');
  });

  it('keeps absolute values that start a line (Mathlib layout), so edits after them are seen', () => {
    const text = 'theorem abs_add (a b : Int) :\n    |a + b| ≤ |a| + |b| := by\n  omega';
    expect(headers(text)[0]?.signature).toBe('(a b : Int) : | a + b | ≤ | a | + | b |');
    const edited = 'theorem abs_add (a b : Int) :\n    |a + b| ≤ 1000 := by\n  omega';
    expect(headers(edited)[0]?.signature).toBe('(a b : Int) : | a + b | ≤ 1000');
  });

  it('reads multi-pattern alternatives and `fun |` inside a statement', () => {
    const text = [
      'def isSmall : Nat → Bool',
      '  | 0 | 1 => true',
      '  | _ => false',
      'theorem f_def : f = fun | 0 => 1 | _ => 2 := rfl',
      'theorem app (f : Int → Int) : f |x| = f |x| := rfl',
    ].join('\n');
    expect(headers(text).map((h) => h.signature)).toEqual([
      ': Nat → Bool',
      ': f = fun | 0 => 1 | _ => 2',
      '(f : Int → Int) : f | x | = f | x |',
    ]);
  });

  it('keeps a match with its alternatives inside a statement', () => {
    const text = [
      'theorem run_bind (x : M) : (x >>= f).run s = match x.run s with',
      '    | .ok a s => (f a).run s',
      '    | .error e s => .error e s',
      '    | .other => none := by',
      '  cases x <;> rfl',
    ].join('\n');
    expect(headers(text)[0]?.signature).toBe(
      '(x : M) : (x >>= f).run s = match x.run s with | .ok a s => (f a).run s | .error e s => .error e s | .other => none',
    );
  });

  it('reads a pattern-matching def whose alternatives are syntax quotations', () => {
    const text = [
      '@[command_elab openPrivate] def elabOpenPrivate : CommandElab',
      '| `(open private $ids* $[in $tgts*]?) => pure ()',
      '| _ => throwUnsupportedSyntax',
      'theorem after : True := trivial',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['elabOpenPrivate', ': CommandElab'],
      ['after', ': True'],
    ]);
  });

  it('renders indexing, Lean operators and prefix ! faithfully', () => {
    const text = [
      'theorem a (xs : Array Nat) : xs[i]? = xs [i] ∧ xs[0]! = !b := sorry',
      'theorem b (x y : Nat) : x ||| y = y ||| x ∧ (f <$> x) = (g <*> x) := sorry',
    ].join('\n');
    expect(headers(text).map((h) => h.signature)).toEqual([
      '(xs : Array Nat) : xs[i]? = xs [i] ∧ xs[0]! = !b',
      '(x y : Nat) : x ||| y = y ||| x ∧ (f <$> x) = (g <*> x)',
    ]);
  });

  it('keeps a let/have := inside the statement, and default arguments', () => {
    expect(headers('theorem t : let x := 1; x = 1 := rfl')[0]?.signature).toBe(': let x := 1; x = 1');
    expect(headers('def d (x : Nat := 3) : Nat := x')[0]?.signature).toBe('(x : Nat := 3) : Nat');
    expect(headers('theorem m : g = do let s ← get; return s := by rfl')[0]?.signature).toBe(
      ': g = do let s ← get; return s',
    );
  });

  it('ends statements without := at the next command', () => {
    const text = [
      'axiom ax : ∀ n : Nat, n = n',
      '/-- doc -/',
      'opaque o : Nat',
      '#check o',
      'axiom ay : True',
      'open Nat',
      'axiom az : False',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['ax', ': ∀ n : Nat, n = n'],
      ['o', ': Nat'],
      ['ay', ': True'],
      ['az', ': False'],
    ]);
  });

  it('ends axioms and variables at an unknown command in column 0', () => {
    const text = [
      'axiom ax : ∀ n : Nat,',
      '  n = n',
      'my_custom_command foo',
      'variable (x : Nat)',
      'alias bar := ax',
      'axiom ay : True',
      'assert_not_exists Foo',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['ax', ': ∀ n : Nat, n = n'],
      ['variable@1', '(x : Nat)'],
      ['ay', ': True'],
    ]);
  });

  it("keeps Mathlib's #s cardinality in the statement, ends at #check and column-0 #commands", () => {
    const text = [
      'theorem card_le (s : Finset Nat) :',
      '    #s ≤ #s + 1 := by omega',
      'axiom ax : #t = 0',
      '#check ax',
      'axiom ay : True',
      '#my_command',
    ].join('\n');
    expect(headers(text).map((h) => [h.name, h.signature])).toEqual([
      ['card_le', '(s : Finset Nat) : #s ≤ #s + 1'],
      ['ax', ': #t = 0'],
      ['ay', ': True'],
    ]);
  });

  it('keeps universe parameters and projections glued', () => {
    expect(headers('theorem u.{v} (α : Sort v) (p : α × α) : p.1 = (id p).1 := rfl')[0]).toMatchObject({
      name: 'u',
      signature: '.{v} (α : Sort v) (p : α × α) : p.1 = (id p).1',
    });
    const spaced = headers('theorem u.{v} (α : Sort v) (p : α × α) : p.1 = (id p) .1 := rfl')[0]?.signature;
    expect(spaced).toBe('.{v} (α : Sort v) (p : α × α) : p.1 = (id p) .1');
  });
});

describe('extractLeanHeaders: proofs do not declare', () => {
  it('does not take have/show/let := inside a by block as declarations', () => {
    const text = [
      'theorem t (n : Nat) : n + 0 = n := by',
      '  have h : n + 0 = n := by simp',
      '  let m : Nat := n',
      '  show n + 0 = n',
      '  exact h',
      'theorem u : True := trivial',
    ].join('\n');
    expect(names(text)).toEqual(['t', 'u']);
  });

  it('does not read declarations inside syntax quotations', () => {
    const text = [
      'macro "mk_thm" : command => `(theorem generated : True := trivial)',
      'macro_rules | `(tactic| my_tac) => `(tactic| (have h : True := trivial; exact h))',
      'elab "e" : command => do',
      '  let c ← `(command|',
      '    def gen := 1)',
      '  pure ()',
      'theorem real : True := trivial',
    ].join('\n');
    expect(names(text)).toEqual(['real']);
  });

  it('does not take a keyword that is not followed by a name as a declaration', () => {
    expect(names('def f (lemma : Nat) : Nat := lemma')).toEqual(['f']);
  });
});

describe('extractLeanHeaders: namespaces and sections', () => {
  it('qualifies names with nested namespaces; sections add nothing; end pops', () => {
    const text = [
      'namespace A',
      'theorem a : True := trivial',
      'namespace B.C',
      'theorem c : True := trivial',
      'section S',
      'theorem s : True := trivial',
      'end S',
      'end B.C',
      'noncomputable section',
      'def n : Nat := 0',
      'end',
      'theorem a2 : True := trivial',
      'theorem _root_.top : True := trivial',
      'theorem D.d : True := trivial',
      'end A',
      'theorem z : True := trivial',
    ].join('\n');
    expect(names(text)).toEqual(['A.a', 'A.B.C.c', 'A.B.C.s', 'A.n', 'A.a2', 'top', 'A.D.d', 'z']);
  });

  it('closes namespace A.B one component at a time too', () => {
    expect(
      names('namespace A.B\nend B\ntheorem x : True := trivial\nend A\ntheorem y : True := trivial'),
    ).toEqual(['A.x', 'y']);
  });

  it('handles mutual blocks', () => {
    const text = [
      'namespace M',
      'mutual',
      '  def even : Nat → Bool',
      '    | 0 => true',
      '    | n + 1 => odd n',
      '  def odd : Nat → Bool',
      '    | 0 => false',
      '    | n + 1 => even n',
      'end',
      'theorem after : True := trivial',
      'end M',
    ].join('\n');
    expect(names(text)).toEqual(['M.even', 'M.odd', 'M.after']);
  });

  it('numbers anonymous instances and examples per kind, qualified by namespace', () => {
    const text = [
      'example : True := trivial',
      'namespace N',
      'instance : Inhabited Nat := ⟨0⟩',
      'example : 1 = 1 := rfl',
      'instance : Inhabited Bool := ⟨true⟩',
      'end N',
    ].join('\n');
    expect(names(text)).toEqual(['example@1', 'N.instance@1', 'N.example@2', 'N.instance@2']);
  });

  it('reports variable, include and omit as anonymous context headers', () => {
    const text = [
      'section',
      'variable {α : Type} [DecidableEq α]',
      '  (xs : List α)',
      'include xs',
      'omit [DecidableEq α] in',
      'theorem t : xs = xs := rfl',
      'end',
    ].join('\n');
    expect(headers(text).map((h) => [h.kind, h.name, h.signature])).toEqual([
      ['variable', 'variable@1', '{α : Type} [DecidableEq α] (xs : List α)'],
      ['include', 'include@1', 'xs'],
      ['omit', 'omit@1', '[DecidableEq α] in'],
      ['theorem', 't', ': xs = xs'],
    ]);
  });
});

describe('extractLeanHeaders: size', () => {
  it('handles a large file in one pass', () => {
    const block =
      'theorem t{i} (n : Nat) : n + {i} = {i} + n := by\n  have h : n + {i} = {i} + n := by omega\n  exact h\n';
    const text = Array.from({ length: 20_000 }, (_, i) => block.replaceAll('{i}', String(i))).join('\n');
    const r = extractLeanHeaders(text);
    expect(r.ok && r.headers.length).toBe(20_000);
    expect(r.ok && r.headers[19_999]).toEqual({
      name: 't19999',
      kind: 'theorem',
      signature: '(n : Nat) : n + 19999 = 19999 + n',
      line: 19_999 * 4 + 1,
    });
  });

  it('stays linear on pathological bars and brackets', () => {
    const r = extractLeanHeaders(`theorem t : ${'|a '.repeat(50_000)}${'('.repeat(50_000)} := rfl`);
    expect(r.ok).toBe(true);
  });
});
