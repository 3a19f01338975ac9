/**
 * A signal ends `handoff run --persist` through exit (status 128 + the signal's number), so the
 * run's held store lock is released: the next invocation finds the run not active, with no
 * `handoff store recover` needed (needs `npm run build`).
 */
import { spawn } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/store/index.js';
import { runArgs, withGitProject } from '../e2e/helpers.js';
import { CLI_BIN } from '../helpers/cli.js';

const PROJECT = { 'T.lean': 'theorem t (n : Nat) : n + 0 = n := by\n  sorry\n' };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The run directories' `.lock` files under the project's store. */
function locks(dir: string): string[] {
  const runs = join(dir, '.handoff', 'runs');
  if (!existsSync(runs)) return [];
  return readdirSync(runs)
    .map((id) => join(runs, id, '.lock'))
    .filter((p) => existsSync(p));
}

describe('a signal ends a persisted run through exit', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal}: exit ${code}, the run's held lock released`, async () => {
      await withGitProject(PROJECT, async (p) => {
        // a worker that takes a while: the run's first journal write (and its lock) come before it
        const args = runArgs(p.dir, 'node -e setTimeout(()=>{},4000)', '--persist', '--json');
        const child = spawn(process.execPath, [CLI_BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
        let stderr = '';
        child.stderr.setEncoding('utf8').on('data', (d: string) => {
          stderr += d;
        });
        const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
        const t0 = Date.now();
        while (locks(p.dir).length === 0 && Date.now() - t0 < 30_000) await sleep(50);
        const [lock] = locks(p.dir);
        expect(lock, stderr).toBeDefined();
        child.kill(signal);
        expect(await exited, stderr).toBe(code);
        expect(locks(p.dir)).toEqual([]);
        const runId = (lock as string).split('/').at(-2) as string;
        expect(await createFsStore({ root: join(p.dir, '.handoff'), env: {} }).isLocked(runId)).toBe(false);
        await sleep(4500); // the worker's own time, so its directory can be removed
      });
    }, 60_000);
  }
});
