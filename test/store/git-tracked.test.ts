/**
 * `git_tracked` with real git: create refuses a store whose runs/ directory has paths in the Git
 * index of the repository containing it (ignore rules never untrack a file), before writing
 * anything; an untracked or ignored store, or one outside any repository, is fine.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitTrackedUnder } from '../../src/store/git-index.js';
import { createFsStore } from '../../src/store/index.js';
import { dispatch, fixedClock } from './fixtures.js';
import { tempDir } from './tmp.js';

const git = (cwd: string, ...args: string[]): string =>
  execFileSync('git', ['-C', cwd, ...args], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

function repo(): string {
  const dir = tempDir('git-tracked-');
  git(dir, 'init', '-q');
  return dir;
}

describe('git_tracked', () => {
  it('a store in a repository whose runs/ is untracked (the published .gitignore) is created', async () => {
    const project = repo();
    const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
    expect(await store.createRun({ dispatch: dispatch() })).toMatchObject({ outcome: 'committed' });
    // the published runs/.gitignore keeps everything under runs/ out of `git add -A`
    git(project, 'add', '-A');
    expect(git(project, 'ls-files', '--', '.handoff')).toBe('');
    expect(await store.createRun({ dispatch: dispatch(), trackerSessionId: 'again' })).toMatchObject({
      outcome: 'committed',
    });
  });

  it('refuses create, before writing anything, when a path under runs/ is in the index', async () => {
    const project = repo();
    const runs = join(project, '.handoff', 'runs');
    mkdirSync(runs, { recursive: true });
    writeFileSync(join(runs, 'notes.txt'), 'x\n');
    git(project, 'add', '-f', '.handoff/runs/notes.txt');
    const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
    const r = await store.createRun({ dispatch: dispatch() });
    expect(r).toMatchObject({ outcome: 'nothing_written', code: 'git_tracked' });
    expect(r.detail).toContain('.handoff/runs/notes.txt');
    expect(readdirSync(runs)).toEqual(['notes.txt']); // no .gitignore, no run directory
  });

  it('asks the repository that contains the store, even when the store is outside the project', async () => {
    const other = repo();
    const root = join(other, 'nested', 'store');
    mkdirSync(join(root, 'runs'), { recursive: true });
    writeFileSync(join(root, 'runs', 'tracked.json'), '{}\n');
    git(other, 'add', 'nested/store/runs/tracked.json');
    expect(gitTrackedUnder(join(root, 'runs'))).toEqual(['nested/store/runs/tracked.json']);
    const project = repo();
    const store = createFsStore({ root, projectRoot: project, env: {}, now: fixedClock() });
    expect(await store.createRun({ dispatch: dispatch() })).toMatchObject({ code: 'git_tracked' });
    expect(existsSync(join(root, 'runs', '.gitignore'))).toBe(false);
  });

  it('nothing is tracked outside a repository or for a runs/ that does not exist yet', () => {
    const plain = tempDir('no-git-');
    expect(gitTrackedUnder(join(plain, 'store', 'runs'))).toEqual([]);
    const project = repo();
    expect(gitTrackedUnder(join(project, 'a', 'b', 'runs'))).toEqual([]);
  });
});
