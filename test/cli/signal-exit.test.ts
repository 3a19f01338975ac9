/**
 * A SIGINT or SIGTERM ends `handoff run --persist` through exit (status 128 + the signal's
 * number), so the exit hooks release the run's held store lock: nothing is left for `handoff store
 * recover`, and the journal loads whole. The signal lands at a known point: the held lock is taken
 * by the run's first append (the first worker's handoff), so the run's first worker answers at
 * once and its second one sleeps (test/helpers/second-dispatch-sleeps-worker.mjs); the signal is
 * sent only once the lock file exists, the journal holds the second dispatch and that worker has
 * started. A SIGKILL at the same point (no exit hooks) leaves the lock: the lock is really held
 * there, so the two signal cases pin the handler. Needs `npm run build`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createFsStore } from '../../src/store/index.js';
import { runArgs, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import { CLI_BIN } from '../helpers/cli.js';

const WORKER = fileURLToPath(new URL('../helpers/second-dispatch-sleeps-worker.mjs', import.meta.url));
/** Two targets: two dispatches, one after the other (a persisted run dispatches one at a time). */
const PROJECT = {
  'A.lean': 'theorem a : 1 = 1 := by\n  sorry -- hint: rfl\n',
  'B.lean': 'theorem b : 2 = 2 := by\n  sorry -- hint: rfl\n',
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The only run directory under the project's store, once there is one. */
function runDir(dir: string): string | null {
  const runs = join(dir, '.handoff', 'runs');
  if (!existsSync(runs)) return null;
  const ids = readdirSync(runs).filter((n) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(n));
  return ids.length === 1 ? join(runs, ids[0] as string) : null;
}

/** The event kinds of the complete lines of a journal (a line being written is skipped). */
function journalKinds(run: string): string[] {
  const file = join(run, 'events.jsonl');
  if (!existsSync(file)) return [];
  const kinds: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      kinds.push((JSON.parse(line) as { kind: string }).kind);
    } catch {
      // an incomplete last line
    }
  }
  return kinds;
}

/** Polls `ready` every 50 ms for up to 60 s; the last `state()` explains a timeout. */
async function until(ready: () => boolean, state: () => string): Promise<void> {
  const t0 = Date.now();
  while (!ready()) {
    if (Date.now() - t0 > 60_000) throw new Error(`not reached in 60 s: ${state()}`);
    await sleep(50);
  }
}

/**
 * Starts a persisted run whose second worker sleeps, waits until the lock is held, the journal
 * holds the second dispatch and the sleeper runs, sends `signal` and reports how the CLI ended.
 */
async function signalledRun(
  dir: string,
  state: string,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: NodeJS.Signals | null; run: string; stderr: string }> {
  const worker = `${process.execPath} ${WORKER} ${state} ${TS_WORKER}`;
  const child: ChildProcess = spawn(
    process.execPath,
    [CLI_BIN, ...runArgs(dir, worker, '--persist', '--json', '--sandbox', 'off')],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, HANDOFF_RUN_STORE: undefined } },
  );
  let stderr = '';
  child.stdout?.resume();
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const ended = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.on('close', (code, sig) => r({ code, signal: sig })),
  );
  try {
    await until(
      () => {
        const run = runDir(dir);
        return (
          run !== null &&
          existsSync(join(run, '.lock')) &&
          journalKinds(run).includes('dispatch') &&
          existsSync(join(state, 'sleeping-2'))
        );
      },
      () => {
        const run = runDir(dir);
        return `run ${run}, kinds ${run === null ? '-' : journalKinds(run).join(',')}, state ${readdirSync(state).join(',')}, stderr ${stderr}`;
      },
    );
  } catch (e) {
    child.kill('SIGKILL');
    await ended;
    throw e;
  }
  child.kill(signal);
  const end = await ended;
  return { ...end, run: runDir(dir) as string, stderr };
}

/** Waits for the sleeping worker to notice it is orphaned and exit (it polls every 100 ms). */
async function sleeperGone(state: string): Promise<void> {
  const pid = Number(readFileSync(join(state, 'sleeping-2'), 'utf8'));
  const alive = () => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  };
  await until(
    () => !alive(),
    () => `worker ${pid} still runs`,
  );
}

describe('a signal ends a persisted run through exit: the held lock is released', () => {
  for (const [signal, code] of [
    ['SIGINT', 130],
    ['SIGTERM', 143],
  ] as const) {
    it(`${signal} while the second worker runs: exit ${code}, no lock, the journal loads whole`, async () => {
      await withGitProject(PROJECT, async (p) => {
        const state = await mkdtemp(join(p.dir, '..', 'signal-state-'));
        try {
          const r = await signalledRun(p.dir, state, signal);
          expect(r, r.stderr).toMatchObject({ code, signal: null });
          expect(existsSync(join(r.run, '.lock'))).toBe(false);
          const store = createFsStore({ root: join(p.dir, '.handoff'), env: {} });
          const runId = r.run.split('/').at(-1) as string;
          expect(await store.isLocked(runId)).toBe(false);
          const load = await store.loadRun(runId);
          expect(load.ok).toBe(true);
          if (!load.ok) return;
          expect(load.value.damage).toBeNull();
          expect(load.value.events.map((e) => e.kind)).toEqual(['handoff', 'dispatch']);
          await sleeperGone(state);
        } finally {
          await rm(state, { recursive: true, force: true });
        }
      });
    }, 120_000);
  }

  it('SIGKILL at the same point runs no exit hook: the lock stays (what the handler prevents)', async () => {
    await withGitProject(PROJECT, async (p) => {
      const state = await mkdtemp(join(p.dir, '..', 'signal-state-'));
      try {
        const r = await signalledRun(p.dir, state, 'SIGKILL');
        expect(r).toMatchObject({ code: null, signal: 'SIGKILL' });
        expect(existsSync(join(r.run, '.lock'))).toBe(true);
        await sleeperGone(state);
      } finally {
        await rm(state, { recursive: true, force: true });
      }
    });
  }, 120_000);
});
