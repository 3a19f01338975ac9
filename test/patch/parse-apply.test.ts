/**
 * The pure unified-diff applier: strict parsing (counts, markers, git headers, /dev/null, limits),
 * exact application (no offset, no fuzz, hunk order, final newline, CRLF kept) and properties:
 * arbitrary input never throws, and a diff generated from (a, b) turns a into b.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applyFilePatch, type FilePatch, parsePatch } from '../../src/patch/index.js';
import { hunksOf, unifiedDiff } from './diff-gen.js';

const file = (text: string, opts: Parameters<typeof parsePatch>[1] = {}): FilePatch => {
  const r = parsePatch(text, opts);
  if (!r.ok) throw new Error(`expected a parse: ${JSON.stringify(r.error)}`);
  expect(r.files).toHaveLength(1);
  return r.files[0] as FilePatch;
};
const apply = (original: string, patch: string) => applyFilePatch(original, file(patch));

const ORIG = 'l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\n';

describe('parsePatch', () => {
  it('parses a git diff: paths with prefixes, starts, counts, body', () => {
    const f = file(
      'diff --git a/A.lean b/A.lean\nindex 1..2 100644\n--- a/A.lean\n+++ b/A.lean\n@@ -2,3 +2,3 @@ theorem\n l2\n-l3\n+L3\n l4\n',
    );
    expect(f).toEqual({
      oldPath: 'a/A.lean',
      newPath: 'b/A.lean',
      kind: 'modify',
      hunks: [
        {
          oldStart: 2,
          oldCount: 3,
          newStart: 2,
          newCount: 3,
          lines: [
            { op: ' ', text: 'l2', noEol: false },
            { op: '-', text: 'l3', noEol: false },
            { op: '+', text: 'L3', noEol: false },
            { op: ' ', text: 'l4', noEol: false },
          ],
        },
      ],
    });
  });

  it('parses a plain diff -u with timestamps and a preamble, and an omitted count as 1', () => {
    const f = file(
      'diff -u x.orig x\n--- x.orig\t2024-01-01 00:00:00\n+++ x\t2024-01-02 00:00:00\n@@ -3 +3 @@\n-l3\n+L3\n',
    );
    expect([f.oldPath, f.newPath, f.hunks[0]?.oldCount, f.hunks[0]?.newCount]).toEqual(['x.orig', 'x', 1, 1]);
  });

  it('decodes git C-quoted paths', () => {
    const f = file('--- "a/sp\\303\\244ce\\tx"\n+++ "b/sp\\303\\244ce\\tx"\n@@ -1 +1 @@\n-a\n+b\n');
    expect(f.newPath).toBe('b/späce\tx');
  });

  it('reads bodies by their counts: a removed line that looks like a file header stays a body line', () => {
    const f = file('--- a/x\n+++ b/x\n@@ -1 +1 @@\n--- a/y\n+++ b/y\n');
    expect(f.hunks[0]?.lines).toEqual([
      { op: '-', text: '-- a/y', noEol: false },
      { op: '+', text: '++ b/y', noEol: false },
    ]);
  });

  it('records "\\ No newline at end of file" on the line it follows', () => {
    const f = file('--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline at end of file\n+a\n');
    expect(f.hunks[0]?.lines).toEqual([
      { op: '-', text: 'a', noEol: true },
      { op: '+', text: 'a', noEol: false },
    ]);
  });

  it.each([
    [
      'a body shorter than its header',
      '--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n l1\n-l2\n+L2\n',
      'count_mismatch',
    ],
    ['a body longer than its header', '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-l1\n+L1\n+extra\n', 'count_mismatch'],
    [
      'an old side longer than its count',
      '--- a/x\n+++ b/x\n@@ -1,1 +1,2 @@\n-l1\n-l2\n+a\n+b\n',
      'count_mismatch',
    ],
    ['a bad hunk header', '--- a/x\n+++ b/x\n@@ -a +1 @@\n-l1\n', 'malformed'],
    ['a hunk header with lines at 0', '--- a/x\n+++ b/x\n@@ -0,1 +1 @@\n-l1\n+a\n', 'malformed'],
    ['a file header without hunks', '--- a/x\n+++ b/x\n', 'malformed'],
    ['a hunk outside any file', '@@ -1 +1 @@\n-a\n+b\n', 'malformed'],
    ['no file at all', 'hello\n', 'no_files'],
    ['an empty string', '', 'no_files'],
    [
      'a marker on a line that is not last',
      '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+a\n+b\n',
      'malformed',
    ],
    [
      'two markers in a row',
      '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n\\ No newline\n\\ No newline\n+b\n',
      'malformed',
    ],
    ['a git binary patch', 'diff --git a/x b/x\nGIT binary patch\nliteral 0\n', 'unsupported'],
    [
      'a git rename',
      'diff --git a/x b/y\nsimilarity index 100%\nrename from x\nrename to y\n',
      'unsupported',
    ],
    ['a git mode change', 'diff --git a/x b/x\nold mode 100644\nnew mode 100755\n', 'unsupported'],
    [
      'a git entry without hunks',
      'diff --git a/x b/x\nnew file mode 100644\nindex 0000000..e69de29\n',
      'unsupported',
    ],
    [
      'an unknown git header line',
      'diff --git a/x b/x\nbogus\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n',
      'malformed',
    ],
    ['garbage after a file', '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\nrm -rf /\n', 'malformed'],
    ['both sides /dev/null', '--- /dev/null\n+++ /dev/null\n@@ -0,0 +1 @@\n+a\n', 'malformed'],
  ])('refuses %s', (_name, text, code) => {
    const r = parsePatch(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.code).toBe(code);
  });

  it('refuses creation and deletion unless allowed', () => {
    const create = '--- /dev/null\n+++ b/new.lean\n@@ -0,0 +1 @@\n+a\n';
    const del = 'diff --git a/x b/x\ndeleted file mode 100644\n--- a/x\n+++ /dev/null\n@@ -1 +0,0 @@\n-a\n';
    expect(parsePatch(create)).toMatchObject({
      ok: false,
      error: { code: 'create_refused', file: 'b/new.lean' },
    });
    expect(parsePatch(del)).toMatchObject({ ok: false, error: { code: 'delete_refused', file: 'a/x' } });
    expect(file(create, { allowCreate: true }).kind).toBe('create');
    expect(file(del, { allowDelete: true }).kind).toBe('delete');
  });

  it('refuses a git "new file" header whose --- side is not /dev/null', () => {
    const r = parsePatch('diff --git a/x b/x\nnew file mode 100644\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'malformed' } });
  });

  it('enforces the size limits with a structured refusal', () => {
    const one = '--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n';
    expect(parsePatch(`${one}${'#'.repeat(1024 * 1024)}`)).toMatchObject({
      ok: false,
      error: { code: 'too_large' },
    });
    expect(parsePatch('é'.repeat(600 * 1024))).toMatchObject({ ok: false, error: { code: 'too_large' } });
    const many = `--- a/x\n+++ b/x\n${'@@ -1 +1 @@\n-a\n+b\n'.repeat(5)}`;
    expect(parsePatch(many, { limits: { maxHunks: 4 } })).toMatchObject({
      ok: false,
      error: { code: 'too_many_hunks' },
    });
    expect(parsePatch(`${one}${one.replaceAll('x', 'y')}`, { limits: { maxFiles: 1 } })).toMatchObject({
      ok: false,
      error: { code: 'too_many_files' },
    });
  });

  it('refuses a non-string without throwing', () => {
    for (const v of [undefined, null, 42, {}, ['--- a']]) {
      expect(parsePatch(v)).toMatchObject({ ok: false, error: { code: 'not_text' } });
    }
  });
});

describe('applyFilePatch', () => {
  it('applies hunks at exactly their lines, keeping everything else byte for byte', () => {
    const r = apply(
      ORIG,
      '--- a/x\n+++ b/x\n@@ -2,3 +2,3 @@\n l2\n-l3\n+L3\n l4\n@@ -7,2 +7,3 @@\n l7\n+new\n l8\n',
    );
    expect(r).toEqual({ ok: true, text: 'l1\nl2\nL3\nl4\nl5\nl6\nl7\nnew\nl8\nl9\n' });
  });

  it('refuses a hunk whose context is off by one line, naming the hunk and the line (no fuzz)', () => {
    // the same change anchored one line too early: l3 is at line 3, the header says 2
    const r = apply(ORIG, '--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n l2\n-l3\n+L3\n l4\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_mismatch', hunk: 1, line: 1 } });
    if (!r.ok) expect(r.error.message).toMatch(/line 1 is "l1", the patch expects "l2"/);
  });

  it('refuses whitespace differences', () => {
    const r = apply(ORIG, '--- a/x\n+++ b/x\n@@ -3 +3 @@\n-l3 \n+L3\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_mismatch', hunk: 1, line: 3 } });
  });

  it('reports the number of the failing hunk', () => {
    const r = apply(ORIG, '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-l2\n+L2\n@@ -5 +5 @@\n-nope\n+L5\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_mismatch', hunk: 2, line: 5 } });
  });

  it('refuses hunks out of order or overlapping', () => {
    const backwards = apply(ORIG, '--- a/x\n+++ b/x\n@@ -5 +5 @@\n-l5\n+L5\n@@ -2 +2 @@\n-l2\n+L2\n');
    expect(backwards).toMatchObject({ ok: false, error: { code: 'hunk_order', hunk: 2 } });
    const overlap = apply(
      ORIG,
      '--- a/x\n+++ b/x\n@@ -2,2 +2,2 @@\n-l2\n-l3\n+a\n+b\n@@ -3 +3 @@\n-l3\n+c\n',
    );
    expect(overlap).toMatchObject({ ok: false, error: { code: 'hunk_order', hunk: 2 } });
  });

  it('refuses a new-side start that does not follow from the earlier hunks', () => {
    const r = apply(ORIG, '--- a/x\n+++ b/x\n@@ -2 +2,2 @@\n-l2\n+a\n+b\n@@ -5 +5 @@\n-l5\n+L5\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_order', hunk: 2 } });
    if (!r.ok) expect(r.error.message).toMatch(/expected \+6/);
  });

  it('refuses a hunk past the end of the file', () => {
    const r = apply('a\n', '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n+c\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_mismatch', hunk: 1 } });
  });

  it('honours the final-newline state in both directions', () => {
    expect(apply('a\nb', '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+b\n')).toEqual({
      ok: true,
      text: 'a\nb\n',
    });
    expect(apply('a\nb\n', '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n+c\n\\ No newline at end of file\n')).toEqual({
      ok: true,
      text: 'a\nc',
    });
    // the patch claims a final newline the file lacks, and the reverse
    expect(apply('a\nb', '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n+c\n')).toMatchObject({
      ok: false,
      error: { code: 'newline_mismatch', line: 2 },
    });
    expect(
      apply('a\nb\n', '--- a/x\n+++ b/x\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+c\n'),
    ).toMatchObject({
      ok: false,
      error: { code: 'newline_mismatch' },
    });
  });

  it('refuses a line appended to an unterminated last line by a later hunk', () => {
    const r = apply('a', '--- a/x\n+++ b/x\n@@ -1,0 +2 @@\n+b\n');
    expect(r).toMatchObject({ ok: false, error: { code: 'newline_mismatch' } });
  });

  it('keeps a CRLF file CRLF, with a patch made from its bytes and with an LF-only patch', () => {
    const crlf = 'a\r\nb\r\nc\r\n';
    expect(apply(crlf, '--- a/x\n+++ b/x\n@@ -2 +2,2 @@\n-b\r\n+B\r\n+B2\r\n')).toEqual({
      ok: true,
      text: 'a\r\nB\r\nB2\r\nc\r\n',
    });
    expect(apply(crlf, '--- a/x\n+++ b/x\n@@ -2 +2,2 @@\n-b\n+B\n+B2\n')).toEqual({
      ok: true,
      text: 'a\r\nB\r\nB2\r\nc\r\n',
    });
    // a byte-exact patch keeps a mixed file's endings line by line
    expect(apply('a\nb\r\n', '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-a\n+A\n b\r\n')).toEqual({
      ok: true,
      text: 'A\nb\r\n',
    });
  });

  it('creates into an empty original and deletes to nothing', () => {
    const create = file('--- /dev/null\n+++ b/n\n@@ -0,0 +1,2 @@\n+x\n+y\n', { allowCreate: true });
    expect(applyFilePatch('', create)).toEqual({ ok: true, text: 'x\ny\n' });
    expect(applyFilePatch('z\n', create)).toMatchObject({ ok: false, error: { code: 'hunk_mismatch' } });
    const del = file('--- a/n\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-x\n-y\n', { allowDelete: true });
    expect(applyFilePatch('x\ny\n', del)).toEqual({ ok: true, text: '' });
    expect(applyFilePatch('x\ny\nz\n', del)).toMatchObject({ ok: false, error: { code: 'hunk_mismatch' } });
  });

  it('hostile: a worker diff with terminal escapes and a forged hunk never rewrites lines it did not match', () => {
    const forged = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-\u001b[2J l1\n+pwned\n l2\n';
    const r = apply(ORIG, forged);
    expect(r).toMatchObject({ ok: false, error: { code: 'hunk_mismatch', hunk: 1 } });
  });
});

describe('properties', () => {
  const lineArb = fc.constantFrom(
    'a',
    'b',
    'c',
    '',
    'theorem t : 1 = 1 := by',
    '  sorry',
    ' ',
    '\\ x',
    '--- a',
    '+++ b',
    '@@',
  );
  const textArb = fc
    .record({
      lines: fc.array(lineArb, { maxLength: 14 }),
      crlf: fc.boolean(),
      finalNewline: fc.boolean(),
    })
    .map(({ lines, crlf, finalNewline }) => {
      const eol = crlf ? '\r\n' : '\n';
      const body = lines.join(eol);
      return lines.length > 0 && finalNewline ? `${body}${eol}` : body;
    });

  it('a diff generated from (a, b) turns a into b', () => {
    fc.assert(
      fc.property(textArb, textArb, fc.integer({ min: 0, max: 3 }), (a, b, context) => {
        const d = unifiedDiff('x', a, b, context);
        if (d === '') {
          expect(a).toBe(b);
          return;
        }
        const p = parsePatch(d, { allowCreate: true, allowDelete: true });
        expect(p.ok).toBe(true);
        if (!p.ok) return;
        expect(applyFilePatch(a, p.files[0] as FilePatch)).toEqual({ ok: true, text: b });
      }),
      { numRuns: 400 },
    );
  });

  it('the same diff applied to a text changed inside a hunk is refused', () => {
    fc.assert(
      fc.property(textArb, textArb, (a, b) => {
        const hunks = hunksOf(a, b, 3);
        fc.pre(hunks !== '');
        const p = parsePatch(`--- a/x\n+++ b/x\n${hunks}`);
        if (!p.ok) return;
        const f = p.files[0] as FilePatch;
        const h = f.hunks[0];
        const firstOld = h?.lines.findIndex((l) => l.op !== '+') ?? -1;
        fc.pre(h !== undefined && firstOld >= 0);
        const lines = a.split('\n');
        const at = (h?.oldStart ?? 1) - 1;
        lines[at] = `${lines[at]}~drift`;
        expect(applyFilePatch(lines.join('\n'), f).ok).toBe(false);
      }),
      { numRuns: 200 },
    );
  });

  it('arbitrary strings never make the parser or the applier throw', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'grapheme', maxLength: 400 }),
        fc.string({ maxLength: 200 }),
        (text, original) => {
          const p = parsePatch(text, { allowCreate: true, allowDelete: true });
          if (!p.ok) expect(p.error.code).not.toBe('internal');
          else
            for (const f of p.files) {
              const r = applyFilePatch(original, f);
              if (!r.ok) expect(r.error.code).not.toBe('internal');
            }
        },
      ),
      { numRuns: 500 },
    );
  });

  it('mutated real diffs never make the parser or the applier throw', () => {
    const base = unifiedDiff('x', ORIG, ORIG.replace('l3', 'L3').replace('l8\n', 'l8\nnew\n'), 1);
    fc.assert(
      fc.property(
        fc.array(
          fc.record({
            at: fc.nat(),
            ch: fc.constantFrom('\n', ' ', '-', '+', '@', '\\', '0', '9', ',', '\r', ''),
          }),
          {
            minLength: 1,
            maxLength: 6,
          },
        ),
        (edits) => {
          let t = base;
          for (const e of edits) {
            const i = e.at % (t.length + 1);
            t = `${t.slice(0, i)}${e.ch}${t.slice(i + 1)}`;
          }
          const p = parsePatch(t, { allowCreate: true, allowDelete: true });
          if (!p.ok) expect(p.error.code).not.toBe('internal');
          else
            for (const f of p.files) {
              const r = applyFilePatch(ORIG, f);
              if (!r.ok) expect(r.error.code).not.toBe('internal');
            }
        },
      ),
      { numRuns: 500 },
    );
  });
});
