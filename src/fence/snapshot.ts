/**
 * Snapshotting the headers of owned files (layer 3: reads files). Taken before a worker is
 * dispatched and again after it returns (and at the checkpoint); fence-check.ts compares two.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { mapLimit } from '../baseline/map-limit.js';
import { extractorForFile, type HeaderExtractor } from './extractor.js';
import type { HeaderExtraction } from './header.js';

/**
 * File (absolute path) → its extraction, or null when no extractor handles that file type (it has
 * no statement fence). Insertion order is the order the files were given.
 *
 * @example
 * ```ts
 * const snap: HeaderSnapshot = new Map([['/p/A.lean', { ok: true, headers: [] }], ['/p/README.md', null]]);
 * ```
 */
export type HeaderSnapshot = ReadonlyMap<string, HeaderExtraction | null>;

/**
 * Largest file read (bytes); a larger one is a failed extraction, not a truncated one.
 *
 * @example
 * ```ts
 * // a worker that bloats A.lean past the bound gets an `unparseable` violation
 * MAX_SNAPSHOT_FILE_BYTES; // 67108864
 * ```
 */
export const MAX_SNAPSHOT_FILE_BYTES = 64 * 1024 * 1024;

/**
 * How many files are read and extracted at once (command extractors: processes at once).
 *
 * @example
 * ```ts
 * SNAPSHOT_CONCURRENCY; // 4
 * ```
 */
export const SNAPSHOT_CONCURRENCY = 4;

/**
 * Reads each file and extracts its headers. A missing file has no headers (`{ ok: true, headers:
 * [] }`), so deleting a fenced file deletes its declarations; a path that is not a regular file
 * (directory, FIFO — never blocked on), a file over {@link MAX_SNAPSHOT_FILE_BYTES}, any other
 * read error, or an extractor failure is recorded as `{ ok: false, error }`. Never rejects. `extractor` is one
 * extractor for every file, or a resolver (null = no fence for that file); the default is
 * {@link extractorForFile} (Lean for `.lean`, nothing else). Duplicate paths are read once.
 *
 * @example
 * ```ts
 * const before = await snapshotHeaders(['/p/A.lean']);
 * // … the worker runs …
 * const after = await snapshotHeaders(['/p/A.lean']);
 * fenceCheck(before, after); // [] when every header is intact
 * ```
 */
export async function snapshotHeaders(
  files: readonly string[],
  extractor?: HeaderExtractor | ((file: string) => HeaderExtractor | null),
): Promise<HeaderSnapshot> {
  const resolve =
    extractor === undefined
      ? (file: string) => extractorForFile(file)
      : typeof extractor === 'function'
        ? extractor
        : () => extractor;
  const unique = [...new Set(files)];
  const results = await mapLimit(unique, SNAPSHOT_CONCURRENCY, (file) => snapshotOne(file, resolve));
  return new Map(unique.map((file, i) => [file, results[i] ?? null]));
}

async function snapshotOne(
  file: string,
  resolve: (file: string) => HeaderExtractor | null,
): Promise<HeaderExtraction | null> {
  let x: HeaderExtractor | null;
  try {
    x = resolve(file);
  } catch (e) {
    return { ok: false, error: `extractor resolver failed: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (x === null) return null;
  const read = await readText(file);
  if (typeof read !== 'string') return read;
  const text = read;
  try {
    return await x.extract(file, text);
  } catch (e) {
    return { ok: false, error: `extractor failed: ${e instanceof Error ? e.message : String(e)}` };
  }
}

/**
 * Reads a regular file as UTF-8 without ever blocking on a FIFO (opened non-blocking, then
 * checked to be a regular file) or loading more than {@link MAX_SNAPSHOT_FILE_BYTES}. A missing
 * file has no headers.
 */
async function readText(file: string): Promise<string | HeaderExtraction> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NONBLOCK);
    const st = await handle.stat();
    if (!st.isFile()) return { ok: false, error: 'cannot read file: not a regular file' };
    if (st.size > MAX_SNAPSHOT_FILE_BYTES) {
      return { ok: false, error: `cannot read file: ${st.size} bytes exceed ${MAX_SNAPSHOT_FILE_BYTES}` };
    }
    return await handle.readFile('utf8');
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { ok: true, headers: [] };
    return { ok: false, error: `cannot read file: ${code ?? String(e)}` };
  } finally {
    await handle?.close().catch(() => {});
  }
}
