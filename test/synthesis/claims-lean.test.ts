/**
 * The Lean claim rule (src/synthesis/claims/lean.ts): declarations with a `/-- doc -/` comment are
 * claims (text = the doc, name = the declaration name); comments nest, strings and char literals
 * are skipped; unterminated comments and strings are structured errors.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findLeanClaims } from '../../src/synthesis/claims/index.js';

const fixture = readFileSync(new URL('../fixtures/synthesis/Paper.lean', import.meta.url), 'utf8');

describe('findLeanClaims on the fixture', () => {
  it('finds the three documented declarations, skipping module docs, comments, strings and a doc on a namespace', () => {
    expect(findLeanClaims(fixture)).toEqual({
      ok: true,
      found: [
        {
          text: 'Every prime greater than two is odd.',
          title: null,
          kind: 'theorem',
          line: 7,
          page: null,
          name: 'odd_of_prime',
        },
        {
          text: 'A number is *even* when it is twice another.\n\nUsed throughout.',
          title: null,
          kind: 'definition',
          line: 14,
          page: null,
          name: 'IsEven',
        },
        {
          text: 'Zero is at most everything.',
          title: null,
          kind: 'lemma',
          line: 22,
          page: null,
          name: "zero_le'",
        },
      ],
    });
  });
});

describe('declarations', () => {
  it('modifiers, attributes with nested brackets, comments between doc and declaration, and the kinds', () => {
    const doc = [
      '/-- an instance -/',
      '@[simp, to_additive (attr := simp) [x]] -- note',
      '/- plain -/ noncomputable scoped instance instFoo : Foo := ⟨⟩',
      '/-- unnamed -/ instance : Bar := ⟨⟩',
      '/-- an axiom -/ axiom choice_ax : True',
      '/-- an example -/ example : 1 = 1 := rfl',
      '/-- a structure -/ structure Point.«my point» where',
      '/-- twice -/ /-- documented twice -/ def twice := 2',
      '/-- prioritised -/ instance (priority := low) instLow : Baz := ⟨⟩',
    ].join('\n');
    const r = findLeanClaims(doc);
    expect(r.ok && r.found.map((c) => [c.kind, c.name, c.text, c.line])).toEqual([
      ['definition', 'instFoo', 'an instance', 1],
      ['definition', null, 'unnamed', 4],
      ['claim', 'choice_ax', 'an axiom', 5],
      ['claim', null, 'an example', 6],
      ['definition', 'Point.«my point»', 'a structure', 7],
      ['definition', 'twice', 'documented twice', 8],
      ['definition', 'instLow', 'prioritised', 9],
    ]);
  });

  it('a doc comment before something that is not a declaration, or an identifier that merely starts with a keyword, is no claim', () => {
    const r = findLeanClaims('/-- x -/ variable (n : ℕ)\n/-- y -/ theorems_are_fun\n/-- z -/ def.foo\n');
    expect(r).toEqual({ ok: true, found: [] });
  });

  it('char literals and strings hide comment openers', () => {
    const doc =
      'def q := \'"\'\n/-- real -/ def r := "/-- fake -/ \\" still string"\ndef c := \'/\'\n/-- last -/ def l := 0';
    const r = findLeanClaims(doc);
    expect(r.ok && r.found.map((c) => c.name)).toEqual(['r', 'l']);
  });
});

describe('hostile Lean (a target file a drafter wrote)', () => {
  it('an unterminated doc comment or string is a structured error naming the line', () => {
    expect(findLeanClaims('def a := 1\n/-- never closed\ntheorem t : True := trivial')).toEqual({
      ok: false,
      error: 'line 2: comment is never closed by -/',
    });
    expect(findLeanClaims('def a := 1\n\ndef s := "open')).toEqual({
      ok: false,
      error: 'line 3: string literal is never closed',
    });
  });

  it('escape sequences and bidi overrides in the doc and the «name» are dropped', () => {
    const r = findLeanClaims(
      '/-- ok\u001b[2J\u202e done -/\ntheorem «evil\u001b]0;x\u0007» : True := trivial',
    );
    expect(r.ok && r.found[0]).toMatchObject({ text: 'ok[2J done', name: '«evil]0;x»' });
  });

  it('deeply nested comments and 10,000 doc comments finish promptly', () => {
    const nested = `${'/- '.repeat(50_000)}${' -/'.repeat(50_000)}\n/-- d -/ def d := 0`;
    const r = findLeanClaims(nested);
    expect(r.ok && r.found.map((c) => c.name)).toEqual(['d']);
    const many = Array.from(
      { length: 10_000 },
      (_, i) => `/-- doc ${i} -/\ntheorem t${i} : True := trivial`,
    ).join('\n');
    const m = findLeanClaims(many);
    expect(m.ok && m.found.length).toBe(10_000);
    expect(m.ok && m.found[9_999]).toMatchObject({ name: 't9999', line: 19_999 });
  });
});
