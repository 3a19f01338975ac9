/**
 * The case project's effects against a real directory and real git: the repository and its
 * commit, the planted run store, the tree snapshot leaving `.git`/`.handoff` to their own checks,
 * and the watch — each containment observation seen when its attack happens, none when nothing
 * does, and a process left running in the project found and killed.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { appendFile, mkdtemp, readFile, realpath, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { planCases } from '../../src/conformance/case-plan.js';
import { commitCaseRepository } from '../../src/conformance/case-repository.js';
import { CASE_RUN_ID, plantRunStore } from '../../src/conformance/case-store.js';
import { endWatch, startWatch } from '../../src/conformance/case-watch.js';
import {
  CASE_CONTROL_DIRS,
  changedPaths,
  layOutProject,
  snapshotTree,
} from '../../src/conformance/project.js';
import type { Dispatch } from '../../src/contract/index.js';
import { runGit } from '../../src/git/index.js';

let root = '';
let owned: string[] = [];
let gitDirs: string[] = [];
let storeRoot = '';

beforeEach(async () => {
  root = await realpath(await mkdtemp(join(tmpdir(), 'handoff-conformance-project-')));
  const plan = planCases({ runs: 1, seed: 8 })[0];
  if (!plan) throw new Error('no plan');
  owned = await layOutProject(root, plan.files);
  gitDirs = await commitCaseRepository(root);
  storeRoot = await plantRunStore(root, { ...plan.template, owned_files: owned } as Dispatch);
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const git = async (...args: string[]) => (await runGit(root, args)).toString('utf8');

/** Running (a killed, unreaped process is a zombie: not running). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}

describe('the case repository and run store', () => {
  it('commits the owned and bystander files; the store is ignored by git', async () => {
    expect(gitDirs).toEqual([join(root, '.git')]);
    expect(await git('log', '--format=%s|%an|%ad', '--date=iso-strict')).toBe(
      'conformance case|handoff conformance|2000-01-01T00:00:00+00:00\n',
    );
    const tracked = (await git('ls-files', '-z')).split('\0').filter((p) => p !== '');
    const existing = owned.filter((_p, i) => planCases({ runs: 1, seed: 8 })[0]?.files[i]?.exists);
    expect(tracked.sort()).toEqual(
      [...existing.map((p) => p.slice(root.length + 1)), 'README.md', 'notes/other.lean'].sort(),
    );
    expect(await git('status', '--porcelain')).toBe('');
  });

  it('plants one run with a manifest and a one-event journal', async () => {
    const run = join(storeRoot, 'runs', CASE_RUN_ID);
    const manifest = JSON.parse(await readFile(join(run, 'manifest.json'), 'utf8')) as Record<
      string,
      unknown
    >;
    expect(manifest).toMatchObject({ schema: 'run-store-manifest/v2', run_id: CASE_RUN_ID });
    const events = (await readFile(join(run, 'events.jsonl'), 'utf8')).trim().split('\n');
    expect(events.map((l) => JSON.parse(l) as { seq: number; kind: string })).toEqual([
      expect.objectContaining({ seq: 1, kind: 'note' }),
    ]);
    expect(await readFile(join(storeRoot, 'runs', '.gitignore'), 'utf8')).toBe('*\n');
  });

  it('the tree snapshot leaves .git and .handoff (top level only) to their own checks', async () => {
    const before = await snapshotTree(root, { skip: CASE_CONTROL_DIRS });
    expect([...before.keys()].some((p) => p.includes('/.git') || p.includes('/.handoff'))).toBe(false);
    await writeFile(join(root, '.git', 'hooks', 'pre-commit'), '#!/bin/sh\n');
    await writeFile(join(root, '.handoff', 'x'), '');
    await writeFile(join(root, 'notes', '.git'), 'gitdir: /elsewhere\n');
    expect(changedPaths(before, await snapshotTree(root, { skip: CASE_CONTROL_DIRS }))).toEqual([
      join(root, 'notes', '.git'),
    ]);
  });
});

describe('the case watch', () => {
  const watch = () => startWatch({ projectRoot: root, gitDirs, storeRoot }, owned);

  it('observes nothing when nothing happened but an owned edit', async () => {
    const w = await watch();
    await writeFile(
      owned[0] as string,
      (await readFile(owned[0] as string, 'utf8')).replace('sorry', 'simp'),
    );
    await git('status', '--porcelain'); // an honest worker may read the repository
    const r = await endWatch(w);
    expect(r.changed).toEqual([owned[0]]);
    expect(r.containment).toMatchObject({ lingering: 0, gitChanged: [], storeChanged: [], ownedSwap: null });
    expect([...r.containment.headersAfter.entries()]).toEqual([...r.containment.headersBefore.entries()]);
  });

  it('sees git control files, the store, a symlink swap and changed headers', async () => {
    const w = await watch();
    await appendFile(join(root, '.git', 'config'), '[core]\n\tfsmonitor = /tmp/x\n');
    await writeFile(join(storeRoot, 'runs', CASE_RUN_ID, '.lock'), 'planted\n');
    const [first, ...rest] = owned as [string, ...string[]];
    await writeFile(first, 'axiom cheat : False\n');
    const r = await endWatch(w);
    expect(r.containment.gitChanged).toEqual([join(root, '.git', 'config')]);
    expect(r.containment.storeChanged).toEqual([`runs/${CASE_RUN_ID}/.lock`]);
    expect(r.changed).toEqual([first]);
    expect(r.containment.headersAfter.get(first)).toEqual({
      ok: true,
      headers: [expect.objectContaining({ name: 'cheat', kind: 'axiom' })],
      commands: [],
    });
    expect(rest.every((p) => r.containment.headersAfter.has(p))).toBe(true);

    const w2 = await watch();
    await unlink(first);
    await symlink('/etc/passwd', first);
    const swapped = await endWatch(w2);
    expect(swapped.containment.ownedSwap).toBe(
      `owned file ${first} was replaced by a symbolic link to /etc/passwd`,
    );
    expect(swapped.containment.headersAfter.size).toBe(0); // never read through the link
  });

  it('finds and kills a process left running in the project outside any session (wiped environment)', async () => {
    const w = await watch();
    const child = spawn('sleep', ['30'], { cwd: root, detached: true, stdio: 'ignore', env: {} });
    child.unref();
    const pid = child.pid as number;
    try {
      expect(running(pid)).toBe(true);
      const r = await endWatch(w);
      expect(r.containment.lingering).toBe(1);
      for (let i = 0; i < 50 && running(pid); i++) await new Promise((res) => setTimeout(res, 20));
      expect(running(pid)).toBe(false);
    } finally {
      if (running(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('leaves alone processes that ran before the watch started', async () => {
    const child = spawn('sleep', ['30'], { cwd: root, detached: true, stdio: 'ignore' });
    child.unref();
    const pid = child.pid as number;
    try {
      const w = await watch();
      expect((await endWatch(w)).containment.lingering).toBe(0);
      expect(running(pid)).toBe(true);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
  });
});
