/**
 * The attacks of issue 26 with the sandbox really started (`--sandbox on`: bwrap + unshare +
 * overlay; CI installs bubblewrap): each through `handoff run` (in-process CLI, a real worker
 * process, real git) and through `delegate` + `commandWorker`. Each asserts the host's bytes are
 * unchanged and the handoff names what was discarded — prevented, not detected and restored
 * (the same attacks with `--sandbox off` are test/hostile/hostile-workers.test.ts).
 */
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { commandWorker, createDispatch, delegate } from '../../src/delegate/index.js';
import { handoffOf, runArgs, withGitProject } from '../e2e/helpers.js';
import { cliMain } from '../helpers/cli-main.js';

const WORKER = fileURLToPath(new URL('./fixtures/sandbox-attack.mjs', import.meta.url));
const HOSTILE = fileURLToPath(new URL('./fixtures/hostile.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const PROVED = 'theorem t (n : Nat) : n + 0 = n := by\n  rfl\n';
const PROJECT = { 'T.lean': THEOREM, 'notes.txt': 'unrelated\n' };

let outside: string;
/** A host folder outside /tmp: read-only in the sandbox. */
let hostDir: string;
let server: Server;
let port = 0;
let connections = 0;
beforeAll(async () => {
  outside = await realpath(await mkdtemp(join(tmpdir(), 'handoff-sandbox-outside-')));
  await mkdir(join(process.cwd(), 'test-results'), { recursive: true });
  hostDir = await mkdtemp(join(process.cwd(), 'test-results', 'sandbox-host-'));
  await mkdir(join(outside, 'home'));
  await writeFile(join(outside, 'home', '.bashrc'), '# mine\n');
  server = createServer((s) => {
    connections++;
    s.destroy();
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  port = (server.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise((r) => server.close(r));
  await rm(outside, { recursive: true, force: true });
  await rm(hostDir, { recursive: true, force: true });
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const worker = (attack: string) => `node ${WORKER} ${attack} ${outside} ${port} ${hostDir}`;
const run = (dir: string, attack: string) =>
  cliMain(runArgs(dir, worker(attack), '--json', '--sandbox', 'on'), dir);
const head = (dir: string, rel: string) =>
  execFileSync('git', ['show', `HEAD:${rel}`], { cwd: dir, encoding: 'utf8' });
const gitConfig = (dir: string) => readFile(join(dir, '.git', 'config'), 'utf8');

/** A run that stopped on the discarded writes: exit 4, the paths named, nothing on the host. */
async function expectDiscarded(dir: string, attack: string, named: RegExp): Promise<void> {
  const config = await gitConfig(dir);
  const r = await run(dir, attack);
  const h = handoffOf(r.out);
  expect(r.code, r.err).toBe(4);
  expect(h.stop_detail).toMatch(
    new RegExp(
      `custody violation: files outside the owned set were written and discarded: .*${named.source}`,
    ),
  );
  expect(await readFile(join(dir, 'T.lean'), 'utf8')).toBe(THEOREM);
  expect(await readFile(join(dir, 'notes.txt'), 'utf8')).toBe('unrelated\n');
  expect(await gitConfig(dir)).toBe(config);
  expect(existsSync(join(dir, '.handoff', 'forged.json'))).toBe(false);
  expect(existsSync(join(dir, 'planted.fifo'))).toBe(false);
}

describe('handoff run --sandbox on: what a worker writes outside its owned files never reaches the host', () => {
  it('a non-owned project file', async () => {
    await withGitProject(PROJECT, (p) => expectDiscarded(p.dir, 'project-file', /notes\.txt/));
  });

  it('.git/config', async () => {
    await withGitProject(PROJECT, (p) => expectDiscarded(p.dir, 'git-config', /\.git\/config/));
  });

  it('a file under .handoff/', async () => {
    await withGitProject(PROJECT, (p) => expectDiscarded(p.dir, 'store', /\.handoff\/forged\.json/));
  });

  it('$HOME/.bashrc: the private home is named, the real one (read-only) untouched', async () => {
    await withGitProject(PROJECT, async (p) => {
      await expectDiscarded(p.dir, 'home', /~\/\.bashrc/);
      expect(await readFile(join(outside, 'home', '.bashrc'), 'utf8')).toBe('# mine\n');
    });
  });

  it('a FIFO planted in the project and a symbolic link at the owned path: named, never followed', async () => {
    await withGitProject(PROJECT, (p) =>
      expectDiscarded(p.dir, 'fifo-symlink', /T\.lean \(symlink\), planted\.fifo \(fifo\)/),
    );
  });

  it('a path outside the project: nothing lands (private /tmp, read-only everywhere else)', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'outside');
      expect(r.code, r.err).toBe(0);
      expect(handoffOf(r.out).status).toBe('solved');
      expect(existsSync(join(outside, 'pwned'))).toBe(false);
      expect(existsSync(join(hostDir, 'pwned'))).toBe(false);
      expect(head(p.dir, 'T.lean')).toBe(PROVED);
    });
  });

  it('a TCP connect to a listener on 127.0.0.1: no network, the listener sees nothing', async () => {
    await withGitProject(PROJECT, async (p) => {
      const before = connections;
      const r = await run(p.dir, 'network');
      expect(r.code, r.err).toBe(0);
      expect(connections).toBe(before);
    });
  });

  it('--sandbox-network allow: the same connect reaches the listener', async () => {
    await withGitProject(PROJECT, async (p) => {
      const before = connections;
      const r = await cliMain(
        runArgs(p.dir, worker('network'), '--json', '--sandbox', 'on', '--sandbox-network', 'allow'),
        p.dir,
      );
      expect(r.code, r.err).toBe(0);
      expect(connections).toBe(before + 1);
    });
  });

  it('the statement fence still judges the owned bytes taken from the layer (a weakened theorem)', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await cliMain(runArgs(p.dir, `node ${HOSTILE} weaken`, '--json', '--sandbox', 'on'), p.dir);
      expect(r.code, r.err).toBe(3);
      const h = handoffOf(r.out);
      expect(h.status).toBe('stuck');
      expect(h.next_action).toBe('redraft');
      expect(h.failed_avenues.join('\n')).toMatch(/header fence: T\.lean: theorem t: statement changed/);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
    });
  });

  it('an owned file written by temp file + rename is accepted and committed', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'rename');
      expect(r.code, r.err).toBe(0);
      expect(handoffOf(r.out).status).toBe('solved');
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(PROVED);
      expect(head(p.dir, 'T.lean')).toBe(PROVED);
      expect(existsSync(join(p.dir, 'T.lean.tmp'))).toBe(false);
    });
  });

  it('a setsid env -i descendant writing 2 s after the worker exited dies with the sandbox', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'late-writer');
      expect(r.code, r.err).toBe(0);
      await sleep(2500);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(PROVED);
      expect(head(p.dir, 'T.lean')).toBe(PROVED);
      expect(existsSync(join(outside, 'late'))).toBe(false);
    });
  });
});

