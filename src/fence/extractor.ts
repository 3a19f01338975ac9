/**
 * The `HeaderExtractor` port: how the fence learns the "statements" of a file. Lean is built in;
 * any other language plugs in a function or a command (command-extractor.ts). Extractors never
 * throw: every failure is `{ ok: false, error }`.
 */
import { extname } from 'node:path';
import { safeValidate } from '../validation/index.js';
import {
  type DeclarationHeader,
  DeclarationHeaderSchema,
  type HeaderExtraction,
  normalizeSignature,
} from './header.js';
import { extractLeanFence } from './lean-headers.js';

/**
 * Reads the declaration headers of one file from its text.
 *
 * @example
 * ```ts
 * const x: HeaderExtractor = leanHeaderExtractor();
 * const r = await x.extract('/p/A.lean', 'theorem t : True := trivial');
 * ```
 */
export interface HeaderExtractor {
  extract(file: string, text: string): Promise<HeaderExtraction>;
}

/**
 * The built-in Lean 4 extractor ({@link extractLeanHeaders}).
 *
 * @example
 * ```ts
 * const r = await leanHeaderExtractor().extract('A.lean', 'example : 1 = 1 := rfl');
 * // { ok: true, headers: [{ name: 'example@1', kind: 'example', signature: ': 1 = 1', line: 1 }] }
 * ```
 */
export function leanHeaderExtractor(): HeaderExtractor {
  return { extract: async (_file, text) => extractLeanFence(text) };
}

/**
 * Wraps a function as an extractor. A throw or rejection becomes `{ ok: false, error }`; the
 * returned headers are validated (name, kind non-empty; line an integer ≥ 1) and their signatures
 * whitespace-normalized.
 *
 * @example
 * ```ts
 * const tests = functionHeaderExtractor((_file, text) =>
 *   [...text.matchAll(/^test\('([^']+)'/gm)].map((m) => ({ name: m[1] ?? '', kind: 'test', signature: '', line: 1 })),
 * );
 * ```
 */
export function functionHeaderExtractor(
  fn: (file: string, text: string) => readonly DeclarationHeader[] | Promise<readonly DeclarationHeader[]>,
): HeaderExtractor {
  return {
    extract: async (file, text) => {
      let headers: unknown;
      try {
        headers = await fn(file, text);
      } catch (e) {
        return { ok: false, error: `extractor failed: ${e instanceof Error ? e.message : String(e)}` };
      }
      return validatedHeaders(headers);
    },
  };
}

/**
 * Checks headers reported by a function or a command and normalizes their signatures.
 *
 * @example
 * ```ts
 * validatedHeaders([{ name: 'f', kind: 'def', signature: '(x,\n y)', line: 2 }]);
 * // { ok: true, headers: [{ name: 'f', kind: 'def', signature: '(x, y)', line: 2 }] }
 * ```
 */
export function validatedHeaders(headers: unknown): HeaderExtraction {
  if (!Array.isArray(headers)) return { ok: false, error: 'extractor did not return an array of headers' };
  const out: DeclarationHeader[] = [];
  for (const [i, h] of headers.entries()) {
    const r = safeValidate(DeclarationHeaderSchema, h);
    if (!r.ok) {
      const issue = r.issues[0];
      return {
        ok: false,
        error: `header ${i} is invalid: ${issue?.path || '(root)'}: ${issue?.message ?? ''}`,
      };
    }
    out.push({ ...r.value, signature: normalizeSignature(r.value.signature) });
  }
  return { ok: true, headers: out };
}

/**
 * Extractors by file extension (`'.py'`, lower case, with the dot) that override or extend the
 * built-in choice.
 *
 * @example
 * ```ts
 * const custom: ExtractorTable = { '.py': commandHeaderExtractor(['python3', 'x.py'], { cwd, timeoutMs: 10_000 }) };
 * ```
 */
export type ExtractorTable = Readonly<Record<string, HeaderExtractor>>;

const LEAN = leanHeaderExtractor();

/**
 * Chooses the extractor for a file: the custom table's entry for its extension, else the Lean
 * extractor for `.lean`, else null — no extractor, so the file has no statement fence (custody
 * still covers its bytes).
 *
 * @example
 * ```ts
 * extractorForFile('/p/A.lean'); // the Lean extractor
 * extractorForFile('/p/notes.md'); // null: not fenced
 * ```
 */
export function extractorForFile(path: string, custom: ExtractorTable = {}): HeaderExtractor | null {
  const ext = extname(path).toLowerCase();
  if (ext !== '' && Object.hasOwn(custom, ext)) return custom[ext] ?? null;
  return ext === '.lean' ? LEAN : null;
}

/**
 * A file → extractor resolver over a custom table, for {@link snapshotHeaders}.
 *
 * @example
 * ```ts
 * const snap = await snapshotHeaders(files, extractorResolver({ '.py': pythonExtractor }));
 * ```
 */
export function extractorResolver(custom: ExtractorTable = {}): (file: string) => HeaderExtractor | null {
  return (file) => extractorForFile(file, custom);
}
