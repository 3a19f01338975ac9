/**
 * Custody without a sandbox (src/runtime/workspace-watch.ts, restore-after-refusal.ts), on a real
 * git repository: what a refused worker wrote outside its owned files is undone, one restore class
 * per test — a file clean in git from git, a created file (and folder) removed, a small untracked
 * file from the bytes kept at dispatch, a file too large to keep named — and git's control zone:
 * a planted nested `.git` is a violation and removed, a staged index is a violation and put back,
 * while git refreshing its own stat cache (`git status`) is not a change.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { captureOwned } from '../../src/runtime/owned-files.js';
import { restoreAfterRefusal } from '../../src/runtime/restore-after-refusal.js';
import { createStatIndex } from '../../src/runtime/stat-index.js';
import {
  captureZoneBytes,
  describeWorkspaceChanges,
  gitDirsOf,
  snapshotWorkspace,
  type WatchZones,
  workspaceChanges,
} from '../../src/runtime/workspace-watch.js';

let dir: string;
const git = (args: string[], cwd = dir) => execFileSync('git', args, { cwd, encoding: 'utf8' });
const README = 'the project\n';

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-restore-')));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  await writeFile(join(dir, 'README.md'), README);
  await mkdir(join(dir, 'src'));
  await writeFile(join(dir, 'src', 'a.ts'), 'export const a = 1;\n');
  git(['init', '-q']);
  git(['config', 'gc.auto', '0']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-qm', 'init']);
  await writeFile(join(dir, 'notes.txt'), 'untracked notes\n');
  await writeFile(join(dir, 'big.bin'), Buffer.alloc(4096, 7));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Runs `worker` between two snapshots and restores as a refusal does; resolves to what it saw and said. */
async function dispatch(worker: () => Promise<void> | void) {
  const zones: WatchZones = { projectRoot: dir, gitDirs: await gitDirsOf(dir), storeRoot: null };
  const owned = [join(dir, 'A.lean')];
  const index = createStatIndex({ keepEach: 1024 });
  const captured = await captureOwned(owned);
  const before = await snapshotWorkspace(zones, owned, index);
  const kept = await captureZoneBytes(zones, before);
  await worker();
  const changes = workspaceChanges(before, await snapshotWorkspace(zones, owned, index));
  const notes = await restoreAfterRefusal(captured, zones, kept, changes);
  const again = workspaceChanges(before, await snapshotWorkspace(zones, owned, index));
  return { changes, notes, kept, again, violation: describeWorkspaceChanges(changes) };
}