describe('delegate + commandWorker (sandbox on)', () => {
  const attacks = [
    ['project-file', /notes\.txt/],
    ['git-config', /\.git\/config/],
    ['store', /\.handoff\/forged\.json/],
    ['home', /~\/\.bashrc/],
    ['fifo-symlink', /planted\.fifo \(fifo\)/],
  ] as const;
  for (const [attack, named] of attacks) {
    it(`${attack}: refused with an outside_owned violation naming it; the host untouched`, async () => {
      await withGitProject(PROJECT, async (p) => {
        const config = await gitConfig(p.dir);
        const d = await createDispatch({
          target: 'T.lean:2',
          scope: 'file',
          mode: 'autoprove',
          ownedFiles: [join(p.dir, 'T.lean')],
        });
        const r = await delegate(d, commandWorker(['node', WORKER, attack, outside], { sandbox: 'on' }), {
          projectRoot: p.dir,
        });
        expect(r.outcome).toBe('refused');
        const v = r.violations.find((x) => x.check === 'outside_owned');
        expect(v?.detail).toMatch(named);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
        expect(await readFile(join(p.dir, 'notes.txt'), 'utf8')).toBe('unrelated\n');
        expect(await gitConfig(p.dir)).toBe(config);
        expect(existsSync(join(p.dir, '.handoff', 'forged.json'))).toBe(false);
      });
    });
  }

  /** One delegate of `attack` over `dir`'s T.lean, sandboxed. */
  const delegateAttack = async (dir: string, attack: string) => {
    const d = await createDispatch({
      target: 'T.lean:2',
      scope: 'file',
      mode: 'autoprove',
      ownedFiles: [join(dir, 'T.lean')],
    });
    return delegate(
      d,
      commandWorker(['node', WORKER, attack, outside, String(port), hostDir], { sandbox: 'on' }),
      {
        projectRoot: dir,
      },
    );
  };

  it('an owned file written by temp file + rename is accepted', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await delegateAttack(p.dir, 'rename');
      expect(r.outcome, JSON.stringify(r.violations)).toBe('accepted');
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(PROVED);
      expect(existsSync(join(p.dir, 'T.lean.tmp'))).toBe(false);
    });
  });

  it('a TCP connect to a listener on 127.0.0.1: the listener sees nothing', async () => {
    await withGitProject(PROJECT, async (p) => {
      const before = connections;
      const r = await delegateAttack(p.dir, 'network');
      expect(r.outcome, JSON.stringify(r.violations)).toBe('accepted');
      expect(connections).toBe(before);
    });
  });

  it('a path outside the project: nothing lands', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await delegateAttack(p.dir, 'outside');
      expect(r.outcome, JSON.stringify(r.violations)).toBe('accepted');
      expect(existsSync(join(outside, 'pwned'))).toBe(false);
      expect(existsSync(join(hostDir, 'pwned'))).toBe(false);
    });
  });

  it('a setsid env -i descendant writing 2 s after the worker exited dies with the sandbox', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await delegateAttack(p.dir, 'late-writer');
      expect(r.outcome, JSON.stringify(r.violations)).toBe('accepted');
      await sleep(2500);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(PROVED);
      expect(existsSync(join(outside, 'late'))).toBe(false);
    });
  });
});
