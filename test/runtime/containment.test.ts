/**
 * Containment pieces of the runtime in isolation (real files, real git): the checkpoint's
 * re-check against verified custody, the exact-bytes commit, the workspace watch's zones, the
 * hardened git runner, and owned-file capture/restore.
 */
import { execFileSync } from 'node:child_process';
import { appendFile, mkdir, mkdtemp, readFile, realpath, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor } from '../../src/contract/index.js';
import { hardenedGitEnv, isBlockedGit, runGit } from '../../src/git/index.js';
import { commitExact } from '../../src/runtime/git-checkpointer.js';
import { createMarkerDiagnostics } from '../../src/runtime/marker-diagnostics.js';
import { captureOwned, ownedTypeViolation, restoreOwned } from '../../src/runtime/owned-files.js';
import type { DiagnosticsPort } from '../../src/runtime/ports.js';
import { runProject } from '../../src/runtime/project-run.js';
import {
  captureZoneBytes,
  describeWorkspaceChanges,
  restoreZones,
  snapshotWorkspace,
  workspaceChanges,
} from '../../src/runtime/workspace-watch.js';

let dir: string;
const sh = (args: string[], cwd = dir) => execFileSync('git', args, { cwd, encoding: 'utf8' });
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-contain-')));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  await writeFile(join(dir, 'other.txt'), 'bystander\n');
  sh(['init', '-q']);
  sh(['add', '-A']);
  sh(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function solve(d: Dispatch) {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

/** Marker diagnostics that run `late` once, on the first post-edit verification. */
function lateDiagnostics(late: () => Promise<void>): DiagnosticsPort {
  const inner = createMarkerDiagnostics({ projectRoot: dir, target: '.', scope: 'project' });
  let done = false;
  return {
    async diagnose(input) {
      if (input.question === 'edit' && !done) {
        done = true;
        await late();
      }
      return inner.diagnose(input);
    },
  };
}

describe('the checkpoint re-checks verified custody', () => {
  it('a write to the owned file after acceptance refuses the checkpoint and restores the verified bytes', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      diagnostics: lateDiagnostics(() => appendFile(join(dir, 'A.lean'), 'axiom late : False\n')),
    });
    expect(r.handoff.status).toBe('stopped');
    expect(r.handoff.stop_reason).toBe('protocol-error');
    expect(r.handoff.stop_detail).toBe(
      `custody violation at checkpoint: ${dir}/A.lean changed after it was verified (a late write); owned files restored to the verified bytes`,
    );
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe('theorem a : 1 = 1 := by\n  rfl\n');
    expect(sh(['log', '--format=%s']).trim()).toBe('init');
  });

  it('a write to an unowned file after acceptance refuses the checkpoint', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      diagnostics: lateDiagnostics(() => writeFile(join(dir, 'other.txt'), 'changed late\n')),
    });
    expect(r.handoff.stop_detail).toMatch(
      /^custody violation at checkpoint: the worker wrote outside its owned files: other\.txt/,
    );
    expect(sh(['log', '--format=%s']).trim()).toBe('init');
  });

  it('a hook planted after acceptance refuses the checkpoint (and would not have run anyway)', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      diagnostics: lateDiagnostics(() =>
        writeFile(join(dir, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\nexit 1\n'),
      ),
    });
    expect(r.handoff.stop_detail).toMatch(/the worker changed git state: .*\.git\/hooks\/pre-commit/);
  });
});

