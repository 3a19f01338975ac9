/**
 * The LaTeX claim rule (src/synthesis/claims/tex.ts): theorem-like environments (built-in names,
 * starred forms, `\newtheorem` declarations) with `[title]` and `\label{}`; comments stripped;
 * proofs, verbatim and comment environments skipped; an unclosed environment is a structured error.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { findTexClaims, stripTexComment } from '../../src/synthesis/claims/index.js';

const fixture = readFileSync(new URL('../fixtures/synthesis/paper.tex', import.meta.url), 'utf8');

describe('findTexClaims on the fixture paper', () => {
  it('finds the four claim environments with kinds, titles, label names and begin lines', () => {
    expect(findTexClaims(fixture)).toEqual({
      ok: true,
      found: [
        {
          text: 'Every prime $p > 2$ is odd.',
          title: 'Odd primes',
          kind: 'theorem',
          line: 7,
          page: null,
          name: 'odd_primes',
        },
        {
          text: '$0 \\le n$ for every $n$, and 100\\% true.',
          title: null,
          kind: 'lemma',
          line: 14,
          page: null,
          name: null,
        },
        {
          text: '$n$ is even when $n = 2k$.',
          title: 'Even',
          kind: 'definition',
          line: 18,
          page: null,
          name: 'even',
        },
        {
          text: 'The sum of two even numbers is even.',
          title: null,
          kind: 'corollary',
          line: 24,
          page: null,
          name: 'sum',
        },
      ],
    });
  });
});

describe('environments', () => {
  it('short names, a title with braces and brackets, a multi-line body and a label anywhere in it', () => {
    const doc = [
      '\\begin{prop}[Bound {[x]} on $f$]',
      '  First line,',
      '',
      '  second \\label{prop:f-bound} line.',
      '\\end{prop}',
      '\\begin{clm} inline \\end{clm}',
    ].join('\n');
    const r = findTexClaims(doc);
    expect(r.ok && r.found.map((c) => [c.kind, c.title, c.text, c.name, c.line])).toEqual([
      ['proposition', 'Bound {[x]} on $f$', 'First line,\n\nsecond  line.', 'f_bound', 1],
      ['claim', null, 'inline', null, 6],
    ]);
  });

  it('a claim nested in a claim of the same name is part of the outer text', () => {
    const r = findTexClaims(
      '\\begin{lemma}a \\begin{lemma}b\\end{lemma} c\\end{lemma}\n\\begin{lemma}d\\end{lemma}',
    );
    expect(r.ok && r.found.map((c) => c.text)).toEqual(['a \\begin{lemma}b\\end{lemma} c', 'd']);
  });

  it('the title gives the name when there is no label; an empty environment is no claim', () => {
    const r = findTexClaims(
      '\\begin{theorem}[Main Result]\n X.\n\\end{theorem}\n\\begin{theorem}\n\\end{theorem}',
    );
    expect(r.ok && r.found.map((c) => c.name)).toEqual(['main_result']);
  });

  it('strips comments but keeps escaped percent signs', () => {
    expect(stripTexComment('a \\% b % c')).toBe('a \\% b ');
    expect(stripTexComment('line break \\\\% comment')).toBe('line break \\\\');
  });
});

describe('hostile LaTeX', () => {
  it('an unterminated claim environment is a structured error naming its line, not a hang', () => {
    const doc = `intro\n\\begin{theorem}[T]\n${'x '.repeat(200_000)}\n`;
    expect(findTexClaims(doc)).toEqual({
      ok: false,
      error: 'line 2: \\begin{theorem} is never closed by \\end{theorem}',
    });
  });

  it('an unterminated proof or verbatim is an error too (it would silently swallow later claims)', () => {
    expect(findTexClaims('\\begin{proof}\n\\begin{lemma}x\\end{lemma}').ok).toBe(false);
    expect(findTexClaims('\\begin{verbatim}\n\\begin{lemma}x\\end{lemma}').ok).toBe(false);
  });

  it('ten thousand claims and ten thousand stray begins finish promptly', () => {
    const many = Array.from({ length: 10_000 }, (_, i) => `\\begin{lemma}L${i}\\end{lemma}`).join('\n');
    const r = findTexClaims(many);
    expect(r.ok && r.found.length).toBe(10_000);
    const stray = '\\begin{itemize}'.repeat(10_000);
    expect(findTexClaims(stray)).toEqual({ ok: true, found: [] });
  });

  it('NUL bytes are refused; control characters never reach the claim text or title', () => {
    expect(findTexClaims('\\begin{lemma}a\u0000\\end{lemma}').ok).toBe(false);
    const r = findTexClaims('\\begin{lemma}[T\u001b[31m]x\u0007y\\end{lemma}');
    expect(r.ok && r.found[0]).toMatchObject({ title: 'T[31m', text: 'xy' });
  });
});
