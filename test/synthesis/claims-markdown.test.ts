/**
 * The Markdown/text claim rule (src/synthesis/claims/markdown.ts): top-level list items and keyword
 * paragraphs are claims, in document order with their lines; nested items belong to their parent;
 * fences, headings, front matter and indented code are skipped.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  claimHeader,
  findTextClaims,
  isProofLine,
  nameFromLabel,
  nameFromTitle,
} from '../../src/synthesis/claims/index.js';

const fixture = readFileSync(new URL('../fixtures/synthesis/paper.md', import.meta.url), 'utf8');

function texts(text: string): string[] {
  const r = findTextClaims(text);
  if (!r.ok) throw new Error(r.error);
  return r.found.map((c) => c.text);
}

describe('findTextClaims on the fixture paper', () => {
  it('finds exactly the keyword paragraphs and top-level items, with kinds, titles, names and lines', () => {
    const r = findTextClaims(fixture);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.found).toEqual([
      {
        text: 'Every prime greater than 2\nis odd.',
        title: 'Odd primes',
        kind: 'theorem',
        line: 9,
        page: null,
        name: 'odd_primes',
      },
      {
        text: 'Zero is at most every natural number.',
        title: null,
        kind: 'lemma',
        line: 12,
        page: null,
        name: null,
      },
      {
        text: 'a natural number `n` is even when `n = 2 * k` for some `k`.',
        title: 'Even number',
        kind: 'definition',
        line: 14,
        page: null,
        name: 'even_number',
      },
      {
        text: 'The sum of two even numbers is even.\n- nested: this belongs to the item above',
        title: null,
        kind: 'claim',
        line: 23,
        page: null,
        name: null,
      },
      { text: 'For every `n`, `n + 0 = n`.', title: null, kind: 'claim', line: 25, page: null, name: null },
      { text: 'Addition is commutative.', title: null, kind: 'claim', line: 27, page: null, name: null },
      {
        text: 'Multiplication is commutative.',
        title: null,
        kind: 'claim',
        line: 28,
        page: null,
        name: null,
      },
    ]);
  });

  it('reads CRLF line ends and a byte-order mark the same way', () => {
    const crlf = `\uFEFF${fixture.replace(/\n/g, '\r\n')}`;
    expect(findTextClaims(crlf)).toEqual(findTextClaims(fixture));
  });
});

describe('list items', () => {
  it('every bullet and ordered marker starts a top-level item; nested items and indented lines stay inside', () => {
    const r = findTextClaims(
      '* a\n    * deep\n      * deeper\n+ b\n  continued\n10. c\n\n    after a blank, indented\n',
    );
    expect(r.ok && r.found.map((c) => [c.text, c.line])).toEqual([
      ['a\n  * deep\n    * deeper', 1],
      ['b\ncontinued', 4],
      ['c\n\nafter a blank, indented', 6],
    ]);
  });

  it('a lazy continuation line joins the item, a non-indented paragraph after a blank line ends it', () => {
    expect(texts('- first\nlazy line\n\nplain paragraph\n- second\n')).toEqual([
      'first\nlazy line',
      'second',
    ]);
  });

  it('an item that opens with a claim header takes its kind and title', () => {
    const r = findTextClaims('1. **Theorem (Main).** All is well.\n');
    expect(r.ok && r.found[0]).toMatchObject({
      kind: 'theorem',
      title: 'Main',
      name: 'main',
      text: 'All is well.',
    });
  });

  it('a fence inside an item is skipped but does not end the item; an empty item is no claim', () => {
    expect(texts('- a\n  ```\n  - fenced\n  ```\n  b\n-\n- c\n')).toEqual(['a\nb', 'c']);
  });

  it('thematic breaks are not items', () => {
    expect(texts('* * *\n- - -\n___\n- real\n')).toEqual(['real']);
  });
});

describe('keyword paragraphs', () => {
  it('accepts bold, italic, numbered, titled and colon forms; prose paragraphs are not claims', () => {
    const doc = [
      'Theorem. Plain.',
      '',
      '__Corollary 3.2__. Underscored bold.',
      '',
      'PROPOSITION A: Upper case.',
      '',
      '_Claim (Small)._ Italic.',
      '',
      'Theorems are discussed here.',
      '',
      'theorem 1. lower-case keyword is prose.',
      '',
      '**Lemma 4.** ',
      '',
      '**Lemma 5. unbalanced emphasis** is prose.',
    ].join('\n');
    const r = findTextClaims(doc);
    expect(r.ok && r.found.map((c) => [c.kind, c.title, c.text, c.line])).toEqual([
      ['theorem', null, 'Plain.', 1],
      ['corollary', null, 'Underscored bold.', 3],
      ['proposition', null, 'Upper case.', 5],
      ['claim', 'Small', 'Italic.', 7],
    ]);
  });

  it('a paragraph under a setext underline is a heading, not a claim', () => {
    expect(texts('Theorem 1. Heading text\n=====\n\nLemma 2. Kept.\n')).toEqual(['Kept.']);
  });

  it('an unterminated fence hides the rest of the document', () => {
    expect(texts('- before\n~~~\n- hidden\n')).toEqual(['before']);
  });
});

describe('claimHeader, isProofLine and the name rules', () => {
  it('measures the header so the statement starts after it', () => {
    const line = '**Theorem 2 (Foo).** Every x is x.';
    const h = claimHeader(line);
    expect(h).toEqual({ kind: 'theorem', number: '2', title: 'Foo', length: 20 });
    expect(line.slice(h?.length).trim()).toBe('Every x is x.');
    expect(claimHeader('Theorem 2.1. Dotted number.')).toMatchObject({ number: '2.1' });
    expect(claimHeader('Claim that x')).toBeNull();
  });

  it('recognises proofs only as a heading word', () => {
    expect(isProofLine('Proof. Trivial.')).toBe(true);
    expect(isProofLine('*Proof (of Theorem 2).* Induction.')).toBe(true);
    expect(isProofLine('Proofs are long.')).toBe(false);
  });

  it('turns titles and labels into Lean-style names, or null', () => {
    expect(nameFromTitle('Cauchy–Schwarz inequality')).toBe('cauchy_schwarz_inequality');
    expect(nameFromTitle('Gödel’s theorem')).toBe('godel_s_theorem');
    expect(nameFromTitle('2-cycles')).toBeNull();
    expect(nameFromTitle('∑∏')).toBeNull();
    expect(nameFromTitle('x'.repeat(100))).toHaveLength(64);
    expect(nameFromLabel('thm:foo')).toBe('foo');
    expect(nameFromLabel('lem:main-bound')).toBe('main_bound');
    expect(nameFromLabel('Nat.add_comm')).toBe('Nat.add_comm');
    expect(nameFromLabel('eq:1')).toBeNull();
  });
});

describe('hostile text', () => {
  it('drops terminal escapes and bidi overrides from a drafter-written source; a lone CR ends a line', () => {
    const r = findTextClaims('- safe \u001b]0;pwned\u0007text\u202e with \r override\u009b\n');
    expect(r.ok && r.found[0]?.text).toBe('safe ]0;pwnedtext with\noverride');
  });

  it('refuses NUL bytes as binary content, naming the line', () => {
    expect(findTextClaims('- a\n- b\u0000c\n')).toEqual({
      ok: false,
      error: 'binary content: NUL character at line 2',
    });
  });

  it('a 5 MB line and 5,000 levels of nesting finish quickly as single claims', () => {
    const huge = `- ${'x'.repeat(5_000_000)}\n`;
    const hr = findTextClaims(huge);
    expect(hr.ok && hr.found[0]?.text.length).toBe(5_000_000);
    const nested = Array.from({ length: 5000 }, (_, i) => `${' '.repeat(2 * i)}- level ${i}`).join('\n');
    const nr = findTextClaims(nested);
    expect(nr.ok && nr.found.length).toBe(1);
    const headerish = `**Theorem ${'1'.repeat(100_000)} (${'('.repeat(100_000)}`;
    expect(findTextClaims(headerish)).toEqual({ ok: true, found: [] });
  });
});
