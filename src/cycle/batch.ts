/**
 * Batches (layer 1, pure; seed 002 § Delegation Execution Policy, rules 3–4): which targets one
 * cycle works (`--batch-size`) and which workers may run at once (`--max-delegates`). Workers run
 * concurrently only when their owned files are pairwise disjoint — an overlap check, not luck.
 * Paths are compared after dropping `.` segments and repeated slashes and resolving `x/..`, so
 * `./A.lean`, `sub/../A.lean` and `A.lean` are the same file.
 */
import type { TargetInfo } from './types.js';

/** The comparison key of an owned path: `.` and empty segments dropped, `x/..` pairs resolved. */
function fileKey(path: string): string {
  const s = String(path);
  const abs = s.startsWith('/');
  const out: string[] = [];
  for (const seg of s.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..' && out.length > 0 && out[out.length - 1] !== '..') out.pop();
    else if (seg !== '..' || !abs) out.push(seg);
  }
  return (abs ? '/' : '') + out.join('/');
}

/** The keys of a list of owned files. */
function keysOf(files: readonly string[]): Set<string> {
  return new Set(files.map(fileKey));
}

/**
 * The files two owned lists share (compared as normalized paths), sorted.
 *
 * @example
 * ```ts
 * overlapping(['B.lean', 'A.lean'], ['./A.lean', 'C.lean']); // ['A.lean']
 * ```
 */
export function overlapping(a: readonly string[], b: readonly string[]): string[] {
  const kb = keysOf(b);
  return [...keysOf(a)].filter((k) => kb.has(k)).sort();
}

/**
 * Up to `size` targets for one cycle, in candidate order, each with owned files disjoint from
 * every target already chosen (a candidate that overlaps is skipped, not waited for).
 *
 * @example
 * ```ts
 * selectBatch([a1, a2, b1], 2, (t) => [t.file]); // [a1, b1] when a1 and a2 share A.lean
 * ```
 */
export function selectBatch(
  candidates: readonly TargetInfo[],
  size: number,
  ownedOf: (t: TargetInfo) => readonly string[],
): TargetInfo[] {
  const limit = Number.isFinite(size) ? Math.floor(size) : 0;
  const chosen: TargetInfo[] = [];
  const taken = new Set<string>();
  for (const c of candidates) {
    if (chosen.length >= limit) break;
    if (chosen.includes(c)) continue;
    const keys = keysOf(ownedOf(c));
    if ([...keys].some((k) => taken.has(k))) continue;
    chosen.push(c);
    for (const k of keys) taken.add(k);
  }
  return chosen;
}

/**
 * Waves of dispatch ids that may run concurrently: within a wave, owned files are pairwise
 * disjoint and there are at most `maxConcurrent` ids (at least 1); two dispatches that share a
 * file keep their input order across waves, and every input lands in exactly one wave. Each
 * dispatch joins the earliest wave after all its earlier conflicts that still has room.
 *
 * @example
 * ```ts
 * disjointGroups([{ id: 'a', owned: ['A'] }, { id: 'b', owned: ['A'] }, { id: 'c', owned: ['C'] }], 2);
 * // [['a', 'c'], ['b']]
 * ```
 */
export function disjointGroups(
  inputs: readonly { readonly id: string; readonly owned: readonly string[] }[],
  maxConcurrent: number,
): string[][] {
  const cap = Number.isFinite(maxConcurrent) ? Math.max(1, Math.floor(maxConcurrent)) : 1;
  const waves: string[][] = [];
  const placed: { wave: number; files: Set<string> }[] = [];
  for (const input of inputs) {
    const files = keysOf(input.owned);
    let earliest = 0;
    for (const p of placed) {
      if (p.wave >= earliest && [...files].some((f) => p.files.has(f))) earliest = p.wave + 1;
    }
    let w = earliest;
    while (w < waves.length && (waves[w] as string[]).length >= cap) w++;
    if (w === waves.length) waves.push([]);
    (waves[w] as string[]).push(input.id);
    placed.push({ wave: w, files });
  }
  return waves;
}