describe('a refused worker’s writes outside its owned files are undone', () => {
  it('a file clean in git is read back from git (changed and deleted)', async () => {
    const r = await dispatch(async () => {
      await writeFile(join(dir, 'README.md'), 'defaced\n');
      await rm(join(dir, 'src', 'a.ts'));
    });
    expect(r.changes.project).toEqual(['README.md', 'src/a.ts']);
    expect(r.kept.get('project:README.md')?.kind).toBe('git'); // its bytes were never kept
    expect(r.notes).toEqual(['restored outside the owned files: README.md, src/a.ts']);
    expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(README);
    expect(await readFile(join(dir, 'src', 'a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(r.again).toEqual({ project: [], git: [], store: [] });
  });

  it('a created file is removed, and the folders it created with it', async () => {
    const r = await dispatch(async () => {
      await mkdir(join(dir, 'planted', 'deep'), { recursive: true });
      await writeFile(join(dir, 'planted', 'deep', 'x.ts'), 'evil\n');
      await writeFile(join(dir, 'src', 'backdoor.ts'), 'evil\n');
    });
    expect(r.violation).toBe('the worker wrote outside its owned files: planted/deep/x.ts, src/backdoor.ts');
    expect(r.notes).toEqual(['restored outside the owned files: planted/deep/x.ts, src/backdoor.ts']);
    await expect(stat(join(dir, 'planted'))).rejects.toThrow(/ENOENT/);
    await expect(stat(join(dir, 'src', 'backdoor.ts'))).rejects.toThrow(/ENOENT/);
    expect((await stat(join(dir, 'src'))).isDirectory()).toBe(true);
  });

  it('a small untracked file is restored from the bytes kept at dispatch', async () => {
    const r = await dispatch(() => writeFile(join(dir, 'notes.txt'), 'rewritten\n'));
    expect(r.kept.get('project:notes.txt')?.kind).toBe('file');
    expect(r.notes).toEqual(['restored outside the owned files: notes.txt']);
    expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('untracked notes\n');
  });

  it('a planted FIFO is seen without being opened, and removed', async () => {
    const r = await dispatch(() => {
      execFileSync('mkfifo', [join(dir, 'trap.fifo')]);
    });
    expect(r.violation).toBe('the worker wrote outside its owned files: trap.fifo');
    expect(r.notes).toEqual(['restored outside the owned files: trap.fifo']);
    await expect(stat(join(dir, 'trap.fifo'))).rejects.toThrow(/ENOENT/);
  });

  it('a file too large to keep is named, never silently skipped', async () => {
    const r = await dispatch(() => writeFile(join(dir, 'big.bin'), 'shrunk\n'));
    expect(r.kept.get('project:big.bin')?.kind).toBe('large');
    expect(r.notes).toEqual(['could not restore (too large to keep): big.bin']);
    expect(r.again.project).toEqual(['big.bin']);
  });
});

describe('every .git is git state', () => {
  it('a nested .git planted with core.fsmonitor is a violation and is removed', async () => {
    const r = await dispatch(async () => {
      await mkdir(join(dir, 'sub', '.git'), { recursive: true });
      await writeFile(join(dir, 'sub', '.git', 'config'), '[core]\n\tfsmonitor = ./evil.sh\n');
    });
    expect(r.changes.git).toEqual([join(dir, 'sub', '.git/'), join(dir, 'sub', '.git', 'config')]);
    expect(r.violation).toMatch(/^the worker changed git state: .*sub\/\.git\/config$/);
    await expect(stat(join(dir, 'sub', '.git'))).rejects.toThrow(/ENOENT/);
    expect(r.again).toEqual({ project: [], git: [], store: [] });
  });

  it('an existing nested repository’s config is watched and put back', async () => {
    await mkdir(join(dir, 'vendor'));
    git(['init', '-q'], join(dir, 'vendor'));
    const config = await readFile(join(dir, 'vendor', '.git', 'config'), 'utf8');
    const r = await dispatch(() =>
      writeFile(join(dir, 'vendor', '.git', 'config'), `${config}[core]\n\tfsmonitor = ./evil.sh\n`),
    );
    expect(r.changes.git).toEqual([join(dir, 'vendor', '.git', 'config')]);
    expect(await readFile(join(dir, 'vendor', '.git', 'config'), 'utf8')).toBe(config);
  });

  it('the index is a control file: a staged file is a violation, and the index is put back', async () => {
    const r = await dispatch(async () => {
      await writeFile(join(dir, 'B.lean'), 'axiom cheat : False\n');
      git(['add', 'B.lean']);
    });
    expect(r.changes.git).toEqual([join(dir, '.git', 'index')]);
    expect(r.changes.project).toEqual(['B.lean']);
    expect(git(['diff', '--cached', '--name-only'])).toBe('');
    await expect(stat(join(dir, 'B.lean'))).rejects.toThrow(/ENOENT/);
  });

  it('git refreshing its stat cache (a worker’s `git status`) is not a change', async () => {
    const r = await dispatch(async () => {
      // same bytes, new timestamps: git status rewrites the index's stat cache
      const t = new Date(Date.now() + 5_000);
      await utimes(join(dir, 'README.md'), t, t);
      git(['status', '--porcelain']);
    });
    expect(r.changes).toEqual({ project: [], git: [], store: [] });
    expect(r.notes).toEqual([]);
  });
});
