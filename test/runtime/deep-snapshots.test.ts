/**
 * Deep mode's path-scoped snapshots (src/runtime/deep-snapshots.ts) on real files and real git:
 * exactly the listed files are captured, a restore puts back their exact bytes, existence and
 * mode without touching anything else, a failed restore is a result naming the reason, and the
 * run's verified custody follows the rollback (late-write re-check passes, the checkpoint commits
 * the restored bytes, never the rolled-back edit).
 */
import { execFileSync } from 'node:child_process';
import { chmod, lstat, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createDeepSnapshots, type SnapshotWriter } from '../../src/runtime/deep-snapshots.js';
import { createGitCheckpointer } from '../../src/runtime/git-checkpointer.js';
import { captureOwned } from '../../src/runtime/owned-files.js';
import { createVerifiedCustody } from '../../src/runtime/verified-custody.js';
import { gitDirsOf, snapshotWorkspace } from '../../src/runtime/workspace-watch.js';

const A = 'theorem a : 1 = 1 := by\n  sorry\n';
let dir: string;
const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-snap-')));
  await writeFile(join(dir, 'A.lean'), A);
  await writeFile(join(dir, 'B.lean'), 'theorem b : True := by\n  sorry\n');
  await writeFile(join(dir, 'notes.txt'), 'unrelated\n');
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('take', () => {
  it('captures exactly the listed files, with deterministic ids', async () => {
    const snaps = createDeepSnapshots({ projectRoot: dir });
    const s1 = await snaps.take({ files: ['A.lean'], label: 'deep-snapshot: A.lean:2' });
    const s2 = await snaps.take({ files: ['B.lean', 'sub/New.lean', 'B.lean'], label: 'x' });
    expect(s1).toEqual({ id: 'snap-1', files: ['A.lean'] });
    expect(s2).toEqual({ id: 'snap-2', files: ['B.lean', 'sub/New.lean'] });
  });

  it('refuses a path outside the root, a symbolic link and a directory (nothing is captured)', async () => {
    const snaps = createDeepSnapshots({ projectRoot: dir });
    await expect(snaps.take({ files: ['../etc/passwd'], label: 'x' })).rejects.toMatchObject({
      code: 'custody_violation',
    });
    await expect(snaps.take({ files: ['/etc/passwd'], label: 'x' })).rejects.toThrow(
      /outside the project root/,
    );
    await symlink('/etc/hostname', join(dir, 'L.lean'));
    await expect(snaps.take({ files: ['A.lean', 'L.lean'], label: 'x' })).rejects.toThrow(/symbolic link/);
    await expect(snaps.take({ files: ['.git'], label: 'x' })).rejects.toThrow(/not a regular file/);
    // the refused takes did not consume an id
    expect((await snaps.take({ files: ['A.lean'], label: 'x' })).id).toBe('snap-1');
  });
});

describe('restore', () => {
  it('puts back exact bytes, existence and mode of the snapshot files only', async () => {
    const bin = Buffer.from([0xff, 0x00, 0xfe, 0x0a, 0xc3]);
    await writeFile(join(dir, 'B.lean'), bin);
    await chmod(join(dir, 'B.lean'), 0o755);
    const snaps = createDeepSnapshots({ projectRoot: dir });
    const s = await snaps.take({ files: ['A.lean', 'B.lean', 'New.lean'], label: 'deep-snapshot: A.lean:2' });
    // the deep worker's edits: one changed, one deleted, one created, plus an unrelated edit
    await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 2 := by\n  simp\n');
    await rm(join(dir, 'B.lean'));
    await writeFile(join(dir, 'New.lean'), 'def helper := 1\n');
    await writeFile(join(dir, 'notes.txt'), 'the user keeps editing\n');
    const r = await snaps.restore({ snapshotId: s.id, files: s.files, reason: 'deep: always — test' });
    expect(r).toEqual({ ok: true, restored: ['A.lean', 'B.lean', 'New.lean'], detail: null });
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(A);
    expect((await readFile(join(dir, 'B.lean'))).equals(bin)).toBe(true);
    expect((await stat(join(dir, 'B.lean'))).mode & 0o777).toBe(0o755);
    expect(await lstat(join(dir, 'New.lean')).catch(() => null)).toBeNull();
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('the user keeps editing\n');
    // restored: the snapshot is discarded
    const again = await snaps.restore({ snapshotId: s.id, files: s.files, reason: 'x' });
    expect(again).toEqual({ ok: false, restored: [], detail: 'unknown snapshot snap-1' });
  });

  it('replaces a symbolic link planted at a snapshot path instead of writing through it', async () => {
    const outside = join(dir, '..', `${dir.split('/').pop()}-outside`);
    await writeFile(outside, 'outside\n');
    try {
      const snaps = createDeepSnapshots({ projectRoot: dir });
      const s = await snaps.take({ files: ['A.lean'], label: 'x' });
      await rm(join(dir, 'A.lean'));
      await symlink(outside, join(dir, 'A.lean'));
      const r = await snaps.restore({ snapshotId: s.id, files: ['A.lean'], reason: 'x' });
      expect(r.ok).toBe(true);
      expect((await lstat(join(dir, 'A.lean'))).isFile()).toBe(true);
      expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(A);
      expect(await readFile(outside, 'utf8')).toBe('outside\n');
    } finally {
      await rm(outside, { force: true });
    }
  });

  it('an injected failing writer is a failed rollback with the reason, never a throw; the snapshot is kept', async () => {
    const failing: SnapshotWriter = {
      async write() {
        throw new Error('EIO: injected write failure');
      },
      async remove() {
        throw new Error('EIO: injected remove failure');
      },
    };
    const snaps = createDeepSnapshots({ projectRoot: dir, writer: failing });
    const s = await snaps.take({ files: ['A.lean'], label: 'x' });
    await writeFile(join(dir, 'A.lean'), 'edited\n');
    const r = await snaps.restore({
      snapshotId: s.id,
      files: ['A.lean'],
      reason: 'deep: regression — new errors',
    });
    expect(r).toEqual({
      ok: false,
      restored: [],
      detail: 'rollback failed: A.lean: EIO: injected write failure',
    });
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe('edited\n');
    const retry = await snaps.restore({ snapshotId: s.id, files: ['A.lean'], reason: 'retry' });
    expect(retry.detail).toBe('rollback failed: A.lean: EIO: injected write failure');
  });

  it('a writer that reports success but leaves other bytes is caught by the sha256 re-read', async () => {
    const liar: SnapshotWriter = {
      async write(file) {
        await writeFile(file, 'not the snapshot\n');
      },
      async remove() {},
    };
    const snaps = createDeepSnapshots({ projectRoot: dir, writer: liar });
    const s = await snaps.take({ files: ['A.lean', 'Gone.lean'], label: 'x' });
    await writeFile(join(dir, 'Gone.lean'), 'created by deep\n');
    const r = await snaps.restore({ snapshotId: s.id, files: s.files, reason: 'x' });
    expect(r.ok).toBe(false);
    expect(r.detail).toBe(
      "rollback failed: A.lean does not hold the snapshot's bytes; Gone.lean still exists",
    );
  });

  it('refuses a file the snapshot does not hold before writing anything', async () => {
    const snaps = createDeepSnapshots({ projectRoot: dir });
    const s = await snaps.take({ files: ['A.lean'], label: 'x' });
    await writeFile(join(dir, 'A.lean'), 'edited\n');
    const r = await snaps.restore({ snapshotId: s.id, files: ['A.lean', 'B.lean'], reason: 'x' });
    expect(r).toEqual({ ok: false, restored: [], detail: 'B.lean is not in snapshot snap-1' });
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe('edited\n');
  });
});

