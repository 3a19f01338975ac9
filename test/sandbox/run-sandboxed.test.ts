/**
 * The sandbox really started (bwrap + unshare + overlay): what a worker writes lands in the layer,
 * the host project stays byte-identical, and the layer is read and planned path by path.
 */
import { chown, lstat, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  applyLayerFiles,
  ownershipDefect,
  probeSandbox,
  runSandboxed,
  sandboxesDir,
} from '../../src/sandbox/index.js';

let dir: string;
let project: string;
/**
 * A host folder outside /tmp (read-only inside the sandbox; /tmp itself is a private overlay): the
 * repository's test-results, or /var/tmp when the checkout itself lives under /tmp.
 */
const hostBase = process.cwd().startsWith(`${tmpdir()}/`) ? '/var/tmp' : join(process.cwd(), 'test-results');
const hostProbe = join(hostBase, `sandbox-host-probe-${process.pid}`);
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sandbox-run-'));
  await mkdir(hostBase, { recursive: true });
  project = join(dir, 'p');
  await mkdir(join(project, 'd'), { recursive: true });
  await mkdir(join(project, '.git'));
  await writeFile(join(project, 'A.lean'), 'A\n');
  await writeFile(join(project, 'B.lean'), 'B\n');
  await writeFile(join(project, 'd', 'a.txt'), 'a\n');
  await writeFile(join(project, '.git', 'config'), 'c\n');
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function tree(root: string): Promise<string[]> {
  const out: string[] = [];
  for (const e of await readdir(root, { recursive: true, withFileTypes: true })) {
    const p = join(e.parentPath, e.name);
    out.push(
      `${p.slice(root.length)}:${e.isFile() ? await readFile(p, 'utf8') : e.isDirectory() ? 'dir' : 'other'}`,
    );
  }
  return out.sort();
}

describe('runSandboxed', () => {
  it('probes available on this machine and over the test project', async () => {
    expect(await probeSandbox()).toEqual({ available: true });
    expect(await probeSandbox(project)).toEqual({ available: true });
  });

  it("runs a script kept under the host's /tmp; its /tmp writes stay private", async () => {
    const script = join(dir, 'worker.sh');
    await writeFile(
      script,
      `cat ${join(dir, 'host-note')}; echo w > ${join(dir, 'host-note')}; echo t > ${join(dir, 'new')}; ls -A ${sandboxesDir()} | wc -l\n`,
    );
    await writeFile(join(dir, 'host-note'), 'seen\n');
    const r = await runSandboxed(['sh', script], '', {
      projectRoot: project,
      owned: [],
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(0);
    // the host's /tmp is readable; the folder of every run's layers is hidden (an empty tmpfs)
    expect(r.stdout).toBe('seen\n0\n');
    expect(await readFile(join(dir, 'host-note'), 'utf8')).toBe('seen\n');
    await expect(lstat(join(dir, 'new'))).rejects.toThrow();
    expect(r.violation).toBeNull();
  });

  it('keeps the host byte-identical, takes the owned file and names everything else', async () => {
    const before = await tree(project);
    const script = [
      'cat > /dev/null',
      'echo new > A.tmp && mv A.tmp A.lean',
      'echo x > B.lean',
      'echo y >> .git/config',
      'rm -rf d && mkdir d && echo z > d/n',
      'mkfifo f',
      'ln -s /etc/passwd l',
      'echo h > "$HOME/.bashrc"',
      `echo o > ${join(dir, 'outside')}`,
      `echo e > ${hostProbe} 2>/dev/null || echo refused`,
    ].join('; ');
    const r = await runSandboxed(['sh', '-c', script], '{}', {
      projectRoot: project,
      owned: [join(project, 'A.lean')],
      timeoutMs: 10_000,
    });
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('refused\n');
    expect(await tree(project)).toEqual(before);
    await expect(lstat(join(dir, 'outside'))).rejects.toThrow();
    await expect(lstat(hostProbe)).rejects.toThrow();
    expect(r.changes.written).toEqual(['A.lean', 'B.lean', 'd/n', '.git/config'].sort());
    expect(r.changes.opaqueDirs).toEqual(['d']);
    expect(r.changes.specials).toEqual([
      { path: 'f', kind: 'fifo' },
      { path: 'l', kind: 'symlink' },
    ]);
    expect(r.home.written).toEqual(['.bashrc']);
    expect(r.plan.take).toEqual(['A.lean']);
    expect(r.violation).toBe(
      'files outside the owned set were written and discarded: .git/config, B.lean, d/n, d/ (directory replaced), f (fifo), l (symlink), ~/.bashrc',
    );
    expect(r.files.get(join(project, 'A.lean'))?.bytes.toString()).toBe('new\n');
    expect(await applyLayerFiles(r.files)).toEqual([]);
    expect(await readFile(join(project, 'A.lean'), 'utf8')).toBe('new\n');
    expect(await readFile(join(project, 'B.lean'), 'utf8')).toBe('B\n');
  });

  it('reports a deleted owned file as removable only when allowed', async () => {
    const run = (allowDelete: boolean) =>
      runSandboxed(['rm', 'A.lean', 'B.lean'], '', {
        projectRoot: project,
        owned: [join(project, 'A.lean')],
        timeoutMs: 10_000,
        allowDelete,
      });
    const allowed = await run(true);
    expect(allowed.changes.deleted).toEqual(['A.lean', 'B.lean']);
    expect(allowed.plan.remove).toEqual(['A.lean']);
    expect(allowed.violation).toBe(
      'files outside the owned set were written and discarded: B.lean (deleted)',
    );
    const refused = await run(false);
    expect(refused.plan.remove).toEqual([]);
    expect(refused.plan.discarded).toEqual(['A.lean (deleted)', 'B.lean (deleted)']);
    expect(await readFile(join(project, 'A.lean'), 'utf8')).toBe('A\n');
  });

  it('an owned file of another user or group cannot be sandboxed: the probe says which', async () => {
    const mine = join(project, 'A.lean');
    expect(await ownershipDefect(project, [mine, join(project, 'd', 'new.lean')])).toBeNull();
    expect(await probeSandbox(project, [mine])).toEqual({ available: true });
    // as root (CI) the file is given away; as a user, a root-owned file stands in for it
    const other = process.getuid?.() === 0 ? join(project, 'B.lean') : '/etc/passwd';
    if (process.getuid?.() === 0) await chown(other, 65534, 65534);
    const stranger = await probeSandbox(project, [mine, other]);
    expect(stranger.available).toBe(false);
    expect(stranger.available ? '' : stranger.reason).toMatch(/belongs to \d+:\d+, not to the runner/);
  });
});
