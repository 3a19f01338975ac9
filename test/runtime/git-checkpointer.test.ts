/**
 * The git checkpointer against hostile repositories (real git, no worker process): a planted
 * object at the id of the verified bytes (object poisoning), a repository a worker creates below
 * the project, and a `~/.gitconfig` rewritten after the repository was pinned.
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, handoffFor } from '../../src/contract/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { looseObjectsSnapshot, pinRepository } from '../../src/git/index.js';
import { commitExact, createGitCheckpointer } from '../../src/runtime/git-checkpointer.js';
import { runProject } from '../../src/runtime/project-run.js';

let dir: string;
const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
const sh = (args: string[], cwd = dir, input?: string) =>
  execFileSync('git', args, {
    cwd,
    input,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' },
  });
const HONEST = 'theorem a : 1 = 1 := rfl\n';
const WEAK = 'axiom a : 1 = 1\n';

beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-gitcp-')));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  sh(['init', '-q']);
  sh(['add', '-A']);
  sh(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init']);
});
afterEach(async () => {
  process.env.HOME = saved.HOME;
  if (saved.XDG_CONFIG_HOME === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = saved.XDG_CONFIG_HOME;
  await rm(dir, { recursive: true, force: true });
});

/** Plants a loose object at the blob id of `honest` that holds `weak` instead (what a worker can do). */
async function plant(repo: string, honest: string, weak: string): Promise<string> {
  const real = sh(['hash-object', '--stdin'], repo, honest).trim();
  const body = Buffer.from(weak);
  const loose = deflateSync(Buffer.concat([Buffer.from(`blob ${body.length}\0`), body]));
  await mkdir(join(repo, '.git', 'objects', real.slice(0, 2)), { recursive: true });
  await writeFile(join(repo, '.git', 'objects', real.slice(0, 2), real.slice(2)), loose, { mode: 0o444 });
  return real;
}

describe('object poisoning', () => {
  it('reads back every committed blob before update-ref: a planted object refuses the commit, naming path and id', async () => {
    const id = await plant(dir, HONEST, WEAK);
    expect(sh(['cat-file', 'blob', id])).toBe(WEAK); // git serves the planted bytes as is
    const head = sh(['rev-parse', 'HEAD']).trim();
    const err = await commitExact(
      dir,
      [{ rel: 'A.lean', file: { bytes: Buffer.from(HONEST), mode: 0o644 } }],
      'checkpoint: A.lean solved',
    ).catch((e: unknown) => e);
    expect(isHandoffError(err) && err.code).toBe('custody_violation');
    expect((err as Error).message).toContain(`object ${id} for A.lean`);
    expect((err as { details: unknown }).details).toMatchObject({ path: 'A.lean', object: id });
    expect(sh(['rev-parse', 'HEAD']).trim()).toBe(head);
  });

  it('the checkpointer refuses objects that appeared since the pin and removes the planted one; the next commit holds the honest bytes', async () => {
    const repo = await pinRepository(dir);
    expect(repo).not.toBeNull();
    const cp = createGitCheckpointer(dir, undefined, repo ?? undefined);
    const id = await plant(dir, HONEST, WEAK);
    await writeFile(join(dir, 'A.lean'), HONEST);
    const head = sh(['rev-parse', 'HEAD']).trim();
    const input = { cycle: 1, files: ['A.lean'], summary: 'A.lean:2 solved', commit: 'auto' as const };
    const first = await cp.checkpoint(input);
    const name = `${id.slice(0, 2)}/${id.slice(2)}`;
    expect(first.committed).toBe(false);
    expect(first.refused).toMatch(
      new RegExp(`did not write: ${name}; removed 1 that do not hash to their ids: ${name}$`),
    );
    expect(sh(['rev-parse', 'HEAD']).trim()).toBe(head);
    expect(existsSync(join(dir, '.git', 'objects', name))).toBe(false);
    const second = await cp.checkpoint(input);
    expect(second.committed).toBe(true);
    expect(sh(['show', 'HEAD:A.lean'])).toBe(HONEST);
  });

  it('commits honest bytes and verifies nested trees (a file below a folder)', async () => {
    await mkdir(join(dir, 'sub', 'deep'), { recursive: true });
    const c = await commitExact(
      dir,
      [
        { rel: 'sub/deep/B.lean', file: { bytes: Buffer.from('b\n'), mode: 0o755 } },
        { rel: 'A.lean', file: { bytes: null, mode: 0o644 } },
      ],
      'checkpoint: nested',
    );
    expect(sh(['rev-parse', 'HEAD']).trim()).toBe(c);
    expect(sh(['ls-tree', '-r', 'HEAD'])).toMatch(/^100755 blob [0-9a-f]+\tsub\/deep\/B\.lean\n$/);
    const objects = await looseObjectsSnapshot(join(dir, '.git'));
    expect(objects.has(`${(c as string).slice(0, 2)}/${(c as string).slice(2)}`)).toBe(true);
  });
});

