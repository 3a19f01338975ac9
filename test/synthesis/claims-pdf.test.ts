/**
 * PDF sources (src/synthesis/claims/pdf.ts, pdf-lines.ts): a PDF 1.4 written by hand in the test
 * (catalog, pages, Helvetica text streams, exact xref offsets) is read with pdfjs-dist; the lines
 * become text, the text rule finds the claims, each with its page. Bad PDFs and a missing pdfjs are
 * structured errors; pdfjs prints nothing (the suite fails on console output).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  claimId,
  extractClaims,
  findPdfClaims,
  PDF_TIMEOUT_MS,
  type PdfjsModule,
  pdfPageLines,
  pdfText,
} from '../../src/synthesis/claims/index.js';

/** A minimal PDF: one page per entry, one line of Helvetica 12/14 per string, `''` an empty line. */
function buildPdf(pages: readonly (readonly string[])[]): Buffer {
  const objects: string[] = ['<< /Type /Catalog /Pages 2 0 R >>'];
  const kids = pages.map((_, i) => `${4 + 2 * i} 0 R`).join(' ');
  objects.push(`<< /Type /Pages /Kids [${kids}] /Count ${pages.length} >>`);
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  pages.forEach((lines, i) => {
    let stream = 'BT /F1 12 Tf 72 720 Td 14 TL\n';
    for (const line of lines) {
      stream += line === '' ? 'T*\n' : `(${line.replace(/([()\\])/g, '\\$1')}) Tj T*\n`;
    }
    stream += 'ET\n';
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + 2 * i} 0 R >>`,
    );
    objects.push(`<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}endstream`);
  });
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const PAGES = [
  [
    'Theorem 1 (Foo). Every x is x.',
    'It continues here.',
    '',
    '',
    'Some prose, not a claim.',
    'Lemma 2. Zero is small.',
  ],
  ['Proposition 3. Ones are ones.', 'Proof. Obvious.', '', '', 'Corollary 4. Red\u001b[31m text.'],
];

const dir = mkdtempSync(join(tmpdir(), 'claims-pdf-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('a generated two-page PDF', () => {
  it('yields the claims of both pages in order, with their pages, no lines, and no escape character surviving', async () => {
    const r = await findPdfClaims(new Uint8Array(buildPdf(PAGES)));
    expect(r).toEqual({
      ok: true,
      found: [
        {
          text: 'Every x is x.\nIt continues here.',
          title: 'Foo',
          kind: 'theorem',
          line: null,
          page: 1,
          name: 'foo',
        },
        { text: 'Zero is small.', title: null, kind: 'lemma', line: null, page: 1, name: null },
        { text: 'Ones are ones.', title: null, kind: 'proposition', line: null, page: 2, name: null },
        { text: 'Red [31m text.', title: null, kind: 'corollary', line: null, page: 2, name: null },
      ],
    });
  });

  it('extractClaims reads it from disk, numbers it, and selects from it; the input bytes are left intact', async () => {
    const file = join(dir, 'paper.pdf');
    const bytes = buildPdf(PAGES);
    writeFileSync(file, bytes);
    const r = await extractClaims(file, '2-3');
    expect(r.ok && r.claims.map((c) => [c.id, c.index, c.kind, c.source])).toEqual([
      [claimId(2, 'Zero is small.'), 2, 'lemma', { file, line: null, page: 1 }],
      [claimId(3, 'Ones are ones.'), 3, 'proposition', { file, line: null, page: 2 }],
    ]);
    const data = new Uint8Array(bytes);
    await findPdfClaims(data);
    expect(Buffer.from(data).equals(bytes)).toBe(true);
  });

  it('a page limit refuses longer documents', async () => {
    expect(await findPdfClaims(new Uint8Array(buildPdf(PAGES)), { maxPages: 1 })).toEqual({
      ok: false,
      error: '2 pages, more than the limit of 1',
    });
  });
});

describe('bad PDFs and a missing pdfjs', () => {
  it('garbage, a truncated file and an empty file are structured errors, not throws', async () => {
    const whole = buildPdf(PAGES);
    for (const data of [Buffer.from('%PDF-1.4\nnot really'), whole.subarray(0, 200), Buffer.alloc(0)]) {
      const r = await findPdfClaims(new Uint8Array(data));
      expect(r.ok).toBe(false);
      expect(!r.ok && r.error).toMatch(/^not a readable PDF: /);
    }
  });

  it('a PDF with no claim text is an error at the extractClaims level', async () => {
    const file = join(dir, 'empty.pdf');
    writeFileSync(file, buildPdf([['Just prose.']]));
    expect(await extractClaims(file)).toEqual({
      ok: false,
      error: `${file}: no claims found (see docs/synthesis-claims.md for the rule per format)`,
    });
  });

  it('without pdfjs-dist the error names the package; other load failures say so', async () => {
    const missing = Object.assign(new Error("Cannot find package 'pdfjs-dist'"), {
      code: 'ERR_MODULE_NOT_FOUND',
    });
    const r = await findPdfClaims(new Uint8Array(buildPdf(PAGES)), {
      loadPdfjs: () => Promise.reject(missing),
    });
    expect(r).toEqual({
      ok: false,
      error: 'PDF sources need the optional dependency pdfjs-dist (npm install pdfjs-dist@~5.6)',
    });
    const broken = await findPdfClaims(new Uint8Array(1), {
      loadPdfjs: () => Promise.reject(new Error('boom\u001b[2J')),
    });
    expect(broken).toEqual({ ok: false, error: 'pdfjs-dist could not be loaded: boom[2J' });
  });
});

describe('a hanging pdfjs hits the time limit', () => {
  it('a document that never opens: a structured error after timeoutMs, the task destroyed', async () => {
    let destroyed = 0;
    const hanging: PdfjsModule = {
      getDocument: () => ({ promise: new Promise(() => {}), destroy: async () => void destroyed++ }),
    };
    const r = await findPdfClaims(new Uint8Array(buildPdf(PAGES)), {
      loadPdfjs: async () => hanging,
      timeoutMs: 30,
    });
    expect(r).toEqual({
      ok: false,
      error: 'pdfjs-dist did not finish reading the PDF within 30 ms (the PDF time limit)',
    });
    expect(destroyed).toBeGreaterThanOrEqual(1);
  });

  it('a loader that never settles and a page that never yields its text are bounded too', async () => {
    const never = await findPdfClaims(new Uint8Array(1), {
      loadPdfjs: () => new Promise(() => {}),
      timeoutMs: 20,
    });
    expect(!never.ok && never.error).toMatch(/within 20 ms/);
    const stuckPage: PdfjsModule = {
      getDocument: () => ({
        promise: Promise.resolve({ numPages: 1, getPage: () => new Promise(() => {}) }),
        destroy: async () => {},
      }),
    };
    const r = await findPdfClaims(new Uint8Array(1), { loadPdfjs: async () => stuckPage, timeoutMs: 20 });
    expect(!r.ok && r.error).toMatch(/within 20 ms/);
  });

  it('extractClaims reports it like the other source errors (prefixed by the file); a bad limit is refused', async () => {
    const file = join(dir, 'slow.pdf');
    writeFileSync(file, buildPdf(PAGES));
    const slow: PdfjsModule = {
      getDocument: () => ({ promise: new Promise(() => {}), destroy: async () => {} }),
    };
    expect(await extractClaims(file, undefined, { loadPdfjs: async () => slow, timeoutMs: 25 })).toEqual({
      ok: false,
      error: `${file}: pdfjs-dist did not finish reading the PDF within 25 ms (the PDF time limit)`,
    });
    expect(await findPdfClaims(new Uint8Array(1), { timeoutMs: 0 })).toEqual({
      ok: false,
      error: 'the PDF time limit must be a positive number of ms, got 0',
    });
    expect(PDF_TIMEOUT_MS).toBe(60_000);
  });

  it('a real PDF well within the limit still yields its claims', async () => {
    const r = await findPdfClaims(new Uint8Array(buildPdf(PAGES)), { timeoutMs: 30_000 });
    expect(r.ok && r.found.length).toBe(4);
  });
});

describe('pdfPageLines and pdfText (pure)', () => {
  const item = (str: string, x: number, y: number, width = 50, height = 12) => ({ str, x, y, width, height });

  it('joins items on one baseline in x order, spacing them only across a gap', () => {
    expect(
      pdfPageLines([item('world', 130, 700), item('Hello', 72, 700.4, 50), item('!', 180, 700, 5)]),
    ).toEqual(['Hello world!']);
  });

  it('breaks paragraphs at a large gap, a jump upwards, a claim header and a proof', () => {
    const lines = pdfPageLines([
      item('one', 72, 700),
      item('two', 72, 686),
      item('three', 72, 640),
      item('four', 300, 700),
      item('Lemma 1. x', 300, 686),
      item('Proof. y', 300, 672),
      item('', 300, 600),
    ]);
    expect(lines).toEqual(['one', 'two', '', 'three', '', 'four', '', 'Lemma 1. x', '', 'Proof. y']);
  });

  it('pdfText separates pages with a blank line and maps every line to its page', () => {
    expect(pdfText([['a', 'b'], [], ['c']])).toEqual({ text: 'a\nb\n\n\nc', pages: [1, 1, 1, 2, 3] });
  });
});
