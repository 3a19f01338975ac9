/**
 * A small unified-diff generator for the patch tests: an LCS line diff of two texts with a chosen
 * amount of context, emitted in git's hunk format (`\ No newline at end of file` included, each
 * line's `\r` kept). Independent of src/patch, so applying its output checks the applier.
 */

interface L {
  readonly text: string;
  readonly eol: boolean;
}

function split(s: string): L[] {
  const parts = s.split('\n');
  const out: L[] = parts.slice(0, -1).map((text) => ({ text, eol: true }));
  const last = parts[parts.length - 1] as string;
  if (last !== '') out.push({ text: last, eol: false });
  return out;
}

type Op = { op: ' ' | '-' | '+'; line: L; o: number; n: number };

function ops(a: L[], b: L[]): Op[] {
  const eq = (x: L, y: L) => x.text === y.text && x.eol === y.eol;
  const m = a.length;
  const n = b.length;
  const t: number[][] = Array.from({ length: m + 1 }, () => new Array<number>(n + 1).fill(0));
  for (let i = m - 1; i >= 0; i--)
    for (let j = n - 1; j >= 0; j--)
      (t[i] as number[])[j] = eq(a[i] as L, b[j] as L)
        ? ((t[i + 1] as number[])[j + 1] as number) + 1
        : Math.max((t[i + 1] as number[])[j] as number, (t[i] as number[])[j + 1] as number);
  const out: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < m || j < n) {
    if (i < m && j < n && eq(a[i] as L, b[j] as L)) {
      out.push({ op: ' ', line: a[i] as L, o: i, n: j });
      i++;
      j++;
    } else if (
      j < n &&
      (i === m || ((t[i] as number[])[j + 1] as number) >= ((t[i + 1] as number[])[j] as number))
    ) {
      out.push({ op: '+', line: b[j] as L, o: i, n: j });
      j++;
    } else {
      out.push({ op: '-', line: a[i] as L, o: i, n: j });
      i++;
    }
  }
  return out;
}

/**
 * The hunks (no file header) turning `a` into `b` with `context` lines of context; '' when equal.
 *
 * @example
 * ```ts
 * hunksOf('a\nb\n', 'a\nc\n', 3); // '@@ -1,2 +1,2 @@\n a\n-b\n+c\n'
 * ```
 */
export function hunksOf(a: string, b: string, context: number): string {
  const all = ops(split(a), split(b));
  const changes = all.map((x, k) => (x.op === ' ' ? -1 : k)).filter((k) => k >= 0);
  if (changes.length === 0) return '';
  const groups: [number, number][] = [];
  for (const k of changes) {
    const g = groups[groups.length - 1];
    if (g !== undefined && k - g[1] <= 2 * context + 1) g[1] = k;
    else groups.push([k, k]);
  }
  let text = '';
  for (const [first, last] of groups) {
    const from = Math.max(0, first - context);
    const to = Math.min(all.length - 1, last + context);
    const body = all.slice(from, to + 1);
    const oldCount = body.filter((x) => x.op !== '+').length;
    const newCount = body.filter((x) => x.op !== '-').length;
    const head = body[0] as Op;
    const oldStart = oldCount === 0 ? head.o : head.o + 1;
    const newStart = newCount === 0 ? head.n : head.n + 1;
    text += `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@\n`;
    for (const x of body) {
      text += `${x.op}${x.line.text}\n`;
      if (!x.line.eol) text += '\\ No newline at end of file\n';
    }
  }
  return text;
}

/**
 * A whole git-style unified diff of one file `path` from `a` to `b`.
 *
 * @example
 * ```ts
 * unifiedDiff('A.lean', 'sorry\n', 'rfl\n');
 * ```
 */
export function unifiedDiff(path: string, a: string, b: string, context = 3): string {
  const h = hunksOf(a, b, context);
  return h === '' ? '' : `diff --git a/${path} b/${path}\n--- a/${path}\n+++ b/${path}\n${h}`;
}
