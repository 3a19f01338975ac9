/**
 * The statement fence around a dispatch (layer 3): declaration headers of the owned files are
 * taken from the bytes captured right before the worker runs and from the bytes accepted after it
 * returns — never re-read from a disk a leftover process may still write to — and compared with
 * the rules of src/fence. A file without an extractor (by extension) has no statement fence; its
 * bytes are still under custody.
 */
import { relative } from 'node:path';
import {
  describeViolation,
  extractionFailures,
  extractorForFile,
  type FileFenceViolations,
  fenceCheck,
  type HeaderExtraction,
  type HeaderExtractor,
  type HeaderSnapshot,
} from '../fence/index.js';
import type { OwnedCapture } from './owned-files.js';

/** Chooses the header extractor of a file (null: the file is not fenced). */
export type FenceResolver = (file: string) => HeaderExtractor | null;

/** The default resolver: Lean for `.lean`, nothing else. */
export const defaultFenceResolver: FenceResolver = (file) => extractorForFile(file);

/**
 * Extracts the headers of every captured file (an absent file has none); never rejects.
 *
 * @example
 * ```ts
 * const before = await headersOfCapture(await captureOwned(owned), defaultFenceResolver);
 * ```
 */
export async function headersOfCapture(
  capture: OwnedCapture,
  resolve: FenceResolver,
): Promise<HeaderSnapshot> {
  const out = new Map<string, HeaderExtraction | null>();
  for (const [file, c] of capture) {
    let x: HeaderExtractor | null;
    try {
      x = resolve(file);
    } catch (e) {
      out.set(file, { ok: false, error: `extractor resolver failed: ${(e as Error)?.message ?? String(e)}` });
      continue;
    }
    if (x === null) {
      out.set(file, null);
      continue;
    }
    if (c.bytes === null) {
      out.set(file, { ok: true, headers: [] });
      continue;
    }
    try {
      out.set(file, await x.extract(file, c.bytes.toString('utf8')));
    } catch (e) {
      out.set(file, { ok: false, error: `extractor failed: ${(e as Error)?.message ?? String(e)}` });
    }
  }
  return out;
}

/**
 * Why the fence cannot guard a dispatch (headers unreadable before it), or null.
 *
 * @example
 * ```ts
 * unfenceable('/repo', before); // 'the statement fence cannot read the headers of A.lean: unterminated block comment …'
 * ```
 */
export function unfenceable(root: string, before: HeaderSnapshot): string | null {
  const bad = extractionFailures(before);
  if (bad.length === 0) return null;
  return `the statement fence cannot read the headers of ${bad
    .map((b) => `${relative(root, b.file)} (${b.error})`)
    .join(', ')}: fix the file or configure a header extractor for it`;
}

/**
 * One line per violated declaration, files relative to `root`; null when the fence holds.
 *
 * @example
 * ```ts
 * fenceBreach('/repo', fenceCheck(before, after));
 * // 'header fence: T.lean: theorem t: statement changed (`(n : Nat) : n + 0 = n` → `True`)'
 * ```
 */
export function fenceBreach(root: string, found: readonly FileFenceViolations[]): string | null {
  const lines = found.flatMap(({ file, violations }) =>
    violations.map((v) => describeViolation(relative(root, file), v)),
  );
  return lines.length === 0 ? null : lines.join('; ');
}

/**
 * Compares the headers before and after (see {@link fenceBreach}); `grants` are the dispatch's
 * capabilities (the proof-work rule's `fence:…` grants, docs/fence.md).
 *
 * @example
 * ```ts
 * await fenceVerdict('/repo', before, accepted, defaultFenceResolver, dispatch.capabilities); // null when intact
 * ```
 */
export async function fenceVerdict(
  root: string,
  before: HeaderSnapshot,
  after: OwnedCapture,
  resolve: FenceResolver,
  grants: readonly string[] = [],
): Promise<string | null> {
  return fenceBreach(root, fenceCheck(before, await headersOfCapture(after, resolve), grants));
}
