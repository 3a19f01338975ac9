/**
 * Repair mode's patcher port (src/runtime/patcher-port.ts) on real files and real git: a repair
 * worker's diff is applied under custody (baseline checked right before, advanced after), the
 * applied bytes are what the checkpoint commits, and a stale baseline, an out-of-scope or fuzzy
 * hunk, or a header change is refused with nothing left written.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/index.js';
import { createGitCheckpointer } from '../../src/runtime/git-checkpointer.js';
import { createPatcher } from '../../src/runtime/patcher-port.js';
import { createVerifiedCustody } from '../../src/runtime/verified-custody.js';
import { gitDirsOf } from '../../src/runtime/workspace-watch.js';

const A = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const FIX =
  '--- a/A.lean\n+++ b/A.lean\n@@ -1,2 +1,2 @@\n theorem t (n : Nat) : n + 0 = n := by\n-  sorry\n+  rfl\n';
let dir: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-patcher-')));
  await writeFile(join(dir, 'A.lean'), A);
  await writeFile(join(dir, 'B.lean'), 'theorem b : True := by\n  sorry\n');
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const custodyOf = async () =>
  createVerifiedCustody({ projectRoot: dir, gitDirs: await gitDirsOf(dir), storeRoot: null });

describe('createPatcher', () => {
  it('applies the diff, advances the baseline, and the checkpoint commits exactly the applied bytes', async () => {
    const custody = await custodyOf();
    const a = join(dir, 'A.lean');
    const baseline = await recordBaseline([a]);
    const r = await createPatcher({ projectRoot: dir, custody }).apply({
      patch: FIX,
      files: ['A.lean'],
      baseline,
    });
    expect(r.kind).toBe('applied');
    if (r.kind !== 'applied') return;
    expect(r.changed).toEqual(['A.lean']);
    expect(r).not.toHaveProperty('now');
    const fixed = A.replace('sorry', 'rfl');
    expect(await readFile(a, 'utf8')).toBe(fixed);
    expect(r.baseline).toEqual(await recordBaseline([a]));
    expect(custody.verified(a)?.bytes?.toString('utf8')).toBe(fixed);
    expect(await custody.recheck([a])).toBeNull();
    const cp = await createGitCheckpointer(dir, custody).checkpoint({
      cycle: 1,
      files: [a],
      summary: 'A.lean:2 repaired',
      commit: 'auto',
    });
    expect(cp.committed).toBe(true);
    expect(git('show', 'HEAD:A.lean')).toBe(fixed);
  });

  it('a stale baseline (the file changed since) is refused as stale, nothing written', async () => {
    const a = join(dir, 'A.lean');
    const baseline = await recordBaseline([a]);
    const drifted = `${A}-- the user edited this\n`;
    await writeFile(a, drifted);
    const r = await createPatcher({ projectRoot: dir }).apply({ patch: FIX, files: ['A.lean'], baseline });
    expect(r.kind).toBe('stale');
    expect(r.kind !== 'applied' && r.detail).toMatch(/^stale baseline: A\.lean modified/);
    expect(await readFile(a, 'utf8')).toBe(drifted);
  });

  it('a fuzzy hunk (context that does not match exactly) is refused, nothing written', async () => {
    const a = join(dir, 'A.lean');
    const fuzzy = FIX.replace(' theorem t (n : Nat)', ' theorem t (m : Nat)');
    const r = await createPatcher({ projectRoot: dir }).apply({
      patch: fuzzy,
      files: ['A.lean'],
      baseline: await recordBaseline([a]),
    });
    expect(r.kind).toBe('refused');
    expect(await readFile(a, 'utf8')).toBe(A);
  });

  it('a diff that changes a declaration header is refused by the statement fence before anything is written', async () => {
    const custody = await custodyOf();
    const a = join(dir, 'A.lean');
    const mtime = (await stat(a)).mtimeMs;
    const weaken =
      '--- a/A.lean\n+++ b/A.lean\n@@ -1,2 +1,2 @@\n-theorem t (n : Nat) : n + 0 = n := by\n-  sorry\n+theorem t (n : Nat) : True := by\n+  trivial\n';
    const r = await createPatcher({ projectRoot: dir, custody }).apply({
      patch: weaken,
      files: ['A.lean'],
      baseline: await recordBaseline([a]),
    });
    expect(r.kind).toBe('refused');
    expect(r.kind !== 'applied' && r.detail).toMatch(/^header fence: A\.lean: theorem t: statement changed/);
    expect(await readFile(a, 'utf8')).toBe(A);
    expect((await stat(a)).mtimeMs).toBe(mtime);
    expect(custody.verified(a)).toBeUndefined();
  });

  it('a file list entry outside the project root is refused before anything is read', async () => {
    const r = await createPatcher({ projectRoot: dir }).apply({
      patch: FIX,
      files: ['../A.lean'],
      baseline: await recordBaseline([join(dir, 'A.lean')]),
    });
    expect(r).toEqual({ kind: 'refused', detail: '../A.lean is outside the project root' });
  });
});
