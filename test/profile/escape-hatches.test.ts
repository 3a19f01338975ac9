/**
 * "Solved means verified" as pure rules: the escape-hatch scan (token-aware, per declaration),
 * the readable-text rule (unverifiable, never skipped) and the target-solved verdict, with every
 * bypass the hostile round found as a case.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkedText, MAX_CHECKED_BYTES, normalizeLineEndings } from '../../src/profile/checked-text.js';
import {
  declarationAt,
  LEAN_ESCAPE_HATCHES,
  PREAMBLE,
  scanEscapeHatches,
} from '../../src/profile/escape-hatches.js';
import { leanProfile } from '../../src/profile/index.js';
import { targetSolved } from '../../src/profile/target-solved.js';

const policy = { words: LEAN_ESCAPE_HATCHES };
const BEFORE = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n\ntheorem u : True := trivial\n';
const judge = (after: string | Uint8Array, scope: 'sorry' | 'file' = 'sorry') =>
  targetSolved({
    before: BEFORE,
    line: 2,
    policy,
    scope,
    after: typeof after === 'string' ? Buffer.from(after) : after,
  });

describe('checkedText: only text within the read size is checked', () => {
  it('normalizes CRLF and bare CR to LF', () => {
    expect(normalizeLineEndings('a\r\nb\rc\n')).toBe('a\nb\nc\n');
    expect(checkedText(Buffer.from('x\ry'))).toEqual({ ok: true, text: 'x\ny' });
  });
  it('a NUL byte, invalid UTF-8 or an oversized file is unverifiable, with the reason', () => {
    expect(checkedText(Buffer.from('-- \0\nsorry'))).toEqual({
      ok: false,
      reason: 'unverifiable: a NUL byte at offset 3 (not text)',
    });
    expect(checkedText(Buffer.from([0x73, 0xff, 0x0a]))).toEqual({
      ok: false,
      reason: 'unverifiable: not valid UTF-8 text',
    });
    const r = checkedText(Buffer.alloc(11, 0x61), 10);
    expect(r.ok).toBe(false);
    expect(!r.ok && r.reason).toMatch(/^unverifiable: 11 bytes, over the 10 bytes/);
    expect(MAX_CHECKED_BYTES).toBe(8 * 1024 * 1024);
  });
});

describe('scanEscapeHatches: token-aware, per declaration', () => {
  it('finds sorry, admit and sorryAx (dotted or escaped) — not in comments, strings or longer names', () => {
    const text = [
      'theorem t : True := by', // 1
      '  -- sorry in a line comment', // 2
      '  /- sorry /- nested sorry -/ -/', // 3
      '  have h := "sorry"', // 4
      '  exact sorryAx _', // 5
      'theorem u : 1 = 1 := by admit', // 6
      'def sorryFree := mySorry + sorry_count', // 7
      'example : True := Lean.sorryAx _ «sorry»', // 8
    ].join('\n');
    const s = scanEscapeHatches(text, policy);
    expect(s.ok && s.hatches).toEqual([
      { line: 5, word: 'sorryAx', declaration: 'theorem t' },
      { line: 6, word: 'admit', declaration: 'theorem u' },
      { line: 8, word: 'sorryAx', declaration: 'example #1' },
      { line: 8, word: 'sorry', declaration: 'example #1' },
    ]);
  });
  it('native_decide only where the policy forbids it; a new axiom only against the known ones', () => {
    const text = 'axiom old : False\ntheorem t : 2 + 2 = 4 := by native_decide\naxiom cheat : 1 = 2\n';
    const allowed = scanEscapeHatches(text, { words: LEAN_ESCAPE_HATCHES, knownAxioms: new Set(['old']) });
    expect(allowed.ok && allowed.hatches).toEqual([{ line: 3, word: 'axiom', declaration: 'axiom cheat' }]);
    expect(allowed.ok && allowed.axioms).toEqual(['old', 'cheat']);
    const forbidden = scanEscapeHatches(text, { words: [...LEAN_ESCAPE_HATCHES, 'native_decide'] });
    expect(forbidden.ok && forbidden.hatches.map((h) => h.word)).toEqual(['native_decide']);
  });
  it('what a worker inserts between declaration keywords stays in the declaration', () => {
    const text =
      'theorem t : True := by\n  set_option maxHeartbeats 1 in\n  open Nat in\n#check 1\n  sorry\n';
    const s = scanEscapeHatches(text, policy);
    expect(s.ok && s.hatches).toEqual([{ line: 5, word: 'sorry', declaration: 'theorem t' }]);
    expect(declarationAt(text, 5)).toBe('theorem t');
    expect(declarationAt('#check sorry\ntheorem t : True := trivial\n', 1)).toBe(PREAMBLE);
  });
  it('an unterminated comment is unverifiable, not an empty scan', () => {
    const s = scanEscapeHatches('theorem t : True := by\n  /- sorry\n', policy);
    expect(s.ok).toBe(false);
    expect(!s.ok && s.reason).toMatch(/^unverifiable: cannot tokenize \(unterminated block comment/);
  });
  it('the lean profile lists the hatches; native_decide joins when the policy forbids it', () => {
    expect(leanProfile().escapeHatches).toEqual(['sorry', 'admit', 'sorryAx']);
    expect(leanProfile({ nativeDecide: 'forbidden' }).escapeHatches).toContain('native_decide');
    expect(leanProfile().sourceExtensions).toEqual(['.lean']);
  });
});

describe('targetSolved: every bypass of the hostile round stays unsolved', () => {
  it('an honest proof is solved', () => {
    expect(judge('theorem t (n : Nat) : n + 0 = n := by\n  rfl\n\ntheorem u : True := trivial\n')).toEqual({
      solved: true,
    });
  });
  const cases: [string, string | Uint8Array, RegExp][] = [
    [
      'a blank line moves the sorry',
      'theorem t (n : Nat) : n + 0 = n := by\n\n  sorry\n',
      /`sorry` still in theorem t \(line 3\)/,
    ],
    [
      'the sorry moves to the statement line',
      'theorem t (n : Nat) : n + 0 = n := by sorry\n',
      /still in theorem t/,
    ],
    [
      'bare CR line endings',
      'theorem t (n : Nat) : n + 0 = n := by\r  rfl\r\r  sorry\r',
      /still in theorem t \(line 4\)/,
    ],
    [
      'CRLF line endings',
      'theorem t (n : Nat) : n + 0 = n := by\r\n  sorry\r\n',
      /still in theorem t \(line 2\)/,
    ],
    ['admit', 'theorem t (n : Nat) : n + 0 = n := by\n  admit\n', /`admit` still in theorem t/],
    ['exact sorryAx _', 'theorem t (n : Nat) : n + 0 = n := by\n  exact sorryAx _\n', /`sorryAx` still/],
    ['Lean.sorryAx', 'theorem t (n : Nat) : n + 0 = n :=\n  Lean.sorryAx _ false\n', /`sorryAx` still/],
    [
      'a NUL byte in a comment',
      'theorem t (n : Nat) : n + 0 = n := by\n  -- \0\n  sorry\n',
      /^unverifiable: a NUL byte/,
    ],
    [
      'invalid UTF-8',
      Buffer.concat([Buffer.from('theorem t : True := by\n  sorry -- '), Buffer.from([0xc3, 0x28])]),
      /^unverifiable: not valid UTF-8/,
    ],
    [
      'an oversized comment',
      `theorem t (n : Nat) : n + 0 = n := by\n  -- ${'x'.repeat(MAX_CHECKED_BYTES)}\n  sorry\n`,
      /^unverifiable: \d+ bytes, over/,
    ],
    [
      'an unterminated comment hiding the rest',
      'theorem t (n : Nat) : n + 0 = n := by\n  /- sorry\n',
      /^unverifiable: cannot tokenize/,
    ],
    ['the declaration deleted', 'theorem u : True := trivial\n', /theorem t is gone/],
  ];
  for (const [name, after, why] of cases) {
    it(`${name} → not solved`, () => {
      const v = judge(after);
      expect(v.solved).toBe(false);
      expect(!v.solved && v.reason).toMatch(why);
    });
  }
  it('under scope file the file is solved only when it holds no hatch at all', () => {
    const other = 'theorem t (n : Nat) : n + 0 = n := by\n  rfl\n\ntheorem u : True := by\n  sorry\n';
    expect(judge(other).solved).toBe(true);
    const v = judge(other, 'file');
    expect(!v.solved && v.reason).toBe('`sorry` still in the file (line 5)');
  });
  it('property: inserting blank lines or comments anywhere never makes a sorry-holding text solved', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('\n', '\r', '\r\n', ' ', '-- c\n', '/- c -/', '\n\n'), { maxLength: 6 }),
        fc.nat({ max: 40 }),
        (junk, at) => {
          const body = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
          const cut = 24 + (at % (body.length - 24 - 8));
          const after = body.slice(0, cut) + junk.join('') + body.slice(cut);
          // the junk may split a token (`so rry` is not the hatch, and no proof either); a text
          // that still spells the hatch stays unsolved
          if (!/\bsorry\b/.test(after)) return;
          expect(judge(after).solved).toBe(false);
        },
      ),
      { seed: 20261206, numRuns: 300 },
    );
  });
});
