/**
 * The user's `safe.directory` entries survive the hardened environment (no global configuration):
 * read once, carried as command-scope configuration, so a checkout owned by another user that the
 * user declared safe (as CI does) still works for every runtime git command.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hardenedGitEnv, runGit, userSafeDirectories } from '../../src/git/index.js';

const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
const dirs: string[] = [];
afterAll(async () => {
  process.env.HOME = saved.HOME;
  if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('safe.directory under the hardened environment', () => {
  it('carries the safe.directory entries of ~/.gitconfig, read once, into every runtime git command', async () => {
    const home = await realpath(await mkdtemp(join(tmpdir(), 'handoff-safe-home-')));
    const repo = await realpath(await mkdtemp(join(tmpdir(), 'handoff-safe-repo-')));
    dirs.push(home, repo);
    process.env.HOME = home;
    process.env.XDG_CONFIG_HOME = join(home, '.config');
    await writeFile(join(home, '.gitconfig'), `[safe]\n\tdirectory = ${repo}\n[user]\n\temail = x@y\n`);
    expect(userSafeDirectories()).toEqual([repo]);
    const env = hardenedGitEnv();
    expect(env.GIT_CONFIG_GLOBAL).toBe('/dev/null');
    expect([env.GIT_CONFIG_COUNT, env.GIT_CONFIG_KEY_0, env.GIT_CONFIG_VALUE_0]).toEqual([
      '1',
      'safe.directory',
      repo,
    ]);
    // read once: a later rewrite of ~/.gitconfig does not change it
    await writeFile(join(home, '.gitconfig'), '[safe]\n\tdirectory = *\n');
    expect(userSafeDirectories()).toEqual([repo]);
    execFileSync('git', ['init', '-q', repo]);
    if (process.getuid?.() === 0) {
      // as root a checkout owned by someone else can be made: git refuses it unless declared safe
      execFileSync('chown', ['-R', '65534', repo]);
    }
    expect((await runGit(repo, ['rev-parse', '--show-toplevel'])).toString('utf8').trim()).toBe(repo);
    expect((await runGit(repo, ['config', '--get', 'user.email'], { allowFail: true })).length).toBe(0);
  });
});
