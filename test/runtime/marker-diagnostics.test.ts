/**
 * The built-in marker diagnostics on real files: only the profile's source files git does not
 * ignore (README prose is never a target or an error), unreadable files reported unverifiable
 * (never skipped), a moved marker kept open while its declaration holds an escape hatch, and the
 * runtime's snapshot bytes read instead of the disk (what is checked is what is committed).
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { leanProfile } from '../../src/profile/index.js';
import { createMarkerDiagnostics, listProjectFiles } from '../../src/runtime/marker-diagnostics.js';

const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const README = '# Demo\n\nEach `sorry` below is a target.\n\n    -- error: TEXT reports a build error\n';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-marker-diag-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const lean = (o: { bytesOf?: (abs: string) => { bytes: Buffer | null } | undefined } = {}) => {
  const p = leanProfile();
  return createMarkerDiagnostics({
    projectRoot: dir,
    target: '.',
    scope: 'project',
    markers: p.markers,
    errorComment: p.errorComment,
    hatches: p.escapeHatches,
    sourceExtensions: p.sourceExtensions,
    ...o,
  });
};
const discover = (d: ReturnType<typeof lean>) =>
  d.diagnose({ question: 'discover', tier: 'file-fast', files: [] });
const edit = (d: ReturnType<typeof lean>, files = ['T.lean']) =>
  d.diagnose({ question: 'edit', tier: 'file-fast', files });
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });

describe('what the built-in scan reads (issue 28 item 2)', () => {
  it('README prose with "sorry" and "-- error: TEXT" is neither a target nor an error', async () => {
    await writeFile(join(dir, 'README.md'), README);
    await writeFile(join(dir, 'T.lean'), THEOREM);
    const out = await discover(lean());
    expect(out.targets.map((t) => t.id)).toEqual(['T.lean:2']);
    expect(out.errors).toEqual([]);
  });

  it('in a git work tree, files git ignores are not read; untracked ones are', async () => {
    git('init', '-q');
    await writeFile(join(dir, '.gitignore'), 'build/\n');
    await mkdir(join(dir, 'build'));
    await writeFile(join(dir, 'build', 'Gen.lean'), THEOREM);
    await writeFile(join(dir, 'T.lean'), THEOREM);
    await writeFile(join(dir, 'README.md'), README);
    expect(await listProjectFiles(dir, '.', { extensions: ['.lean'] })).toEqual(['T.lean']);
    expect(await listProjectFiles(dir)).toEqual(['.gitignore', 'README.md', 'T.lean']);
    expect((await discover(lean())).targets.map((t) => t.id)).toEqual(['T.lean:2']);
  });

  it('a pathspec-looking target is a literal path', async () => {
    git('init', '-q');
    await writeFile(join(dir, 'T.lean'), THEOREM);
    expect(await listProjectFiles(dir, ':(glob)*', { extensions: ['.lean'] })).toEqual([]);
  });
});

describe('unverifiable, never skipped', () => {
  it('a NUL byte or invalid UTF-8 is an unverifiable error naming the file', async () => {
    await writeFile(join(dir, 'T.lean'), `-- \0\n${THEOREM}`);
    await writeFile(join(dir, 'U.lean'), Buffer.from([0x73, 0x6f, 0x72, 0x72, 0x79, 0xff]));
    const out = await discover(lean());
    expect(out.targets).toEqual([]);
    expect(out.errors).toEqual([
      'T.lean:0:unverifiable: a NUL byte at offset 3 (not text)',
      'U.lean:0:unverifiable: not valid UTF-8 text',
    ]);
    expect(out.ok).toBe(false);
  });

  it('a 1.1 MB comment is read (within the limit): its sorry is found', async () => {
    await writeFile(join(dir, 'T.lean'), `-- ${'x'.repeat(1_100_000)}\n${THEOREM}`);
    expect((await discover(lean())).targets.map((t) => t.id)).toEqual(['T.lean:3']);
  });

  it('an edit that makes the file unverifiable keeps its target open', async () => {
    await writeFile(join(dir, 'T.lean'), THEOREM);
    const d = lean();
    await discover(d);
    await writeFile(join(dir, 'T.lean'), `-- \0\n${THEOREM.replace('sorry', 'rfl')}`);
    const out = await edit(d);
    expect(out.targets.map((t) => t.id)).toEqual(['T.lean:2']);
    expect(out.targets[0]?.goal).toMatch(/unverifiable: a NUL byte/);
    expect(out.errors).toEqual(['T.lean:0:unverifiable: a NUL byte at offset 3 (not text)']);
  });
});

describe('a target is its declaration, not its line', () => {
  it('a sorry moved by a blank line, CR line endings or respelled stays the same open target', async () => {
    for (const after of [
      'theorem t (n : Nat) : n + 0 = n := by\n\n  sorry\n',
      'theorem t (n : Nat) : n + 0 = n := by\r  rfl\r\r  sorry\r',
      'theorem t (n : Nat) : n + 0 = n := by\n  rfl\n  exact sorryAx _\n',
      'theorem t (n : Nat) : n + 0 = n := by\n  rfl\n  admit\n',
    ]) {
      await writeFile(join(dir, 'T.lean'), THEOREM);
      const d = lean();
      await discover(d);
      await writeFile(join(dir, 'T.lean'), after);
      const out = await edit(d);
      expect(out.targets.map((t) => t.id)).toContain('T.lean:2');
      expect(out.targets.find((t) => t.id === 'T.lean:2')?.goal).toMatch(/still in theorem t/);
    }
  });

  it('an honest proof closes it; another declaration shifting down does not reopen it', async () => {
    await writeFile(join(dir, 'T.lean'), `${THEOREM}\ntheorem u : True := by\n  sorry\n`);
    const d = lean();
    expect((await discover(d)).targets.map((t) => t.id)).toEqual(['T.lean:2', 'T.lean:5']);
    await writeFile(
      join(dir, 'T.lean'),
      'theorem t (n : Nat) : n + 0 = n := by\n  simp\n  done\n\ntheorem u : True := by\n  sorry\n',
    );
    const out = await edit(d);
    // u's target is still open under its old id (and its new line); t's is solved
    expect(out.targets.map((t) => t.id).sort()).toEqual(['T.lean:5', 'T.lean:6']);
  });

  it('a new axiom is an escape hatch; the axioms of the first view are not', async () => {
    await writeFile(join(dir, 'T.lean'), `axiom old : 1 = 1\n${THEOREM}`);
    const d = lean();
    expect((await discover(d)).targets.map((t) => t.id)).toEqual(['T.lean:3']);
    await writeFile(
      join(dir, 'T.lean'),
      'axiom old : 1 = 1\naxiom cheat : False\ntheorem t (n : Nat) : n + 0 = n := by\n  exact (cheat).elim\n',
    );
    const out = await edit(d);
    expect(out.targets.map((t) => t.id)).toEqual(['T.lean:2']);
  });
});

describe('the checks read the snapshot the runtime verifies and commits (issue 27 §2)', () => {
  it('an accepted file is read from the snapshot, not the disk a leftover process rewrote', async () => {
    await writeFile(join(dir, 'T.lean'), THEOREM);
    const snapshot = new Map<string, { bytes: Buffer | null }>();
    const d = lean({ bytesOf: (abs) => snapshot.get(abs) });
    await discover(d);
    // the runtime accepted the sorry bytes; the disk now shows a proof
    snapshot.set(join(dir, 'T.lean'), { bytes: Buffer.from(THEOREM) });
    await writeFile(join(dir, 'T.lean'), THEOREM.replace('sorry', 'rfl'));
    expect((await edit(d)).targets.map((t) => t.id)).toEqual(['T.lean:2']);
    expect((await discover(d)).targets.map((t) => t.id)).toEqual(['T.lean:2']);
    // and the other way round: accepted proof bytes, the disk swapped back to the sorry
    snapshot.set(join(dir, 'T.lean'), { bytes: Buffer.from(THEOREM.replace('sorry', 'rfl')) });
    await writeFile(join(dir, 'T.lean'), THEOREM);
    expect((await edit(d)).targets).toEqual([]);
  });
});