describe('commitExact', () => {
  it('commits the given bytes, not the working tree, and keeps the user’s other staged change', async () => {
    await writeFile(join(dir, 'other.txt'), 'user staged this\n');
    sh(['add', 'other.txt']);
    await writeFile(join(dir, 'A.lean'), 'whatever is on disk now\n');
    const c = await commitExact(
      dir,
      [{ rel: 'A.lean', file: { bytes: Buffer.from('verified\n'), mode: 0o644 } }],
      'checkpoint: x',
    );
    expect(c).toMatch(/^[0-9a-f]{40}$/);
    expect(sh(['rev-parse', 'HEAD']).trim()).toBe(c);
    expect(sh(['show', 'HEAD:A.lean'])).toBe('verified\n');
    expect(sh(['show', 'HEAD:other.txt'])).toBe('bystander\n');
    expect(sh(['diff', '--cached', '--name-only']).trim()).toBe('other.txt');
    expect(sh(['log', '--format=%s']).trim().split('\n')).toEqual(['checkpoint: x', 'init']);
  });

  it('returns null for a tree that would not change, and deletes a file committed as absent', async () => {
    const same = await readFile(join(dir, 'A.lean'));
    expect(
      await commitExact(dir, [{ rel: 'A.lean', file: { bytes: same, mode: 0o644 } }], 'checkpoint: noop'),
    ).toBeNull();
    await commitExact(dir, [{ rel: 'other.txt', file: { bytes: null, mode: 0o644 } }], 'checkpoint: rm');
    expect(sh(['ls-tree', '--name-only', 'HEAD']).trim()).toBe('A.lean');
  });

  it('commits into a repository without commits, and from a project below the top level', async () => {
    const fresh = await realpath(await mkdtemp(join(tmpdir(), 'handoff-fresh-')));
    try {
      sh(['init', '-q'], fresh);
      await mkdir(join(fresh, 'sub'));
      const c = await commitExact(
        fresh,
        [{ rel: 'sub/B.lean', file: { bytes: Buffer.from('b\n'), mode: 0o755 } }],
        'checkpoint: first',
      );
      expect(c).not.toBeNull();
      expect(sh(['ls-tree', '-r', 'HEAD'], fresh)).toMatch(/^100755 blob [0-9a-f]+\tsub\/B\.lean$/m);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  });
});

describe('the hardened git runner', () => {
  it('runs no hook and no fsmonitor, whatever the repository configures', async () => {
    const marker = join(dir, '..', `${dir.split('/').pop()}-fsmon`);
    await writeFile(join(dir, 'fsmon.sh'), `#!/bin/sh\ntouch '${marker}'\n`, { mode: 0o755 });
    sh(['config', 'core.fsmonitor', join(dir, 'fsmon.sh')]);
    await runGit(dir, ['status', '--porcelain']);
    await runGit(dir, ['add', 'other.txt']);
    await runGit(dir, ['diff', '--cached', '--no-ext-diff', '--no-textconv']);
    await expect(readFile(marker)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('ignores an inherited GIT_DIR and refuses blocked commands, also after -C', async () => {
    expect(hardenedGitEnv({}).GIT_DIR).toBeUndefined();
    expect(hardenedGitEnv({}).GIT_CONFIG_NOSYSTEM).toBe('1');
    expect(isBlockedGit(['-C', '/x', 'push'])).toBe(true);
    expect(isBlockedGit(['-c', 'a=b', 'reset', '--hard'])).toBe(true);
    expect(isBlockedGit(['-C', '/x', 'status'])).toBe(false);
    await expect(runGit(dir, ['clean', '-fdx'])).rejects.toMatchObject({ code: 'blocked_git' });
  });
});

describe('the workspace watch', () => {
  const zones = () => ({ projectRoot: dir, gitDirs: [join(dir, '.git')], storeRoot: join(dir, '.handoff') });

  it('sees project, git-control (the index too) and store changes in their zones; ignores objects and build output; undoes them all', async () => {
    await mkdir(join(dir, '.handoff', 'runs', 'r1'), { recursive: true });
    await writeFile(join(dir, '.handoff', 'runs', 'r1', 'events.jsonl'), '{"seq":1}\n');
    const owned = [join(dir, 'A.lean')];
    const before = await snapshotWorkspace(zones(), owned);
    const kept = await captureZoneBytes(zones());
    await writeFile(join(dir, 'A.lean'), 'owned edits are not the watch’s concern\n');
    sh(['add', 'A.lean']); // objects: ignored; the index: git state
    await mkdir(join(dir, 'node_modules'));
    await writeFile(join(dir, 'node_modules', 'x.js'), '');
    await symlink('/etc/passwd', join(dir, 'link'));
    await writeFile(join(dir, '.git', 'info', 'attributes'), '* filter=evil\n');
    await appendFile(join(dir, '.handoff', 'runs', 'r1', 'events.jsonl'), '{"forged":1}\n');
    await writeFile(join(dir, '.handoff', 'runs', 'r1', '.lock'), '');
    const c = workspaceChanges(before, await snapshotWorkspace(zones(), owned));
    expect(c.project).toEqual(['link']);
    expect(c.git).toEqual([join(dir, '.git', 'index'), join(dir, '.git', 'info', 'attributes')]);
    expect(c.store).toEqual(['runs/r1/.lock', 'runs/r1/events.jsonl']);
    expect(describeWorkspaceChanges(c)).toMatch(
      /^the worker wrote outside its owned files: link; the worker changed git state: /,
    );
    expect(await restoreZones(zones(), kept, c)).toEqual([]);
    expect(await readFile(join(dir, '.handoff', 'runs', 'r1', 'events.jsonl'), 'utf8')).toBe('{"seq":1}\n');
    const again = workspaceChanges(before, await snapshotWorkspace(zones(), owned));
    expect(again).toEqual({ project: [], git: [], store: [] });
    expect(sh(['diff', '--cached', '--name-only'])).toBe('');
  });
});

describe('owned files', () => {
  it('a link swap is named, never read through, and restored to a regular file', async () => {
    const a = join(dir, 'A.lean');
    const cap = await captureOwned([a]);
    await rm(a);
    await symlink('/etc/passwd', a);
    expect(await ownedTypeViolation([a])).toBe(
      `owned file ${a} was replaced by a symbolic link to /etc/passwd`,
    );
    expect(await restoreOwned(cap)).toEqual({ restored: [a], failed: [] });
    expect(await ownedTypeViolation([a])).toBeNull();
    expect(await readFile(a, 'utf8')).toBe('theorem a : 1 = 1 := by\n  sorry\n');
  });

  it('a folder swapped for a link is named and left alone', async () => {
    await mkdir(join(dir, 'd'));
    const f = join(dir, 'd', 'F.lean');
    await writeFile(f, 'x\n');
    const cap = await captureOwned([f]);
    const outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-outside-')));
    try {
      await rm(join(dir, 'd'), { recursive: true });
      await symlink(outside, join(dir, 'd'));
      expect(await ownedTypeViolation([f])).toMatch(
        /a folder on the path of owned file .*F\.lean was replaced/,
      );
      expect(await restoreOwned(cap)).toEqual({ restored: [], failed: [f] });
      await expect(readFile(join(outside, 'F.lean'))).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(outside, { recursive: true, force: true });
    }
  });
});
