/**
 * Claims of a Markdown or plain-text source (layer 1, pure; docs/synthesis-claims.md § Markdown):
 * one claim per top-level list item (`-`, `*`, `+`, `1.`, `1)`), and one per paragraph that opens
 * with a claim keyword header (`**Theorem 2 (Foo).** …`). Nested list items, and lines indented
 * under an item, belong to their parent; code (fenced or indented), headings, thematic breaks and
 * YAML front matter are skipped. Other paragraphs are not claims.
 */
import { blockText, splitLines, textProblem } from './clean-text.js';
import { claimHeader } from './keyword.js';
import { nameFromTitle } from './names.js';
import type { ClaimKind, FoundClaim, FoundClaimsResult } from './types.js';

/**
 * Options of {@link findTextClaims}.
 *
 * @example
 * ```ts
 * findTextClaims('Lemma 1. A.\n\nLemma 2. B.', { pages: [1, 1, 2] }); // claims on pages 1 and 2
 * ```
 */
export interface TextClaimOptions {
  /**
   * The page of each line (0-based line index → 1-based page), for text extracted from a PDF: the
   * claims then carry `page` and no `line`.
   */
  readonly pages?: readonly number[];
}

interface Block {
  readonly item: boolean;
  readonly start: number;
  readonly lines: string[];
  readonly contentIndent: number;
  sawBlank: boolean;
}

const FENCE = /^( *)(`{3,}|~{3,})/;
const HEADING = /^ {0,3}#{1,6}(?:[ \t]|$)/;
const SETEXT = /^ {0,3}(?:=+|-+)[ \t]*$/;
const BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
const MARKER = /^( {0,3})([-*+]|\d{1,9}[.)])(?:([ \t]+)|$)/;

function indentOf(line: string): number {
  let n = 0;
  for (const ch of line) {
    if (ch === ' ') n += 1;
    else if (ch === '\t') n += 4 - (n % 4);
    else break;
  }
  return n;
}

function dropIndent(line: string, count: number): string {
  let i = 0;
  let n = 0;
  while (i < line.length && n < count && (line[i] === ' ' || line[i] === '\t')) {
    n += line[i] === '\t' ? 4 - (n % 4) : 1;
    i += 1;
  }
  return line.slice(i);
}

function claimOf(block: Block, pages: readonly number[] | undefined): FoundClaim | null {
  const [first = '', ...rest] = block.lines;
  const header = claimHeader(first);
  if (!block.item && header === null) return null;
  const head = header === null ? first : first.slice(header.length).trimStart();
  const text = blockText([head, ...rest]);
  if (text === '') return null;
  const kind: ClaimKind = header?.kind ?? 'claim';
  const title = header?.title ?? null;
  return {
    text,
    title,
    kind,
    line: pages === undefined ? block.start + 1 : null,
    page: pages === undefined ? null : (pages[block.start] ?? null),
    name: title === null ? null : nameFromTitle(title),
  };
}

function frontMatterEnd(lines: readonly string[]): number {
  if (lines[0]?.trimEnd() !== '---') return 0;
  for (let i = 1; i < lines.length; i += 1) {
    const l = lines[i]?.trimEnd();
    if (l === '---' || l === '...') return i + 1;
  }
  return 0;
}

/**
 * The claims of a Markdown or plain-text document, in document order (see the module summary for
 * the rule). Never throws; text with a NUL character is refused as binary.
 *
 * @example
 * ```ts
 * findTextClaims('- Every prime above 2 is odd.\n  - nested detail\n\n**Lemma (Zero).** 0 ≤ n.\n');
 * // { ok: true, found: [
 * //   { text: 'Every prime above 2 is odd.\n- nested detail', kind: 'claim', line: 1, … },
 * //   { text: '0 ≤ n.', kind: 'lemma', title: 'Zero', name: 'zero', line: 4, … } ] }
 * ```
 */
export function findTextClaims(text: string, options: TextClaimOptions = {}): FoundClaimsResult {
  const problem = textProblem(text);
  if (problem !== null) return { ok: false, error: problem };
  const lines = splitLines(text);
  const found: FoundClaim[] = [];
  let block: Block | null = null;
  let fence: { readonly char: string; readonly length: number } | null = null;

  const flush = (): void => {
    if (block !== null) {
      const claim = claimOf(block, options.pages);
      if (claim !== null) found.push(claim);
    }
    block = null;
  };

  for (let i = frontMatterEnd(lines); i < lines.length; i += 1) {
    const line = lines[i] ?? '';
    if (fence !== null) {
      const close = FENCE.exec(line);
      const mark = close?.[2];
      if (mark !== undefined && mark[0] === fence.char && mark.length >= fence.length) {
        if (line.slice((close?.[0] ?? '').length).trim() === '') fence = null;
      }
      continue;
    }
    const indent = indentOf(line);
    const blank = line.trim() === '';
    const current = block as Block | null;
    const nested = current?.item === true && indent >= current.contentIndent;
    const open = FENCE.exec(line);
    if (open !== null) {
      const mark = open[2] ?? '```';
      if (!nested) flush();
      fence = { char: mark[0] ?? '`', length: mark.length };
      continue;
    }
    if (blank) {
      if (current?.item === true) current.sawBlank = true;
      else flush();
      continue;
    }
    if (nested) {
      if (current.sawBlank) current.lines.push('');
      current.sawBlank = false;
      current.lines.push(dropIndent(line, current.contentIndent));
      continue;
    }
    if (HEADING.test(line)) {
      flush();
      continue;
    }
    if (current !== null && !current.item && SETEXT.test(line)) {
      block = null; // the paragraph was a setext heading
      continue;
    }
    if (BREAK.test(line)) {
      flush();
      continue;
    }
    const marker = MARKER.exec(line);
    if (marker !== null) {
      flush();
      const [whole, lead = '', bullet = '', gap = ''] = marker;
      const content = line.slice(whole.length);
      const gapWidth = indentOf(gap);
      const contentIndent = lead.length + bullet.length + (content === '' || gapWidth > 4 ? 1 : gapWidth);
      block = { item: true, start: i, lines: [content], contentIndent, sawBlank: false };
      continue;
    }
    if (current !== null && !current.sawBlank) {
      current.lines.push(current.item ? line.trimStart() : line);
      continue;
    }
    flush();
    if (indent >= 4) continue; // indented code
    block = { item: false, start: i, lines: [line], contentIndent: 0, sawBlank: false };
  }
  flush();
  return { ok: true, found };
}
