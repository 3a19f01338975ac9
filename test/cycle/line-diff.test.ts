/**
 * The line-diff counter of the deep scope fence (src/cycle/line-diff.ts): exact minimal counts
 * (checked against a plain LCS table), the algebra (symmetric, 0 iff equal, bounded by the line
 * totals) and speed on 10k-line files, including texts different enough to leave Myers for the
 * bit-parallel LCS.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { changedLineCount } from '../../src/cycle/line-diff.js';

const SEED = 20_261_202;

/** The lines the counter sees: split at `\n`, a final `\n` ending the last line, none for the empty text. */
const lines = (s: string): string[] => (s === '' ? [] : (s.endsWith('\n') ? s.slice(0, -1) : s).split('\n'));

/**
 * Reference: n + m − 2·LCS by the textbook O(n·m) table (two rows); texts that differ only in
 * their final newline count 1.
 */
function reference(a: string, b: string): number {
  if (a === b) return 0;
  const x = lines(a);
  const y = lines(b);
  let prev = new Uint32Array(y.length + 1);
  let cur = new Uint32Array(y.length + 1);
  for (let i = 1; i <= x.length; i++) {
    for (let j = 1; j <= y.length; j++) {
      cur[j] =
        x[i - 1] === y[j - 1]
          ? (prev[j - 1] as number) + 1
          : Math.max(prev[j] as number, cur[j - 1] as number);
    }
    [prev, cur] = [cur, prev];
  }
  return Math.max(1, x.length + y.length - 2 * (prev[y.length] as number));
}

/** A deterministic pseudo-random generator (mulberry32). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const file = (n: number, tag = 'l'): string[] => Array.from({ length: n }, (_, i) => `${tag}${i} := by simp`);

describe('changedLineCount', () => {
  it.each([
    ['equal texts', 'a\nb\nc', 'a\nb\nc', 0],
    ['both empty', '', '', 0],
    ['one line changed', 'a\nb\nc', 'a\nB\nc', 2],
    ['a line appended', 'a\nb', 'a\nb\nc', 1],
    ['a line removed in the middle', 'a\nb\nc', 'a\nc', 1],
    ['from nothing', '', 'a\nb', 2],
    ['to nothing', 'a\nb\nc', '', 3],
    ['a trailing newline added', 'a', 'a\n', 1],
    ['a trailing newline removed', 'a\nb\n', 'a\nb', 1],
    ['a created one-line file', '', 'x\n', 1],
    ['a created two-line file', '', 'a\nb\n', 2],
    ['a deleted one-line file', 'x\n', '', 1],
    ['a created one-line file with CRLF', '', 'x\r\n', 1],
    ['a line appended to a newline-terminated file', 'a\nb\n', 'a\nb\nc\n', 1],
    ['a CRLF line appended to a CRLF file', 'a\r\nb\r\n', 'a\r\nb\r\nc\r\n', 1],
    ['a line appended after a last line without newline', 'a\nb', 'a\nb\nc\n', 1],
    ['a final LF turned CRLF', 'x\n', 'x\r\n', 2],
    ['an empty line is still a line', '', '\n', 1],
    ['two empty lines', '\n', '\n\n', 1],
    ['CRLF endings count as a change of every line', 'a\nb', 'a\r\nb', 2],
    ['two lines swapped', 'a\nb', 'b\na', 2],
    ['nothing in common', 'a\nb\nc', 'x\ny', 5],
    ['duplicates: one copy removed', 'x\nx\nx', 'x\nx', 1],
    ['edits at both ends keep the middle', 'h\nm1\nm2\nm3\nt', 'H\nm1\nm2\nm3\nT', 4],
  ])('%s', (_name, before, after, expected) => {
    expect(changedLineCount(before, after)).toBe(expected);
    expect(changedLineCount(before, after)).toBe(reference(before, after));
  });

  const text = fc
    .tuple(
      fc.array(fc.constantFrom('a', 'b', 'c', 'sorry', '  simp', '', 'a\r'), { maxLength: 30 }),
      fc.boolean(),
    )
    .map(([ls, eol]) => ls.join('\n') + (eol ? '\n' : ''));

  it('matches the LCS table, is symmetric, is 0 exactly for equal texts and is bounded by the line totals', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const d = changedLineCount(a, b);
        expect(d).toBe(reference(a, b));
        expect(changedLineCount(b, a)).toBe(d);
        expect(d === 0).toBe(a === b);
        expect(d).toBeLessThanOrEqual(lines(a).length + lines(b).length);
      }),
      { seed: SEED, numRuns: 400 },
    );
  });

  it('a final newline ends the last line: adding one to both texts changes nothing, toggling it alone counts 1', () => {
    fc.assert(
      fc.property(text, text, (a, b) => {
        const bodyA = a.endsWith('\n') ? a.slice(0, -1) : a;
        const bodyB = b.endsWith('\n') ? b.slice(0, -1) : b;
        const open = (t: string) => t !== '' && !t.endsWith('\n');
        if (open(bodyA) && open(bodyB)) {
          expect(changedLineCount(`${bodyA}\n`, `${bodyB}\n`)).toBe(changedLineCount(bodyA, bodyB));
        }
        if (bodyA !== '') expect(changedLineCount(bodyA, `${bodyA}\n`)).toBe(1);
        expect(changedLineCount('', a)).toBe(lines(a).length);
      }),
      { seed: SEED + 2, numRuns: 300 },
    );
  });

  it('is exact on texts different enough for the bit-parallel path (shuffled, across word boundaries)', () => {
    const r = rng(SEED);
    for (const n of [33, 64, 65, 700, 2500]) {
      const a = Array.from({ length: n }, () => `t${Math.floor(r() * (n / 3))}`);
      const b = a.map((l) => (r() < 0.5 ? `t${Math.floor(r() * (n / 3))}` : l)).sort(() => r() - 0.5);
      expect(changedLineCount(a.join('\n'), b.join('\n'))).toBe(reference(a.join('\n'), b.join('\n')));
    }
  });

  it('counts a few scattered edits in a 10k-line file fast', () => {
    const a = file(10_000);
    const b = [...a];
    for (const i of [3, 2_500, 5_001, 7_777, 9_998]) b[i] = `${b[i]} -- edited`;
    b.splice(4_000, 0, 'inserted');
    const t0 = performance.now();
    const d = changedLineCount(a.join('\n'), b.join('\n'));
    const ms = performance.now() - t0;
    expect(d).toBe(11);
    // ~2 ms on an idle machine; the bound leaves room for a loaded CI host
    expect(ms).toBeLessThan(500);
  });

  it('bounds the worst case: two unrelated orders of the same 10k lines', () => {
    const r = rng(SEED + 1);
    const a = file(10_000);
    const b = [...a].sort(() => r() - 0.5);
    const t0 = performance.now();
    const d = changedLineCount(a.join('\n'), b.join('\n'));
    const ms = performance.now() - t0;
    expect(d).toBeGreaterThan(0);
    expect(d % 2).toBe(0);
    expect(d).toBeLessThan(20_000);
    expect(ms).toBeLessThan(5_000);
  });

  it('counts 10k changed lines with nothing in common at once', () => {
    const t0 = performance.now();
    expect(changedLineCount(file(10_000, 'a').join('\n'), file(10_000, 'b').join('\n'))).toBe(20_000);
    expect(performance.now() - t0).toBeLessThan(1_000);
  });
});
