/**
 * Hostile workers against `handoff run` (real child processes, real git): each attack of the
 * "untrusted workers" threat model (docs/worker-protocol.md § Threat model) is contained — no
 * commit of unverified bytes, the exact stop or stuck reason, owned files (and git control files,
 * and the run store) restored, nothing left running. The custody attacks run with the sandbox off
 * (detected and undone) and on (prevented: never written, named as discarded).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { readFile, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Handoff } from '../../src/contract/index.js';
import { createFsStore } from '../../src/store/index.js';
import { gitLog, handoffOf, runArgs, withGitProject } from '../e2e/helpers.js';
import { runCli } from '../helpers/cli.js';

const HOSTILE = fileURLToPath(new URL('./fixtures/hostile.mjs', import.meta.url));
const THEOREM = 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n';
const PROJECT = { 'T.lean': THEOREM, 'notes.txt': 'unrelated\n' };

// Each custody attack runs in both modes: `off` detects and undoes (restores), `on` (the sandbox
// really started: bwrap + unshare + overlay, installed by .ci/run) prevents — the host is never
// written and the handoff names what was discarded. `on` never skips: a machine that cannot
// sandbox makes `--sandbox on` a usage error and these cases fail. The fence cheats and the
// header-extractor run below stay `off` only: the fence judges the owned bytes, which are the same
// bytes in both modes (the sandboxed path of the fence is pinned by sandbox-attacks.test.ts).
type Mode = 'off' | 'on';
const MODES: readonly Mode[] = ['off', 'on'];
const run = (dir: string, attack: string, mode: Mode = 'off', ...more: string[]) =>
  runCli(runArgs(dir, `node ${HOSTILE} ${attack} ${markerOf(dir)}`, '--json', '--sandbox', mode, ...more));
const markerOf = (dir: string) => join(dir, '..', `${dir.split('/').pop()}-marker`);

/** Running (a killed, unreaped process is a zombie: not running). */
function running(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${pid}/stat`, 'utf8'));
  } catch {
    return false;
  }
}
const pidOf = (dir: string) => Number(readFileSync(`${markerOf(dir)}.pid`, 'utf8'));

/**
 * Host processes still running whose command line or environment mentions `needle` (a sandboxed
 * descendant's pid is its namespace's, so it is found by what it carries, not by a pid it wrote).
 */
function mentioning(needle: string): number[] {
  const out: number[] = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const text = `${readFileSync(`/proc/${name}/cmdline`, 'latin1')}\0${readFileSync(`/proc/${name}/environ`, 'latin1')}`;
      if (text.includes(needle) && running(Number(name))) out.push(Number(name));
    } catch {
      // gone, or not ours to read
    }
  }
  return out;
}

/** No process carrying the worker's project root (its protocol environment) is left, within 3 s. */
async function expectNoWorkerLeft(dir: string): Promise<void> {
  const needle = `HANDOFF_PROJECT_ROOT=${await realpath(dir)}`;
  for (let i = 0; i < 30 && mentioning(needle).length > 0; i++) await sleep(100);
  expect(mentioning(needle)).toEqual([]);
}
const headFile = (dir: string, rel: string) =>
  execFileSync('git', ['show', `HEAD:${rel}`], { cwd: dir, encoding: 'utf8' });
const checkpoints = (dir: string) => gitLog(dir).filter((l) => l.startsWith('checkpoint: '));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const PROVED = 'theorem t (n : Nat) : n + 0 = n := by\n  rfl\n';

/** The stop detail of a refused attack: restored (`off`) or discarded and named (`on`). */
const refusedAs = (mode: Mode, off: RegExp, discarded: RegExp): RegExp =>
  mode === 'off'
    ? off
    : new RegExp(
        `custody violation: files outside the owned set were written and discarded: .*${discarded.source}`,
      );

describe.each(MODES)('hostile workers (--sandbox %s): process containment', (mode) => {
  it('a detached late writer (setsid) cannot change the committed bytes; the commit holds exactly the verified bytes', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'late-writer', mode);
      expect(r.code, r.stderr).toBe(0);
      expect(handoffOf(r.stdout).status).toBe('solved');
      // off: swept by its session token; on: it died with the sandbox's PID namespace, and its
      // pid file (outside the project) never reached the host
      if (mode === 'off') expect(running(pidOf(p.dir))).toBe(false);
      else expect(existsSync(`${markerOf(p.dir)}.pid`)).toBe(false);
      await sleep(2000); // past the moment the writer would have written
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(headFile(p.dir, 'T.lean'));
      expect(headFile(p.dir, 'T.lean')).toBe(PROVED);
      expect(checkpoints(p.dir)).toHaveLength(1);
    });
  });

  it('a late writer with a wiped environment (it escapes the sweep) never gets its bytes committed', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'late-writer-no-env', mode);
      expect(r.code, r.stderr).toBe(0);
      expect(headFile(p.dir, 'T.lean')).toBe(PROVED);
      if (mode === 'on') {
        // the sandbox's PID namespace took it: nothing carries its cue file any more, and once
        // cued nothing writes
        for (let i = 0; i < 30 && mentioning(`${markerOf(p.dir)}.go`).length > 0; i++) await sleep(100);
        expect(mentioning(`${markerOf(p.dir)}.go`)).toEqual([]);
        await writeFile(`${markerOf(p.dir)}.go`, '');
        await sleep(500);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(PROVED);
        return;
      }
      // the writer escaped the sweep (no session token): it is still there, and writes on cue,
      // after the run (it is outside the worker's tree and session); its bytes are not committed
      expect(running(pidOf(p.dir))).toBe(true);
      await writeFile(`${markerOf(p.dir)}.go`, '');
      for (let i = 0; i < 400 && !(await readFile(join(p.dir, 'T.lean'), 'utf8')).includes('LATE'); i++)
        await sleep(25);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toContain('LATE');
      expect(headFile(p.dir, 'T.lean')).not.toContain('LATE');
      try {
        process.kill(pidOf(p.dir), 'SIGKILL');
      } catch {
        // already gone
      }
    });
  });

  it('a descendant holding stdout neither delays the run nor outlives it', async () => {
    await withGitProject(PROJECT, async (p) => {
      const t0 = Date.now();
      const r = await run(p.dir, 'hold-stdout', mode, '--worker-timeout', '3s');
      const elapsed = Date.now() - t0;
      expect(r.code, r.stderr).toBe(0);
      expect(handoffOf(r.stdout).status).toBe('solved');
      expect(elapsed).toBeLessThan(20_000); // the descendant sleeps 60 s
      await expectNoWorkerLeft(p.dir);
    });
  });

  it('a hung worker whose descendant holds stdout ends at --worker-timeout, reported as a timeout', async () => {
    await withGitProject(PROJECT, async (p) => {
      const t0 = Date.now();
      const r = await run(p.dir, 'hang-hold-stdout', mode, '--worker-timeout', '3s');
      const elapsed = Date.now() - t0;
      const h = handoffOf(r.stdout);
      expect(h.status).toBe('stopped');
      expect(h.stop_reason).toBe('operational-error');
      expect(h.stop_detail).toMatch(/exceeded its 3s budget and was killed/);
      expect(elapsed).toBeLessThan(20_000);
      await expectNoWorkerLeft(p.dir);
      expect(checkpoints(p.dir)).toEqual([]);
    });
  });
});

describe.each(MODES)('hostile workers (--sandbox %s): git as an escape hatch', (mode) => {
  it('a planted pre-commit hook is a custody violation, never runs, and never stays', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'hook', mode);
      const h = handoffOf(r.stdout);
      expect(h.stop_reason).toBe('protocol-error');
      expect(h.stop_detail).toMatch(
        refusedAs(
          mode,
          /custody violation: the worker changed git state: .*\.git\/hooks\/pre-commit/,
          /\.git\/hooks\/pre-commit/,
        ),
      );
      expect(h.stop_detail).toMatch(/owned files restored to their pre-dispatch bytes/);
      if (mode === 'off') expect(h.stop_detail).toMatch(/git control files and run store restored/);
      expect(existsSync(markerOf(p.dir))).toBe(false);
      expect(existsSync(join(p.dir, '.git', 'hooks', 'pre-commit'))).toBe(false);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      expect(checkpoints(p.dir)).toEqual([]);
    });
  });

  it('a planted core.fsmonitor never runs under the runtime’s git and the config is unchanged', async () => {
    await withGitProject(PROJECT, async (p) => {
      const config = await readFile(join(p.dir, '.git', 'config'), 'utf8');
      const r = await run(p.dir, 'fsmonitor', mode);
      const h = handoffOf(r.stdout);
      expect(h.stop_detail).toMatch(
        refusedAs(mode, /the worker changed git state: .*\.git\/config/, /\.git\/config/),
      );
      expect(existsSync(markerOf(p.dir))).toBe(false);
      expect(await readFile(join(p.dir, '.git', 'config'), 'utf8')).toBe(config);
      expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      expect(checkpoints(p.dir)).toEqual([]);
    });
  });
});

describe('hostile workers: git as an escape hatch (the user’s own hook)', () => {
  // not a worker's write: the checkpoint's own git, the same in both modes
  it('even with a hook already installed by the user, a checkpoint runs no hook', async () => {
    await withGitProject(PROJECT, async (p) => {
      const hook = join(p.dir, '.git', 'hooks', 'post-commit');
      execFileSync('sh', [
        '-c',
        `printf '#!/bin/sh\\ntouch "%s"\\n' '${markerOf(p.dir)}' > '${hook}' && chmod +x '${hook}'`,
      ]);
      const r = await run(p.dir, 'honest');
      expect(r.code, r.stderr).toBe(0);
      expect(checkpoints(p.dir)).toHaveLength(1);
      expect(existsSync(markerOf(p.dir))).toBe(false);
    });
  });
});

describe.each(MODES)('hostile workers (--sandbox %s): symlink swaps', (mode) => {
  it('an owned file swapped for a link outside the project is refused, never read through, and never stays', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'symlink', mode);
      const h = handoffOf(r.stdout);
      expect(h.stop_reason).toBe('protocol-error');
      expect(h.stop_detail).toMatch(
        refusedAs(
          mode,
          new RegExp(
            `owned file ${await realpath(p.dir)}/T\\.lean was replaced by a symbolic link to /etc/passwd`,
          ),
          /T\.lean \(symlink\)/,
        ),
      );
      expect(readFileSync(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
      expect(execFileSync('stat', ['-c', '%F', join(p.dir, 'T.lean')], { encoding: 'utf8' }).trim()).toBe(
        'regular file',
      );
      expect(checkpoints(p.dir)).toEqual([]);
    });
  });
});

describe.each(MODES)('hostile workers (--sandbox %s): the run store', (mode) => {
  for (const attack of ['store-forge', 'store-lock'] as const) {
    it(`${attack}: a write into .handoff/ is a violation; the store is unchanged and the final record stored`, async () => {
      await withGitProject(PROJECT, async (p) => {
        const r = await run(p.dir, attack, mode, '--persist');
        const h = handoffOf(r.stdout);
        expect(h.stop_reason).toBe('protocol-error');
        expect(h.stop_detail).toMatch(
          refusedAs(
            mode,
            /the worker wrote into the run store: runs\/[^/]+\/(events\.jsonl|\.lock)/,
            /\.handoff\/runs\/[^/]+\/(events\.jsonl|\.lock)/,
          ),
        );
        if (mode === 'off') expect(h.stop_detail).toMatch(/git control files and run store restored/);
        const store = createFsStore({ root: join(p.dir, '.handoff') });
        const runs = await store.listRuns();
        expect(runs).toHaveLength(1);
        const loaded = await store.load(runs[0] as string);
        if (!loaded.ok) throw new Error(loaded.detail);
        expect(loaded.value.damaged).toBe(false);
        expect(JSON.stringify(loaded.value.events)).not.toContain('forged');
        expect((loaded.value.effective_handoff?.payload as Handoff | undefined)?.stop_detail).toBe(
          h.stop_detail,
        );
        expect(existsSync(join(p.dir, '.handoff', 'runs', runs[0] as string, '.lock'))).toBe(false);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
        expect(checkpoints(p.dir)).toEqual([]);
      });
    });
  }
});

describe('hostile workers: the statement fence', () => {
  const cheats = {
    weaken:
      /header fence: T\.lean: theorem t: statement changed \(`\(n : Nat\) : n \+ 0 = n` → `\(n : Nat\) : True`\)/,
    rename: /header fence: T\.lean: theorem t: renamed to t_easy/,
    'add-hypothesis': /header fence: T\.lean: theorem t: hypothesis added/,
    delete: /header fence: T\.lean: theorem t: declaration deleted \(was `\(n : Nat\) : n \+ 0 = n`\)/,
    'add-axiom': /header fence: T\.lean: axiom cheat: axiom added/,
  } as const;
  for (const [attack, reason] of Object.entries(cheats)) {
    it(`${attack}: the edit is refused and restored, nothing is committed, the target is stuck (redraft)`, async () => {
      await withGitProject(PROJECT, async (p) => {
        const r = await run(p.dir, attack, 'off', '--persist');
        expect(r.code, r.stderr).toBe(3);
        const h = handoffOf(r.stdout);
        expect(h.status).toBe('stuck');
        expect(h.next_action).toBe('redraft');
        expect(h.blocker_kind).toBe('safety-guard');
        expect(h.blocker_signature).toBe('T.lean:2:header fence');
        expect(h.failed_avenues.join('\n')).toMatch(reason);
        expect(h.failed_avenues.join('\n')).toMatch(/owned files restored to their pre-dispatch bytes/);
        expect(await readFile(join(p.dir, 'T.lean'), 'utf8')).toBe(THEOREM);
        expect(checkpoints(p.dir)).toEqual([]);
      });
    });
  }

  it('an honest proof edit passes the fence and is committed', async () => {
    await withGitProject(PROJECT, async (p) => {
      const r = await run(p.dir, 'honest');
      expect(r.code, r.stderr).toBe(0);
      expect(checkpoints(p.dir)).toHaveLength(1);
    });
  });
});

describe('hostile workers: a statement fence for another language (--header-extractor)', () => {
  const PY = { 'calc.py': 'def add(a, b):\n    return a + b  # sorry\n' };
  const cheat = `node ${fileURLToPath(new URL('./fixtures/py-cheat.mjs', import.meta.url))}`;
  const extractor = fileURLToPath(new URL('../../examples/extractors/python-signatures.py', import.meta.url));
  const CODE = ['--profile', 'code', '--marker', 'sorry'];

  it('with a Python extractor the changed signature is refused; without one only custody applies', async () => {
    await withGitProject(PY, async (p) => {
      const fenced = await runCli(
        // a Python project: the code profile reads .py files (the lean profile only .lean)
        runArgs(p.dir, cheat, ...CODE, '--json', '--header-extractor', `.py=python3 ${extractor}`),
      );
      const h = handoffOf(fenced.stdout);
      expect(h.status).toBe('stuck');
      expect(h.next_action).toBe('redraft');
      expect(h.failed_avenues.join('\n')).toMatch(
        /header fence: calc\.py: def add: statement changed \(`\(a, b\)` → `\(a\)`\)/,
      );
      expect(await readFile(join(p.dir, 'calc.py'), 'utf8')).toBe(PY['calc.py']);
      expect(checkpoints(p.dir)).toEqual([]);
      const open = await runCli(runArgs(p.dir, cheat, ...CODE, '--json'));
      expect(handoffOf(open.stdout).status).toBe('solved');
      expect(checkpoints(p.dir)).toHaveLength(1);
    });
  });

  it('a malformed --header-extractor is a usage error', async () => {
    await withGitProject(PY, async (p) => {
      const r = await runCli(runArgs(p.dir, cheat, '--header-extractor', 'python3 x.py'));
      expect(r.code).toBe(2);
      expect(r.stderr).toMatch(/--header-extractor wants EXT=/);
    });
  });
});