describe('custody after a rollback', () => {
  it('the checkpoint commits the restored bytes, never the rolled-back edit, and a later write is still caught', async () => {
    const custody = createVerifiedCustody({
      projectRoot: dir,
      gitDirs: await gitDirsOf(dir),
      storeRoot: null,
    });
    const a = join(dir, 'A.lean');
    const n = join(dir, 'N.lean');
    // an earlier fill pass was accepted on A.lean
    await writeFile(a, A.replace('sorry', 'rfl'));
    custody.accept(await captureOwned([a]), await snapshotWorkspace(custody.zones, [a]), [a]);
    const snaps = createDeepSnapshots({ projectRoot: dir, custody });
    const s = await snaps.take({ files: ['A.lean', 'N.lean'], label: 'deep-snapshot: A.lean:2' });
    // the deep worker's edit was accepted, then the regression gate rolls it back
    await writeFile(a, 'theorem a : 1 = 1 := by\n  exact (by decide)\n');
    await writeFile(n, 'lemma helper : True := trivial\n');
    const owned = [a, n];
    custody.accept(await captureOwned(owned), await snapshotWorkspace(custody.zones, owned), owned);
    expect(custody.rolledBack(a)).toBe(false);
    const r = await snaps.restore({
      snapshotId: s.id,
      files: s.files,
      reason: 'deep: regression — new errors',
    });
    expect(r.ok).toBe(true);
    expect(custody.rolledBack(a)).toBe(true);
    expect(custody.verified(a)?.bytes?.toString('utf8')).toBe(A.replace('sorry', 'rfl'));
    expect(custody.verified(n)?.bytes).toBeNull();
    expect(await custody.recheck([a, n])).toBeNull();
    const cp = await createGitCheckpointer(dir, custody).checkpoint({
      cycle: 1,
      files: [a],
      summary: 'A.lean:2 solved',
      commit: 'auto',
    });
    expect(cp.committed).toBe(true);
    expect(git('show', 'HEAD:A.lean')).toBe(A.replace('sorry', 'rfl'));
    expect(git('ls-tree', '--name-only', 'HEAD').split('\n')).not.toContain('N.lean');
    // a later write to the rolled-back file is a late write, as for any verified file
    await writeFile(a, 'LATE\n');
    expect(await custody.recheck([a])).toMatch(/changed after it was verified/);
  });

  it('a rollback of a file outside the last accepted dispatch does not look like a late write', async () => {
    const custody = createVerifiedCustody({
      projectRoot: dir,
      gitDirs: await gitDirsOf(dir),
      storeRoot: null,
    });
    const a = join(dir, 'A.lean');
    const b = join(dir, 'B.lean');
    const snaps = createDeepSnapshots({ projectRoot: dir, custody });
    const s = await snaps.take({ files: ['B.lean'], label: 'x' });
    await writeFile(b, 'deep edit\n');
    // the last acceptance was a dispatch owning A.lean only: B.lean is in the watched project zone
    await writeFile(a, A.replace('sorry', 'rfl'));
    custody.accept(await captureOwned([a]), await snapshotWorkspace(custody.zones, [a]), [a]);
    const r = await snaps.restore({ snapshotId: s.id, files: ['B.lean'], reason: 'x' });
    expect(r.ok).toBe(true);
    expect(await custody.recheck([a])).toBeNull();
  });
});
