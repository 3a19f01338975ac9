/**
 * The size of a line diff (layer 1, pure): how many lines a minimal line diff adds and removes
 * between two texts. The deep scope fence (`--deep-max-lines`) counts an edit with it.
 *
 * Exact and bounded: the common prefix and suffix are trimmed, lines that occur on one side only
 * are counted at once (they can never be part of a common subsequence), then Myers' O(ND)
 * algorithm runs under a work budget and, when the texts differ too much for it, a bit-parallel
 * LCS (O(n·m/32)) finishes the count.
 */

/** Steps of the first Myers pass, on the lines themselves, before the texts count as very different. */
const QUICK_WORK_BUDGET = 250_000;
/** Steps of the Myers pass on the shared lines before the bit-parallel LCS takes over. */
const MYERS_WORK_BUDGET = 2_000_000;

/**
 * The lines of a text: split at `\n` (a `\r` stays part of its line, so a final `\r\n` ends its
 * line like `\n`); a final `\n` ends the last line rather than starting an empty one; the empty
 * text has none.
 */
function linesOf(text: string): string[] {
  if (text === '') return [];
  return (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
}

/**
 * Lines added plus lines removed by a minimal line diff of `before` → `after` (an LCS diff: a
 * changed line counts as one removal and one addition). A final newline ends the last line, so a
 * created one-line file `x\n` is one added line; when the texts differ only in whether the last
 * line ends with a newline, that is one changed line. 0 exactly when the texts are equal.
 *
 * @example
 * ```ts
 * changedLineCount('a\nb\nc', 'a\nB\nc'); // 2 (b removed, B added)
 * changedLineCount('a\nb', 'a\nb\nc'); // 1
 * changedLineCount('', 'x\n'); // 1
 * changedLineCount('x', 'x\n'); // 1 (only the final newline)
 * ```
 */
export function changedLineCount(before: string, after: string): number {
  if (before === after) return 0;
  // The texts differ, so a diff of 0 lines can only mean the final newline changed: one line.
  return Math.max(1, lineDiff(linesOf(before), linesOf(after)));
}

/** Lines added plus lines removed between two line lists. */
function lineDiff(a: readonly string[], b: readonly string[]): number {
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const midA = a.slice(start, endA);
  const midB = b.slice(start, endB);
  if (midA.length === 0) return midB.length;
  if (midB.length === 0) return midA.length;
  // Few edits (the usual case): Myers on the lines themselves.
  const quick = myersDistance(midA, midB, QUICK_WORK_BUDGET);
  if (quick !== null) return quick;
  // Many edits: intern the lines as integers and drop lines the other side never has (they can
  // never be common), then count the rest exactly.
  const ids = new Map<string, number>();
  const idOf = (line: string): number => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return id;
  };
  const rawA = midA.map(idOf);
  const rawB = midB.map(idOf);
  const inA = new Set(rawA);
  const inB = new Set(rawB);
  const xs = rawA.filter((x) => inB.has(x));
  const ys = rawB.filter((y) => inA.has(y));
  const onlyOneSide = rawA.length - xs.length + (rawB.length - ys.length);
  return onlyOneSide + editDistance(xs, ys);
}

/** Insertions + deletions between two integer sequences: Myers under a budget, else bit-parallel. */
function editDistance(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const m = ys.length;
  if (n === 0) return m;
  if (m === 0) return n;
  const myers = myersDistance(xs, ys, MYERS_WORK_BUDGET);
  if (myers !== null) return myers;
  return n + m - 2 * bitParallelLcs(xs, ys);
}

/** Myers' greedy O(ND) shortest edit script length, or null when it would exceed `budget` steps. */
function myersDistance<T>(xs: readonly T[], ys: readonly T[], budget: number): number | null {
  const n = xs.length;
  const m = ys.length;
  const max = n + m;
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  let work = 0;
  for (let d = 0; d <= max; d++) {
    for (let k = -d; k <= d; k += 2) {
      let x =
        k === -d || (k !== d && (v[offset + k - 1] as number) < (v[offset + k + 1] as number))
          ? (v[offset + k + 1] as number)
          : (v[offset + k - 1] as number) + 1;
      let y = x - k;
      while (x < n && y < m && xs[x] === ys[y]) {
        x++;
        y++;
        work++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return d;
      work++;
    }
    if (work > budget) return null;
  }
  return max;
}

/**
 * The LCS length by the bit-vector algorithm (Allison–Dix, Hyyrö): one pass over `ys`, each a
 * multi-word add and subtract over `xs`' match masks.
 */
function bitParallelLcs(xs: readonly number[], ys: readonly number[]): number {
  const n = xs.length;
  const words = Math.ceil(n / 32);
  const masks = new Map<number, Uint32Array>();
  for (let i = 0; i < n; i++) {
    const x = xs[i] as number;
    let mask = masks.get(x);
    if (mask === undefined) {
      mask = new Uint32Array(words);
      masks.set(x, mask);
    }
    mask[i >>> 5] = ((mask[i >>> 5] as number) | (1 << (i & 31))) >>> 0;
  }
  const v = new Uint32Array(words).fill(0xffffffff);
  const empty = new Uint32Array(words);
  for (const y of ys) {
    const mask = masks.get(y) ?? empty;
    let carry = 0;
    let borrow = 0;
    for (let w = 0; w < words; w++) {
      const vw = v[w] as number;
      const u = (vw & (mask[w] as number)) >>> 0;
      const sum = vw + u + carry;
      carry = sum > 0xffffffff ? 1 : 0;
      let diff = vw - u - borrow;
      borrow = diff < 0 ? 1 : 0;
      if (diff < 0) diff += 0x100000000;
      v[w] = ((sum >>> 0) | diff) >>> 0;
    }
  }
  let zeros = 0;
  for (let i = 0; i < n; i++) if ((((v[i >>> 5] as number) >>> (i & 31)) & 1) === 0) zeros++;
  return zeros;
}
