/**
 * The scope check of a patch: prefixes stripped only in git style, unsafe paths refused (absolute,
 * `..`, control characters, `.git`), both sides naming one file, no file twice, only allowed files.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type FilePatch, parsePatch, patchTargets, unsafePathReason } from '../../src/patch/index.js';

const hunk = '@@ -1 +1 @@\n-a\n+b\n';
const parsed = (text: string): readonly FilePatch[] => {
  const r = parsePatch(text, { allowCreate: true, allowDelete: true });
  if (!r.ok) throw new Error(JSON.stringify(r.error));
  return r.files;
};
const targets = (oldP: string, newP: string, allowed: readonly string[]) =>
  patchTargets(parsed(`--- ${oldP}\n+++ ${newP}\n${hunk}`), allowed);

describe('patchTargets', () => {
  it('strips a/ and b/ in git style and keeps the patch with its path', () => {
    const r = targets('a/src/A.lean', 'b/src/A.lean', ['src/A.lean']);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.files.map((f) => f.path)).toEqual(['src/A.lean']);
  });

  it('keeps plain paths as written (no prefix guessing)', () => {
    expect(targets('A.lean', 'A.lean', ['A.lean']).ok).toBe(true);
    // only one side with a prefix: not git style, so the two names differ
    expect(targets('a/A.lean', 'A.lean', ['A.lean'])).toMatchObject({
      ok: false,
      error: { code: 'path_mismatch' },
    });
  });

  it('strips the one real side of a creation or a deletion', () => {
    const c = patchTargets(parsed('--- /dev/null\n+++ b/N.lean\n@@ -0,0 +1 @@\n+x\n'), ['N.lean']);
    const d = patchTargets(parsed('--- a/N.lean\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n'), ['N.lean']);
    expect(c.ok && c.files[0]?.path).toBe('N.lean');
    expect(d.ok && d.files[0]?.path).toBe('N.lean');
  });

  it.each([
    ['a/../etc/passwd', 'b/../etc/passwd', 'unsafe_path'],
    ['/etc/passwd', '/etc/passwd', 'unsafe_path'],
    ['a//etc/passwd', 'b//etc/passwd', 'unsafe_path'],
    ['C:/x', 'C:/x', 'unsafe_path'],
    ['a/src\\..\\x', 'b/src\\..\\x', 'unsafe_path'],
    ['a/.git/hooks/pre-commit', 'b/.git/hooks/pre-commit', 'unsafe_path'],
    ['a/sub/.GIT/config', 'b/sub/.GIT/config', 'unsafe_path'],
    ['a/./A.lean', 'b/./A.lean', 'unsafe_path'],
    ['a/A.lean', 'b/B.lean', 'path_mismatch'],
    ['a/B.lean', 'b/B.lean', 'out_of_scope'],
    ['a/A.lean/', 'b/A.lean/', 'unsafe_path'],
  ])('refuses --- %s / +++ %s (%s)', (oldP, newP, code) => {
    expect(targets(oldP, newP, ['A.lean'])).toMatchObject({ ok: false, error: { code } });
  });

  it('refuses control characters in a quoted path, reporting it escaped', () => {
    const r = patchTargets(parsed(`--- "a/A\\033[2J.lean"\n+++ "b/A\\033[2J.lean"\n${hunk}`), [
      'A\u001b[2J.lean',
    ]);
    expect(r).toMatchObject({ ok: false, error: { code: 'unsafe_path', file: 'A\\u001b[2J.lean' } });
  });

  it('refuses a NUL byte', () => {
    const r = patchTargets(parsed(`--- "a/A\\000.lean"\n+++ "b/A\\000.lean"\n${hunk}`), ['A\u0000.lean']);
    expect(r).toMatchObject({ ok: false, error: { code: 'unsafe_path' } });
  });

  it('refuses one file patched twice', () => {
    const r = patchTargets(parsed(`--- a/A.lean\n+++ b/A.lean\n${hunk}--- a/A.lean\n+++ b/A.lean\n${hunk}`), [
      'A.lean',
    ]);
    expect(r).toMatchObject({ ok: false, error: { code: 'duplicate_file', file: 'A.lean' } });
  });

  it('refuses the whole patch when one of its files is out of scope', () => {
    const r = patchTargets(
      parsed(`--- a/A.lean\n+++ b/A.lean\n${hunk}--- a/lakefile.lean\n+++ b/lakefile.lean\n${hunk}`),
      ['A.lean'],
    );
    expect(r).toMatchObject({ ok: false, error: { code: 'out_of_scope', file: 'lakefile.lean' } });
  });

  it('never throws and never admits an unsafe or unlisted path (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 40 }),
        fc.array(fc.string({ maxLength: 20 }), { maxLength: 3 }),
        (p, allowed) => {
          const files: FilePatch[] = [{ oldPath: `a/${p}`, newPath: `b/${p}`, kind: 'modify', hunks: [] }];
          const r = patchTargets(files, allowed);
          if (r.ok) {
            expect(allowed).toContain(p);
            expect(unsafePathReason(p)).toBeNull();
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
