/**
 * Lines of extracted PDF text (layer 1, pure): text items joined into lines by their baseline, a
 * blank line where the vertical gap says a paragraph ends, before a claim header or a proof, and
 * between pages — so the Markdown/text rule can read the result.
 */
import { stripControls } from './clean-text.js';
import { claimHeader, isProofLine } from './keyword.js';

/**
 * One positioned run of text on a page (PDF user space: y grows upwards).
 *
 * @example
 * ```ts
 * const item: PdfTextItem = { str: 'Theorem 1.', x: 72, y: 720, width: 60, height: 12 };
 * ```
 */
export interface PdfTextItem {
  readonly str: string;
  readonly x: number;
  readonly y: number;
  readonly width: number;
  readonly height: number;
}

interface Line {
  readonly y: number;
  height: number;
  readonly parts: PdfTextItem[];
}

function joinParts(parts: readonly PdfTextItem[], height: number): string {
  const sorted = [...parts].sort((a, b) => a.x - b.x);
  let out = '';
  let prev: PdfTextItem | null = null;
  for (const part of sorted) {
    if (prev !== null && !/\s$/.test(out) && !/^\s/.test(part.str)) {
      const gap = part.x - (prev.x + prev.width);
      if (gap > 0.15 * height) out += ' ';
    }
    out += part.str;
    prev = part;
  }
  return stripControls(out).replace(/\s+/g, ' ').trim();
}

/**
 * The lines of one page from its text items in content order; `''` marks a paragraph break: a gap
 * larger than 1.5 line heights, a jump upwards (a new column), or a line that opens with a claim
 * header (`Theorem 2.`) or a proof (`Proof.`).
 *
 * @example
 * ```ts
 * pdfPageLines([
 *   { str: 'Theorem 1. Every x', x: 72, y: 720, width: 100, height: 12 },
 *   { str: 'is x.', x: 72, y: 706, width: 30, height: 12 },
 *   { str: 'Unrelated.', x: 72, y: 650, width: 60, height: 12 },
 * ]); // ['Theorem 1. Every x', 'is x.', '', 'Unrelated.']
 * ```
 */
export function pdfPageLines(items: readonly PdfTextItem[]): string[] {
  const lines: Line[] = [];
  for (const item of items) {
    if (item.str === '' || !Number.isFinite(item.y) || !Number.isFinite(item.x)) continue;
    const height = Number.isFinite(item.height) && item.height > 0 ? item.height : 1;
    const current = lines[lines.length - 1];
    if (current !== undefined && Math.abs(current.y - item.y) <= 0.5 * Math.max(height, current.height)) {
      current.parts.push(item);
      current.height = Math.max(current.height, height);
    } else {
      lines.push({ y: item.y, height, parts: [item] });
    }
  }
  const out: string[] = [];
  let prev: Line | null = null;
  for (const line of lines) {
    const text = joinParts(line.parts, line.height);
    if (text === '') continue;
    if (prev !== null && out[out.length - 1] !== '') {
      const gap = prev.y - line.y;
      const breaks =
        gap < 0 ||
        gap > 1.5 * Math.max(prev.height, line.height) ||
        claimHeader(text) !== null ||
        isProofLine(text);
      if (breaks) out.push('');
    }
    out.push(text);
    prev = line;
  }
  return out;
}

/**
 * The text of a document from its pages' lines, pages separated by a blank line, with the 1-based
 * page of every line of the text (for the claims' `page`).
 *
 * @example
 * ```ts
 * pdfText([['Lemma 1. A.'], ['Lemma 2. B.']]);
 * // { text: 'Lemma 1. A.\n\nLemma 2. B.', pages: [1, 1, 2] }
 * ```
 */
export function pdfText(pages: readonly (readonly string[])[]): { text: string; pages: number[] } {
  const lines: string[] = [];
  const pageOf: number[] = [];
  pages.forEach((pageLines, i) => {
    if (i > 0) {
      lines.push('');
      pageOf.push(i);
    }
    for (const l of pageLines) {
      lines.push(l);
      pageOf.push(i + 1);
    }
  });
  return { text: lines.join('\n'), pages: pageOf };
}
