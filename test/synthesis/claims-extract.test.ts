/**
 * extractClaims (src/synthesis/claims/extract.ts): real files in every format, the extension
 * dispatch, the size cap, unreadable input as structured errors, and determinism: the same source
 * gives the same queue, and a claim's id survives edits to later claims.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import {
  claimFormatOf,
  claimId,
  extractClaims,
  extractClaimsFromText,
  MAX_SOURCE_BYTES,
} from '../../src/synthesis/claims/index.js';

const dir = mkdtempSync(join(tmpdir(), 'claims-extract-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const fixtures = new URL('../fixtures/synthesis/', import.meta.url);

function copyFixture(name: string, as = name): string {
  const file = join(dir, as);
  writeFileSync(file, readFileSync(new URL(name, fixtures)));
  return file;
}

describe('extractClaims on real files', () => {
  it('numbers the Markdown fixture 1..7 with ids from the text, and selects by index', async () => {
    const file = copyFixture('paper.md');
    const all = await extractClaims(file);
    expect(all.ok && all.claims.map((c) => [c.index, c.id, c.source.line])).toEqual(
      [9, 12, 14, 23, 25, 27, 28].map((line, i) => [
        i + 1,
        all.ok ? claimId(i + 1, all.claims[i]?.text ?? '') : '',
        line,
      ]),
    );
    expect(all.ok && all.claims[0]?.id).toMatch(/^c1-[0-9a-f]{8}$/);
    expect(all.ok && Object.isFrozen(all.claims[0]?.source)).toBe(true);
    const some = await extractClaims(file, '1,6-7');
    expect(some.ok && some.claims.map((c) => c.text)).toEqual([
      'Every prime greater than 2\nis odd.',
      'Addition is commutative.',
      'Multiplication is commutative.',
    ]);
  });

  it('reads .tex, .lean, .txt and .markdown by extension (case-insensitive)', async () => {
    const tex = await extractClaims(copyFixture('paper.tex', 'PAPER.TEX'));
    expect(tex.ok && tex.claims.map((c) => c.name)).toEqual(['odd_primes', null, 'even', 'sum']);
    const lean = await extractClaims(copyFixture('Paper.lean'));
    expect(lean.ok && lean.claims.map((c) => c.name)).toEqual(['odd_of_prime', 'IsEven', "zero_le'"]);
    const txt = await extractClaims(copyFixture('paper.md', 'paper.txt'));
    const md = await extractClaims(copyFixture('paper.md', 'paper.markdown'));
    expect(txt.ok && md.ok && txt.claims.map((c) => c.id)).toEqual(md.ok && md.claims.map((c) => c.id));
  });

  it('the same source in another directory or another run gives the same ids', async () => {
    const a = await extractClaims(copyFixture('paper.tex', 'a.tex'));
    const b = await extractClaims(copyFixture('paper.tex', 'b.tex'));
    expect(a.ok && a.claims.map((c) => c.id)).toEqual(b.ok && b.claims.map((c) => c.id));
  });
});

describe('refusals are structured errors', () => {
  it('unsupported extensions, missing files, directories', async () => {
    expect(await extractClaims(join(dir, 'notes.docx'))).toEqual({
      ok: false,
      error: `${join(dir, 'notes.docx')}: unsupported source format (use .md, .markdown, .txt, .tex, .lean or .pdf)`,
    });
    expect(await extractClaims(join(dir, 'absent.md'))).toEqual({
      ok: false,
      error: `${join(dir, 'absent.md')}: no such file`,
    });
    const sub = join(dir, 'folder.md');
    mkdirSync(sub);
    expect(await extractClaims(sub)).toEqual({ ok: false, error: `${sub}: not a regular file` });
    expect(claimFormatOf('README')).toBeNull();
    expect(extractClaimsFromText('x.pdf', '')).toEqual({
      ok: false,
      error: 'x.pdf: a PDF source is read with extractClaims',
    });
  });

  it('a file over the size cap is refused without being parsed', async () => {
    const big = join(dir, 'big.md');
    writeFileSync(big, Buffer.alloc(MAX_SOURCE_BYTES + 1, 0x2d));
    expect(await extractClaims(big)).toEqual({
      ok: false,
      error: `${big}: ${MAX_SOURCE_BYTES + 1} bytes, larger than the limit of ${MAX_SOURCE_BYTES} bytes`,
    });
  });

  it('invalid UTF-8, NUL bytes, an unclosed environment and a claim-less source', async () => {
    const bad = join(dir, 'bad.md');
    writeFileSync(bad, Buffer.from([0x2d, 0x20, 0xff, 0xfe, 0x0a]));
    expect(await extractClaims(bad)).toEqual({ ok: false, error: `${bad}: not valid UTF-8 text` });
    const nul = join(dir, 'nul.lean');
    writeFileSync(nul, '/-- a -/\ntheorem a : True := trivial\u0000');
    expect(await extractClaims(nul)).toEqual({
      ok: false,
      error: `${nul}: binary content: NUL character at line 2`,
    });
    const open = join(dir, 'open.tex');
    writeFileSync(open, '\\begin{lemma}\nnever closed\n');
    expect(await extractClaims(open)).toEqual({
      ok: false,
      error: `${open}: line 1: \\begin{lemma} is never closed by \\end{lemma}`,
    });
    const prose = join(dir, 'prose.md');
    writeFileSync(prose, 'Only prose here.\n');
    expect(await extractClaims(prose)).toEqual({
      ok: false,
      error: `${prose}: no claims found (see docs/synthesis-claims.md for the rule per format)`,
    });
    expect(await extractClaims(copyFixture('paper.md', 'sel.md'), '99')).toEqual({
      ok: false,
      error: `${join(dir, 'sel.md')}: --claim-select: no claim 99 (the source has 7)`,
    });
  });

  it('a hostile drafter-written Lean target with escapes, a huge line and deep nesting never throws', async () => {
    const file = join(dir, 'Drafted.lean');
    const text = [
      '/-- ok \u001b[2J\u001b]8;;http://evil\u0007 -/',
      'theorem «t\u202e» : True := trivial',
      `-- ${'x'.repeat(3_000_000)}`,
      `${'/- '.repeat(20_000)}${' -/'.repeat(20_000)}`,
      '/-- tail -/ theorem tail : True := trivial',
    ].join('\n');
    writeFileSync(file, text);
    const r = await extractClaims(file);
    expect(r.ok && r.claims.map((c) => [c.text, c.name, c.source.line])).toEqual([
      ['ok [2J]8;;http://evil', '«t»', 1],
      ['tail', 'tail', 5],
    ]);
    expect(JSON.stringify(r)).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
  });
});

describe('fuzzed sources (property)', () => {
  const token = fc.constantFrom(
    '\\begin{lemma}',
    '\\end{lemma}',
    '\\begin{proof}',
    '\\end{proof}',
    '\\label{l:x}',
    '[',
    ']',
    '{',
    '}',
    '%',
    '\\',
    '/--',
    '/-',
    '-/',
    '--',
    '"',
    "'",
    '@[',
    'theorem ',
    'def ',
    '«',
    '»',
    '- ',
    '1. ',
    '**Theorem 1 (T).** ',
    '*Lemma.* ',
    '```',
    '# ',
    '---',
    '    ',
    '\n',
    '\n\n',
    '\r',
    '\t',
    ' ',
    'x',
    'é',
    '\u001b',
    '\u202e',
  );
  const source = fc.array(token, { maxLength: 60 }).map((ts) => ts.join(''));

  it('every text format returns a result (never throws), deterministically, with clean non-empty texts', () => {
    fc.assert(
      fc.property(source, fc.constantFrom('f.md', 'f.tex', 'f.lean'), (text, file) => {
        const r = extractClaimsFromText(file, text);
        expect(extractClaimsFromText(file, text)).toEqual(r);
        if (!r.ok) return;
        for (const c of r.claims) {
          expect(c.text).not.toBe('');
          expect(`${c.text}${c.title ?? ''}${c.name ?? ''}`).not.toMatch(
            /[\u0000-\u0008\u000b-\u001f\u202a-\u202e]/,
          );
          expect(c.source.line).toBeGreaterThanOrEqual(1);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('determinism (property)', () => {
  const item = fc
    .string({ minLength: 1, maxLength: 30 })
    .map((s) => s.replace(/[\r\n\u0000]/g, ' ').trim() || 'x');

  it('the same Markdown list always gives the same queue', () => {
    fc.assert(
      fc.property(fc.array(item, { minLength: 1, maxLength: 12 }), (items) => {
        const text = items.map((s) => `- ${s}`).join('\n');
        const a = extractClaimsFromText('p.md', text);
        const b = extractClaimsFromText('p.md', text);
        expect(a).toEqual(b);
      }),
    );
  });

  it("a claim's id does not change when a later claim changes, is added or is removed", () => {
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[A-Za-z][A-Za-z0-9 =+]{0,20}$/), { minLength: 2, maxLength: 10 }),
        fc.nat(),
        fc.stringMatching(/^[A-Za-z][A-Za-z0-9 ]{0,20}$/),
        (stmts, pick, replacement) => {
          const k = pick % stmts.length;
          const edited = stmts.map((s, i) => (i > k ? `${s} ${replacement}` : s));
          const render = (xs: readonly string[]) => xs.map((s) => `**Lemma.** ${s}\n`).join('\n');
          const before = extractClaimsFromText('p.md', render(stmts));
          const after = extractClaimsFromText('p.md', render([...edited, 'An extra claim.']));
          const shorter = extractClaimsFromText('p.md', render(stmts.slice(0, k + 1)));
          if (!before.ok || !after.ok || !shorter.ok) throw new Error('extraction failed');
          const ids = (r: typeof before, n: number) => (r.ok ? r.claims.slice(0, n).map((c) => c.id) : []);
          expect(ids(after, k + 1)).toEqual(ids(before, k + 1));
          expect(ids(shorter, k + 1)).toEqual(ids(before, k + 1));
        },
      ),
    );
  });
});
