/**
 * A repair worker's diff applied by the parent under custody, with real files and real `git diff`
 * output: applied and baseline advanced for exactly the changed file; a stale baseline refused
 * with nothing written; a fuzzy hunk (off by one line), an out-of-scope file, `..`, absolute
 * paths, a deletion, symbolic links and uncovered files refused with nothing written.
 */
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { checkBaseline, type FileBaseline, recordBaseline } from '../../src/baseline/index.js';
import { type FsLayer, nodeFsLayer } from '../../src/durable/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { applyPatchUnderCustody } from '../../src/patch/index.js';

let dir: string;
const A = 'theorem a : 1 = 1 := by\n  sorry\n\ntheorem b : 2 = 2 := by\n  sorry\n';
const B = 'def x := 1\n';
const git = (args: string[]) =>
  execFileSync('git', ['-c', 'core.autocrlf=false', '-c', 'color.ui=never', ...args], {
    cwd: dir,
    encoding: 'utf8',
  });

/** `git diff` of the working tree against HEAD (real git output), for the given paths. */
const gitDiff = (...paths: string[]) =>
  git(['diff', '--no-ext-diff', '--src-prefix=a/', '--dst-prefix=b/', '--', ...paths]);

/** Edits files, takes the real diff, and puts the committed bytes back: the worker's proposal. */
async function proposal(edits: Record<string, string>): Promise<string> {
  for (const [f, t] of Object.entries(edits)) await writeFile(join(dir, f), t);
  const d = gitDiff(...Object.keys(edits));
  git(['checkout', '-q', '--', ...Object.keys(edits)]);
  return d;
}

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-patch-')));
  await writeFile(join(dir, 'A.lean'), A);
  await writeFile(join(dir, 'B.lean'), B);
  git(['init', '-q']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const baselineOf = (...files: string[]) => recordBaseline(files, { cwd: dir });
const read = (f: string) => readFile(join(dir, f), 'utf8');

describe('applyPatchUnderCustody', () => {
  it('applies a real git diff, advances exactly the changed entry, and the new baseline matches the disk', async () => {
    const patch = await proposal({ 'A.lean': A.replace('sorry', 'rfl') });
    const baseline = await baselineOf('A.lean', 'B.lean');
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean', 'B.lean'],
      baseline,
    });
    expect(r.kind).toBe('applied');
    if (r.kind !== 'applied') return;
    expect(r.changed).toEqual(['A.lean']);
    expect(await read('A.lean')).toBe(A.replace('sorry', 'rfl'));
    expect(await read('B.lean')).toBe(B);
    const [a0, b0] = baseline.files;
    const [a1, b1] = r.baseline.files;
    expect(a1?.sha256).not.toBe(a0?.sha256);
    expect(b1).toEqual(b0);
    expect((await checkBaseline(r.baseline)).result).toBe('match');
    // the old baseline now reports the parent's own edit as drift: it is superseded
    expect((await checkBaseline(baseline)).result).toBe('drift');
  });

  it("applies a two-file diff and keeps each file's mode", async () => {
    const patch = await proposal({
      'A.lean': A.replace('sorry', 'rfl').replace('  sorry\n', '  decide\n'),
      'B.lean': 'def x := 2\n',
    });
    await chmod(join(dir, 'B.lean'), 0o755);
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean', 'B.lean'],
      baseline: await baselineOf('A.lean', 'B.lean'),
    });
    expect(r).toMatchObject({ kind: 'applied', changed: ['A.lean', 'B.lean'] });
    expect(await read('A.lean')).toBe(A.replace('sorry', 'rfl').replace('  sorry\n', '  decide\n'));
    expect(await read('B.lean')).toBe('def x := 2\n');
    expect((await stat(join(dir, 'B.lean'))).mode & 0o777).toBe(0o755);
  });

  it('keeps a CRLF file CRLF and honours a missing final newline (real git output)', async () => {
    const crlf = 'a\r\nb\r\nc';
    await writeFile(join(dir, 'C.lean'), crlf);
    git(['add', 'C.lean']);
    git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'c']);
    const patch = await proposal({ 'C.lean': 'a\r\nB\r\nc\r\nd' });
    expect(patch).toContain('\\ No newline at end of file');
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['C.lean'],
      baseline: await baselineOf('C.lean'),
    });
    expect(r.kind).toBe('applied');
    expect(await read('C.lean')).toBe('a\r\nB\r\nc\r\nd');
  });

  it('refuses a stale baseline: a file changed after the baseline was taken, nothing written', async () => {
    const patch = await proposal({ 'A.lean': A.replace('sorry', 'rfl') });
    const baseline = await baselineOf('A.lean');
    await writeFile(join(dir, 'A.lean'), `${A}-- someone else\n`);
    const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline });
    expect(r.kind).toBe('stale');
    if (r.kind === 'stale') expect(r.detail).toMatch(/A\.lean modified/);
    expect(await read('A.lean')).toBe(`${A}-- someone else\n`);
  });

  it('refuses a stale baseline even when the patch would still apply to the drifted bytes', async () => {
    const patch = await proposal({ 'A.lean': A.replace('sorry', 'rfl') });
    const baseline = await baselineOf('A.lean');
    await writeFile(join(dir, 'A.lean'), `${A}\n`); // appended: the hunk's lines are unchanged
    const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline });
    expect(r.kind).toBe('stale');
    expect(await read('A.lean')).toBe(`${A}\n`);
  });

  it('refuses a fuzzy hunk (context off by one line) and writes nothing, even to files whose hunks fit', async () => {
    const good = await proposal({ 'B.lean': 'def x := 2\n' });
    const fuzzy = '--- a/A.lean\n+++ b/A.lean\n@@ -1,2 +1,2 @@\n-  sorry\n+  rfl\n \n';
    const baseline = await baselineOf('A.lean', 'B.lean');
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch: `${good}${fuzzy}`,
      allowed: ['A.lean', 'B.lean'],
      baseline,
    });
    expect(r.kind).toBe('refused');
    if (r.kind === 'refused') expect(r.detail).toMatch(/A\.lean: hunk 1: line 1 is .* \(hunk_mismatch\)/);
    expect(await read('A.lean')).toBe(A);
    expect(await read('B.lean')).toBe(B);
    expect((await checkBaseline(baseline)).result).toBe('match');
  });

  it.each([
    [
      'an out-of-scope file',
      '--- a/B.lean\n+++ b/B.lean\n@@ -1 +1 @@\n-def x := 1\n+def x := 666\n',
      /B\.lean: not a file this patch may touch \(out_of_scope\)/,
    ],
    ['a ".." path', '--- a/../A.lean\n+++ b/../A.lean\n@@ -1 +1 @@\n-x\n+y\n', /unsafe_path/],
    [
      'an absolute path',
      '--- /etc/hosts\n+++ /etc/hosts\n@@ -1 +1 @@\n-x\n+y\n',
      /absolute path \(unsafe_path\)/,
    ],
    ['a path into .git', '--- a/.git/config\n+++ b/.git/config\n@@ -1 +1 @@\n-x\n+y\n', /\.git.*unsafe_path/],
    [
      'a deletion',
      'diff --git a/A.lean b/A.lean\ndeleted file mode 100644\n--- a/A.lean\n+++ /dev/null\n@@ -1,5 +0,0 @@\n-theorem a : 1 = 1 := by\n-  sorry\n-\n-theorem b : 2 = 2 := by\n-  sorry\n',
      /delete_refused/,
    ],
    ['a creation', '--- /dev/null\n+++ b/N.lean\n@@ -0,0 +1 @@\n+x\n', /create_refused/],
    ['garbage', 'I fixed it, trust me', /no_files/],
  ])('refuses %s and writes nothing', async (_name, patch, detail) => {
    const baseline = await baselineOf('A.lean');
    const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline });
    expect(r.kind).toBe('refused');
    if (r.kind === 'refused') expect(r.detail).toMatch(detail);
    expect(await read('A.lean')).toBe(A);
    expect(await read('B.lean')).toBe(B);
    expect((await checkBaseline(baseline)).result).toBe('match');
  });

  it('deletes a file when deletion is allowed, and the advanced entry records it absent', async () => {
    await rm(join(dir, 'B.lean'));
    const patch = gitDiff('B.lean');
    git(['checkout', '-q', '--', 'B.lean']);
    expect(patch).toContain('+++ /dev/null');
    const baseline = await baselineOf('B.lean');
    const refusedByDefault = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['B.lean'],
      baseline,
    });
    expect(refusedByDefault.kind).toBe('refused');
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['B.lean'],
      baseline,
      parse: { allowDelete: true },
    });
    expect(r).toMatchObject({ kind: 'applied', changed: ['B.lean'] });
    await expect(stat(join(dir, 'B.lean'))).rejects.toThrow();
    if (r.kind === 'applied') expect(r.baseline.files[0]).toMatchObject({ exists: false, sha256: null });
  });

  it('a vet verdict refuses the patched texts before anything is written (e.g. a changed header)', async () => {
    const patch = await proposal({ 'A.lean': A.replace('1 = 1', '1 = 2').replace('sorry', 'rfl') });
    const baseline = await baselineOf('A.lean');
    const seen: string[] = [];
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean'],
      baseline,
      vet: (files) => {
        for (const f of files)
          seen.push(`${f.path}:${f.kind}:${f.before === A}:${f.after.includes('1 = 2')}`);
        return files.some((f) => f.after.includes('1 = 2')) ? 'header changed: theorem a' : null;
      },
    });
    expect(seen).toEqual(['A.lean:modify:true:true']);
    expect(r).toEqual({ kind: 'refused', detail: 'header changed: theorem a' });
    expect(await read('A.lean')).toBe(A);
    const thrown = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean'],
      baseline,
      vet: () => {
        throw new Error('extractor crashed');
      },
    });
    expect(thrown).toEqual({ kind: 'refused', detail: 'the patch could not be vetted: extractor crashed' });
    const ok = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean'],
      baseline,
      vet: () => null,
    });
    expect(ok.kind).toBe('applied');
  });

  it('refuses a file the baseline does not cover', async () => {
    const patch = await proposal({ 'B.lean': 'def x := 2\n' });
    const r = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['B.lean'],
      baseline: await baselineOf('A.lean'),
    });
    expect(r).toMatchObject({ kind: 'refused', detail: 'B.lean: not under custody (no baseline entry)' });
    expect(await read('B.lean')).toBe(B);
  });

  it('hostile: refuses a target that is a symbolic link, never writing through it', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-patch-out-')));
    try {
      await writeFile(join(outside, 'secret'), B);
      await symlink(join(outside, 'secret'), join(dir, 'L.lean'));
      const baseline = await baselineOf('L.lean');
      const patch = '--- a/L.lean\n+++ b/L.lean\n@@ -1 +1 @@\n-def x := 1\n+def x := 666\n';
      const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['L.lean'], baseline });
      expect(r).toMatchObject({ kind: 'refused', detail: 'L.lean: the target is a symbolic link' });
      expect(await readFile(join(outside, 'secret'), 'utf8')).toBe(B);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('hostile: refuses a target below a folder that is a symbolic link out of the project', async () => {
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-patch-out-')));
    try {
      await writeFile(join(outside, 'X.lean'), B);
      await symlink(outside, join(dir, 'sub'));
      const baseline = await baselineOf('sub/X.lean');
      const patch = '--- a/sub/X.lean\n+++ b/sub/X.lean\n@@ -1 +1 @@\n-def x := 1\n+def x := 666\n';
      const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['sub/X.lean'], baseline });
      expect(r).toMatchObject({
        kind: 'refused',
        detail: 'sub/X.lean: a folder on its path is a symbolic link',
      });
      expect(await readFile(join(outside, 'X.lean'), 'utf8')).toBe(B);
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });

  it('applies into a real sub-folder', async () => {
    await mkdir(join(dir, 'src'));
    await writeFile(join(dir, 'src', 'S.lean'), 'a\n');
    const baseline = await baselineOf('src/S.lean');
    const patch = '--- a/src/S.lean\n+++ b/src/S.lean\n@@ -1 +1 @@\n-a\n+b\n';
    const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['src/S.lean'], baseline });
    expect(r).toMatchObject({ kind: 'applied', changed: ['src/S.lean'] });
    expect(await read('src/S.lean')).toBe('b\n');
  });

  it('a patch that changes no bytes is applied with nothing changed and the baseline kept', async () => {
    const baseline = await baselineOf('A.lean');
    const patch = '--- a/A.lean\n+++ b/A.lean\n@@ -2 +2 @@\n-  sorry\n+  sorry\n';
    const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline });
    expect(r).toEqual({ kind: 'applied', changed: [], baseline });
  });

  it('refuses a malformed baseline and a relative project root without throwing', async () => {
    const patch = await proposal({ 'A.lean': A.replace('sorry', 'rfl') });
    const bad = { schema: 'file-baseline/v1', files: [] } as unknown as FileBaseline;
    expect(
      (await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline: bad })).kind,
    ).toBe('refused');
    const rel = await applyPatchUnderCustody({
      projectRoot: 'rel',
      patch,
      allowed: ['A.lean'],
      baseline: await baselineOf('A.lean'),
    });
    expect(rel.kind).toBe('refused');
    expect(await read('A.lean')).toBe(A);
  });

  it('a failed write throws io_error naming what was already written, before any advance', async () => {
    const patch = await proposal({ 'A.lean': A.replace('sorry', 'rfl'), 'B.lean': 'def x := 2\n' });
    const real = nodeFsLayer();
    const failing: FsLayer = {
      ...real,
      rename: (from, to) => {
        if (to.endsWith('B.lean')) throw Object.assign(new Error('EIO: injected'), { code: 'EIO' });
        real.rename(from, to);
      },
    };
    const err = await applyPatchUnderCustody({
      projectRoot: dir,
      patch,
      allowed: ['A.lean', 'B.lean'],
      baseline: await baselineOf('A.lean', 'B.lean'),
      fs: failing,
    }).catch((e: unknown) => e);
    expect(isHandoffError(err) && err.code).toBe('io_error');
    if (isHandoffError(err)) expect(err.details).toMatchObject({ written: ['A.lean'], failed: 'B.lean' });
    expect(await read('B.lean')).toBe(B);
  });

  it('real git diffs of random edits apply exactly (property)', async () => {
    const lineArb = fc.constantFrom('theorem t : True := by', '  sorry', '  trivial', '', 'end', '-- note');
    await fc.assert(
      fc.asyncProperty(
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        fc.array(lineArb, { minLength: 1, maxLength: 12 }),
        fc.boolean(),
        async (a, b, finalNewline) => {
          const before = `${a.join('\n')}${finalNewline ? '\n' : ''}`;
          const after = `${b.join('\n')}\n`;
          await writeFile(join(dir, 'A.lean'), before);
          git(['add', 'A.lean']); // the index holds `before`: git diff shows before → after
          const baseline = await baselineOf('A.lean');
          await writeFile(join(dir, 'A.lean'), after);
          const patch = gitDiff('A.lean');
          await writeFile(join(dir, 'A.lean'), before);
          const r = await applyPatchUnderCustody({ projectRoot: dir, patch, allowed: ['A.lean'], baseline });
          if (before === after) {
            expect(r).toMatchObject({ kind: 'refused', detail: expect.stringMatching(/no_files/) });
            return;
          }
          expect(r.kind).toBe('applied');
          expect(await read('A.lean')).toBe(after);
        },
      ),
      { numRuns: 25 },
    );
  });
});