describe('the pinned repository', () => {
  it('commits into the repository that held the project before the run, never one a worker created inside it', async () => {
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'B.lean'), 'theorem b : 2 = 2 := by\n  sorry\n');
    sh(['add', '-A']);
    sh(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'sub']);
    const project = join(dir, 'sub');
    const cp = createGitCheckpointer(project, undefined, (await pinRepository(project)) ?? undefined);
    // the worker: `git init` in the project folder, then its edit
    sh(['init', '-q'], project);
    await writeFile(join(project, 'B.lean'), 'theorem b : 2 = 2 := rfl\n');
    const out = await cp.checkpoint({
      cycle: 1,
      files: ['B.lean'],
      summary: 'B.lean:2 solved',
      commit: 'auto',
    });
    expect(out.committed).toBe(true);
    expect(sh(['rev-parse', 'HEAD']).trim()).toBe(out.commit);
    expect(sh(['show', 'HEAD:sub/B.lean'])).toBe('theorem b : 2 = 2 := rfl\n');
    expect(() => sh(['rev-parse', '-q', '--verify', 'HEAD'], project)).toThrow();
  });
});

describe('no repository at the start', () => {
  it('a project outside any repository at the pin never commits into one created later', async () => {
    const bare = await realpath(await mkdtemp(join(tmpdir(), 'handoff-norepo-')));
    try {
      await writeFile(join(bare, 'A.lean'), HONEST);
      const pinned = await pinRepository(bare);
      expect(pinned).toBeNull();
      const cp = createGitCheckpointer(bare, undefined, pinned);
      sh(['init', '-q'], bare);
      await expect(
        cp.checkpoint({ cycle: 1, files: ['A.lean'], summary: 'A.lean:1 solved', commit: 'auto' }),
      ).rejects.toMatchObject({ code: 'io_error', message: expect.stringContaining('when the run started') });
      expect(() => sh(['rev-parse', '-q', '--verify', 'HEAD'], bare)).toThrow();
    } finally {
      await rm(bare, { recursive: true, force: true });
    }
  });
});

describe('isolated git configuration', () => {
  it('authors as the identity read at the pin and runs no filter of a rewritten ~/.gitconfig', async () => {
    const home = await realpath(await mkdtemp(join(tmpdir(), 'handoff-home-')));
    try {
      process.env.HOME = home;
      process.env.XDG_CONFIG_HOME = join(home, '.config');
      await writeFile(
        join(home, '.gitconfig'),
        '[user]\n\tname = Original Person\n\temail = orig@example.org\n',
      );
      const cp = createGitCheckpointer(dir, undefined, (await pinRepository(dir)) ?? undefined);
      // the worker rewrites the user's global configuration during its dispatch
      const marker = join(home, 'filter-ran');
      await writeFile(join(home, 'attrs'), '* filter=evil diff=evil\n');
      await writeFile(
        join(home, '.gitconfig'),
        [
          '[user]',
          '\tname = evil',
          '\temail = evil@example.org',
          '[core]',
          `\tattributesFile = ${join(home, 'attrs')}`,
          '[filter "evil"]',
          `\tclean = sh -c 'touch ${marker}; cat'`,
          `\tsmudge = sh -c 'touch ${marker}; cat'`,
          '',
        ].join('\n'),
      );
      await writeFile(join(dir, 'A.lean'), HONEST);
      const out = await cp.checkpoint({
        cycle: 1,
        files: ['A.lean'],
        summary: 'A.lean:2 solved',
        commit: 'auto',
      });
      expect(out.committed).toBe(true);
      expect(sh(['log', '-1', '--format=%an <%ae>|%cn <%ce>']).trim()).toBe(
        'Original Person <orig@example.org>|Original Person <orig@example.org>',
      );
      await expect(stat(marker)).rejects.toMatchObject({ code: 'ENOENT' });
      expect(await readFile(join(dir, 'A.lean'), 'utf8')).toBe(HONEST);
    } finally {
      await rm(home, { recursive: true, force: true });
    }
  });
});

describe('a whole run (in-process worker, real git)', () => {
  const solveWith = (extra: (d: Dispatch) => Promise<void>) => async (d: Dispatch) => {
    const f = d.owned_files[0] as string;
    await extra(d);
    await writeFile(f, (await readFile(f, 'utf8')).replace('by\n  sorry', 'rfl'));
    const b = await advanceBaseline(d.file_baseline, [f]);
    return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
  };

  it('a worker that plants the weakened text at the id of its honest bytes gets nothing committed', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solveWith(async () => void (await plant(dir, HONEST, WEAK))) },
    });
    expect(r.handoff.status).not.toBe('solved');
    expect(r.handoff.stop_detail).toMatch(
      /objects appeared in the repository .* that the runtime did not write/,
    );
    expect(sh(['log', '--format=%s']).trim()).toBe('init');
  });

  it('a worker that runs git init in a project below its repository: nothing is ever committed there', async () => {
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'B.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
    sh(['add', '-A']);
    sh(['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'sub']);
    const project = join(dir, 'sub');
    const r = await runProject({
      projectRoot: project,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solveWith(async () => void sh(['init', '-q'], project)) },
    });
    // the worker's repository is gone (undone) or holds no commit; the checkpoint, if any, is in the user's
    const own = join(project, '.git');
    if (existsSync(own))
      expect(() => sh([`--git-dir=${own}`, 'rev-parse', '-q', '--verify', 'HEAD'])).toThrow();
    if (r.handoff.status === 'solved') expect(sh(['show', 'HEAD:sub/B.lean'])).toBe(HONEST);
    else expect(sh(['log', '--format=%s']).trim().split('\n')[0]).toBe('sub');
  });
});
