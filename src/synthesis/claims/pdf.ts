/**
 * Claims of a PDF source (layer 3: loads `pdfjs-dist` lazily and reads the document's text; no file
 * system). The text of each page is joined into lines by {@link pdfPageLines} and read with the
 * Markdown/text rule; each claim carries its page. Without `pdfjs-dist` installed, or for an
 * unreadable PDF, the result is a structured error — never a throw, never console output.
 */

import { stripControls } from './clean-text.js';
import { findTextClaims } from './markdown.js';
import { type PdfTextItem, pdfPageLines, pdfText } from './pdf-lines.js';
import type { FoundClaimsResult } from './types.js';

/**
 * The part of the `pdfjs-dist` module this extractor uses.
 *
 * @example
 * ```ts
 * const load = async (): Promise<PdfjsModule> => (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as PdfjsModule;
 * ```
 */
export interface PdfjsModule {
  getDocument(params: Record<string, unknown>): {
    readonly promise: Promise<PdfjsDocument>;
    destroy(): Promise<void>;
  };
}

/**
 * The part of a pdfjs document this extractor uses.
 *
 * @example
 * ```ts
 * const doc: PdfjsDocument = await pdfjs.getDocument({ data }).promise;
 * doc.numPages; // 2
 * ```
 */
export interface PdfjsDocument {
  readonly numPages: number;
  getPage(n: number): Promise<{
    getTextContent(): Promise<{ readonly items: readonly unknown[] }>;
    cleanup?(): unknown;
  }>;
}

/**
 * Options of {@link findPdfClaims}.
 *
 * @example
 * ```ts
 * await findPdfClaims(data, { maxPages: 50 });
 * ```
 */
export interface PdfClaimOptions {
  /** The most pages read; a longer document is refused (default 2000). */
  readonly maxPages?: number;
  /** Loads the pdfjs module (default: `import('pdfjs-dist/legacy/build/pdf.mjs')`); for tests. */
  readonly loadPdfjs?: () => Promise<PdfjsModule>;
  /**
   * The most milliseconds the whole extraction (loading pdfjs, opening the document, reading
   * every page) may take; past it the document is destroyed and the result is a structured error
   * (default {@link PDF_TIMEOUT_MS}).
   */
  readonly timeoutMs?: number;
}

/**
 * The default time limit of {@link findPdfClaims} (ms).
 *
 * @example
 * ```ts
 * PDF_TIMEOUT_MS; // 60000
 * ```
 */
export const PDF_TIMEOUT_MS = 60_000;

/**
 * The default page limit of {@link findPdfClaims}.
 *
 * @example
 * ```ts
 * MAX_PDF_PAGES; // 2000
 * ```
 */
export const MAX_PDF_PAGES = 2000;

async function defaultLoad(): Promise<PdfjsModule> {
  return (await import('pdfjs-dist/legacy/build/pdf.mjs')) as unknown as PdfjsModule;
}

function messageOf(e: unknown): string {
  const raw = e instanceof Error ? e.message : String(e);
  const clean = stripControls(raw).replace(/\s+/g, ' ').trim();
  return clean.length > 300 ? `${clean.slice(0, 300)}…` : clean;
}

function missingModule(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND';
}

function itemOf(raw: unknown): PdfTextItem | null {
  if (typeof raw !== 'object' || raw === null) return null;
  const r = raw as { str?: unknown; transform?: unknown; width?: unknown; height?: unknown };
  if (typeof r.str !== 'string' || !Array.isArray(r.transform)) return null;
  const [, , , scaleY, x, y] = r.transform as unknown[];
  if (typeof x !== 'number' || typeof y !== 'number') return null;
  const height = typeof r.height === 'number' && r.height > 0 ? r.height : Math.abs(Number(scaleY) || 0);
  return { str: r.str, x, y, width: typeof r.width === 'number' ? r.width : 0, height };
}

/**
 * The claims of a PDF document's text, with `page` set (see the module summary). `data` is not
 * modified (pdfjs reads a copy).
 *
 * @example
 * ```ts
 * const r = await findPdfClaims(new Uint8Array(await readFile('paper.pdf')));
 * if (r.ok) r.found[0]?.page; // 1
 * ```
 */
export async function findPdfClaims(
  data: Uint8Array,
  options: PdfClaimOptions = {},
): Promise<FoundClaimsResult> {
  const limit = options.timeoutMs ?? PDF_TIMEOUT_MS;
  if (!Number.isFinite(limit) || limit <= 0)
    return { ok: false, error: `the PDF time limit must be a positive number of ms, got ${String(limit)}` };
  const held: { task: ReturnType<PdfjsModule['getDocument']> | null; late: boolean } = {
    task: null,
    late: false,
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const expired = new Promise<FoundClaimsResult>((done) => {
    timer = setTimeout(() => {
      held.late = true;
      // a document still being read is torn down; a loader still loading is left to settle
      held.task?.destroy().catch(() => undefined);
      done({
        ok: false,
        error: `pdfjs-dist did not finish reading the PDF within ${limit} ms (the PDF time limit)`,
      });
    }, limit);
  });
  try {
    return await Promise.race([readPdf(data, options, held), expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function readPdf(
  data: Uint8Array,
  options: PdfClaimOptions,
  held: { task: ReturnType<PdfjsModule['getDocument']> | null; late: boolean },
): Promise<FoundClaimsResult> {
  let pdfjs: PdfjsModule;
  try {
    pdfjs = await (options.loadPdfjs ?? defaultLoad)();
  } catch (e) {
    if (missingModule(e)) {
      return {
        ok: false,
        error: 'PDF sources need the optional dependency pdfjs-dist (npm install pdfjs-dist@~5.6)',
      };
    }
    return { ok: false, error: `pdfjs-dist could not be loaded: ${messageOf(e)}` };
  }
  const maxPages = options.maxPages ?? MAX_PDF_PAGES;
  let task: ReturnType<PdfjsModule['getDocument']>;
  try {
    task = pdfjs.getDocument({
      data: new Uint8Array(data),
      isEvalSupported: false,
      useSystemFonts: false,
      disableFontFace: true,
      useWorkerFetch: false,
      isOffscreenCanvasSupported: false,
      stopAtErrors: false,
      verbosity: 0,
    });
  } catch (e) {
    return { ok: false, error: `not a readable PDF: ${messageOf(e)}` };
  }
  held.task = task;
  if (held.late) await task.destroy().catch(() => undefined);
  try {
    const doc = await task.promise;
    if (doc.numPages > maxPages) {
      return { ok: false, error: `${doc.numPages} pages, more than the limit of ${maxPages}` };
    }
    const pages: string[][] = [];
    for (let n = 1; n <= doc.numPages && !held.late; n += 1) {
      const page = await doc.getPage(n);
      const content = await page.getTextContent();
      const items: PdfTextItem[] = [];
      for (const raw of content.items) {
        const item = itemOf(raw);
        if (item !== null) items.push(item);
      }
      pages.push(pdfPageLines(items));
      page.cleanup?.();
    }
    const { text, pages: pageOf } = pdfText(pages);
    return findTextClaims(text.replace(/\u0000/g, ''), { pages: pageOf });
  } catch (e) {
    return { ok: false, error: `not a readable PDF: ${messageOf(e)}` };
  } finally {
    await task.destroy().catch(() => undefined);
  }
}
