/**
 * The claim queue of a `--source` file (layer 3: reads the file): the format chosen by extension,
 * the claims numbered in document order, then `--claim-select` applied. Every failure — missing
 * file, oversized file, unsupported format, binary or invalid UTF-8 text, unreadable PDF, a source
 * with no claims, a bad selection — is a structured `{ ok: false, error }`, never a throw.
 */
import { open } from 'node:fs/promises';
import { stripControls } from './clean-text.js';
import { findLeanClaims } from './lean.js';
import { findTextClaims } from './markdown.js';
import { numberClaims } from './number.js';
import { findPdfClaims, type PdfClaimOptions } from './pdf.js';
import { selectClaims } from './select.js';
import { findTexClaims } from './tex.js';
import type { ClaimsResult, FoundClaimsResult } from './types.js';
import { MAX_SOURCE_BYTES } from './types.js';

/**
 * The source formats, by what their extension says.
 *
 * @example
 * ```ts
 * const format: ClaimFormat = 'tex';
 * ```
 */
export type ClaimFormat = 'text' | 'tex' | 'lean' | 'pdf';

const FORMATS: Readonly<Record<string, ClaimFormat>> = {
  '.md': 'text',
  '.markdown': 'text',
  '.txt': 'text',
  '.tex': 'tex',
  '.lean': 'lean',
  '.pdf': 'pdf',
};

/**
 * The format of `file` by its extension (case-insensitive), or null when it is not a claim source.
 *
 * @example
 * ```ts
 * claimFormatOf('paper.MD'); // 'text'
 * claimFormatOf('Main.lean'); // 'lean'
 * claimFormatOf('notes.docx'); // null
 * ```
 */
export function claimFormatOf(file: string): ClaimFormat | null {
  const m = /\.[A-Za-z]+$/.exec(file);
  return m === null ? null : (FORMATS[m[0].toLowerCase()] ?? null);
}

function finish(file: string, found: FoundClaimsResult, select: string | undefined): ClaimsResult {
  if (!found.ok) return { ok: false, error: `${file}: ${found.error}` };
  const numbered = numberClaims(file, found.found);
  if (!numbered.ok) return numbered;
  if (numbered.claims.length === 0) {
    return {
      ok: false,
      error: `${file}: no claims found (see docs/synthesis-claims.md for the rule per format)`,
    };
  }
  const picked = selectClaims(numbered.claims, select);
  return picked.ok ? picked : { ok: false, error: `${file}: ${picked.error}` };
}

function unsupported(file: string): ClaimsResult {
  return {
    ok: false,
    error: `${file}: unsupported source format (use .md, .markdown, .txt, .tex, .lean or .pdf)`,
  };
}

/**
 * The claim queue of a text source already in memory (layer 1, pure): the same rules as
 * {@link extractClaims} for `.md`, `.markdown`, `.txt`, `.tex` and `.lean`; a `.pdf` (or any other
 * extension) is an error here.
 *
 * @example
 * ```ts
 * extractClaimsFromText('paper.md', '- A.\n- B.\n- C.\n', '2-3');
 * // { ok: true, claims: [{ index: 2, text: 'B.', … }, { index: 3, text: 'C.', … }] }
 * ```
 */
export function extractClaimsFromText(file: string, text: string, select?: string): ClaimsResult {
  const format = claimFormatOf(file);
  if (format === 'text') return finish(file, findTextClaims(text), select);
  if (format === 'tex') return finish(file, findTexClaims(text), select);
  if (format === 'lean') return finish(file, findLeanClaims(text), select);
  if (format === 'pdf') return { ok: false, error: `${file}: a PDF source is read with extractClaims` };
  return unsupported(file);
}

async function readCapped(file: string): Promise<Uint8Array | string> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, 'r');
    const info = await handle.stat();
    if (!info.isFile()) return 'not a regular file';
    if (info.size > MAX_SOURCE_BYTES) {
      return `${info.size} bytes, larger than the limit of ${MAX_SOURCE_BYTES} bytes`;
    }
    const buffer = Buffer.alloc(MAX_SOURCE_BYTES + 1);
    let length = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, null);
      if (bytesRead === 0) break;
      length += bytesRead;
      if (length > MAX_SOURCE_BYTES) return `larger than the limit of ${MAX_SOURCE_BYTES} bytes`;
    }
    return new Uint8Array(buffer.subarray(0, length));
  } catch (e) {
    const code = (e as { code?: unknown }).code;
    if (code === 'ENOENT') return 'no such file';
    if (code === 'EISDIR') return 'not a regular file';
    return `cannot be read: ${stripControls(e instanceof Error ? e.message : String(e))}`;
  } finally {
    await handle?.close().catch(() => undefined);
  }
}

/**
 * The claim queue of the `--source` file `file`, in document order, filtered by `select`
 * (`--claim-select`, see {@link selectClaims}). The format follows the extension: `.md`,
 * `.markdown`, `.txt` (list items and keyword paragraphs), `.tex` (theorem-like environments),
 * `.lean` (documented declarations), `.pdf` (text via the optional `pdfjs-dist`, then the text
 * rule). Files over {@link MAX_SOURCE_BYTES} are refused. Never throws.
 *
 * @example
 * ```ts
 * const queue = await extractClaims('paper.md', '1,3-4');
 * if (!queue.ok) process.exitCode = 2; // queue.error says why
 * ```
 */
export async function extractClaims(
  file: string,
  select?: string,
  options: PdfClaimOptions = {},
): Promise<ClaimsResult> {
  const format = claimFormatOf(file);
  if (format === null) return unsupported(file);
  const bytes = await readCapped(file);
  if (typeof bytes === 'string') return { ok: false, error: `${file}: ${bytes}` };
  if (format === 'pdf') return finish(file, await findPdfClaims(bytes, options), select);
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return { ok: false, error: `${file}: not valid UTF-8 text` };
  }
  return extractClaimsFromText(file, text, select);
}
