/**
 * `handoff run --resume RUN_ID`: a persisted run SIGKILLed after its first checkpoint (its second
 * worker asleep; the journal polled, no timed sleeps) is continued in its own journal to the same
 * end as an uninterrupted run — the same solved targets, the same checkpoint trees — without
 * repeating the committed cycle; the dead writer's lock is recovered through the store's audited
 * recovery, and the resumed journal audits (`handoff audit` exit 0). A finished run, a live lock
 * and a changed file are refused. Needs `npm run build`.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import type { Handoff } from '../../src/contract/index.js';
import { createFsStore } from '../../src/store/index.js';
import { handoffOf, runArgs, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import { CLI_BIN, runCli } from '../helpers/cli.js';

const SLEEPER = fileURLToPath(new URL('../helpers/second-dispatch-sleeps-worker.mjs', import.meta.url));
const PROJECT = {
  'A.lean': 'theorem a : 1 = 1 := by\n  sorry -- hint: rfl\n',
  'B.lean': 'theorem b : 2 = 2 := by\n  sorry -- hint: rfl\n',
};
/** One target per cycle, no sandbox (the sleeper keeps its state outside the project). */
const MORE = ['--persist', '--json', '--sandbox', 'off', '--batch-size', '1'];
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

function runDir(dir: string): string | null {
  const runs = join(dir, '.handoff', 'runs');
  if (!existsSync(runs)) return null;
  const ids = readdirSync(runs).filter((n) => /^\d{8}T\d{6}Z-[0-9a-f]{8}$/.test(n));
  return ids.length === 1 ? join(runs, ids[0] as string) : null;
}

function journalKinds(run: string): string[] {
  const file = join(run, 'events.jsonl');
  if (!existsSync(file)) return [];
  const kinds: string[] = [];
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    try {
      kinds.push((JSON.parse(line) as { kind: string }).kind);
    } catch {
      // a line being written
    }
  }
  return kinds;
}

/** Polls `ready` (the journal and the worker's state files) every 50 ms, at most 60 s. */
async function until(ready: () => boolean, state: () => string): Promise<void> {
  const t0 = Date.now();
  while (!ready()) {
    if (Date.now() - t0 > 60_000) throw new Error(`not reached in 60 s: ${state()}`);
    await pause(50);
  }
}

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', args, { cwd: dir, encoding: 'utf8' }).trim().split('\n');
/** The trees of the checkpoint commits, oldest first. */
const checkpointTrees = (dir: string) => git(dir, 'log', '--reverse', '--format=%T', 'HEAD~2..HEAD');
/** The targets the final handoff cites as solved. */
const solvedOf = (h: Handoff) =>
  h.evidence.attempts
    .filter((a) => a.result.startsWith('solved: '))
    .map((a) => a.snippet)
    .sort();

/** Starts a persisted run whose second worker sleeps and SIGKILLs it after the first checkpoint. */
async function killedRun(dir: string, state: string): Promise<string> {
  const worker = `${process.execPath} ${SLEEPER} ${state} ${TS_WORKER}`;
  const child: ChildProcess = spawn(process.execPath, [CLI_BIN, ...runArgs(dir, worker, ...MORE)], {
    stdio: ['ignore', 'ignore', 'pipe'],
    env: { ...process.env, HANDOFF_RUN_STORE: undefined },
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  const ended = new Promise<NodeJS.Signals | null>((r) => child.on('close', (_c, sig) => r(sig)));
  try {
    // the second dispatch is journaled after the first cycle's checkpoint; its worker sleeps
    await until(
      () => {
        const run = runDir(dir);
        return (
          run !== null && journalKinds(run).includes('dispatch') && existsSync(join(state, 'sleeping-2'))
        );
      },
      () => `run ${runDir(dir)}, stderr ${stderr}`,
    );
  } catch (e) {
    child.kill('SIGKILL');
    await ended;
    throw e;
  }
  child.kill('SIGKILL');
  expect(await ended).toBe('SIGKILL');
  return (runDir(dir) as string).split('/').at(-1) as string;
}

describe('handoff run --resume', () => {
  it('a SIGKILLed run resumes to the same end as an uninterrupted one, and audits', async () => {
    const reference = await withGitProject(PROJECT, async (p) => {
      const r = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, ...MORE), { cwd: p.dir });
      expect(r.code, r.stderr).toBe(0);
      return { solved: solvedOf(handoffOf(r.stdout)), trees: checkpointTrees(p.dir) };
    });
    expect(reference.solved).toEqual(['A.lean:2', 'B.lean:2']);

    await withGitProject(PROJECT, async (p) => {
      const state = await mkdtemp(join(p.dir, '..', 'resume-state-'));
      try {
        const runId = await killedRun(p.dir, state);
        // killed after the first checkpoint: A committed, B still open, the lock left behind
        expect(git(p.dir, 'log', '--format=%s')).toHaveLength(2);
        const lock = join(p.dir, '.handoff', 'runs', runId, '.lock');
        expect(existsSync(lock)).toBe(true);
        const before = journalKinds(join(p.dir, '.handoff', 'runs', runId)).length;

        const r = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, ...MORE, '--resume', runId), {
          cwd: p.dir,
        });
        expect(r.code, r.stderr).toBe(0);
        const h = handoffOf(r.stdout);
        expect(h.status).toBe('solved');
        expect(solvedOf(h)).toEqual(reference.solved);
        expect(checkpointTrees(p.dir)).toEqual(reference.trees);
        expect(git(p.dir, 'log', '--format=%s')).toHaveLength(3);
        expect(existsSync(lock)).toBe(false);
        // the stop summary beside the final handoff, its path on stderr (--json), citing both handoffs
        const summary = join(p.dir, '.handoff', 'runs', runId, 'summary.md');
        expect(r.stderr).toContain(`stop summary: ${summary}`);
        const md = readFileSync(summary, 'utf8');
        for (const a of h.evidence.attempts.filter((x) => x.result.startsWith('solved: ')))
          expect(md).toContain(a.result.slice('solved: '.length));

        // one journal: the recovery note, then only B's cycle (A was not dispatched again)
        const store = createFsStore({ root: join(p.dir, '.handoff'), env: {} });
        const load = await store.load(runId);
        store.close();
        expect(load.ok).toBe(true);
        if (!load.ok) return;
        const after = load.value.events.slice(before);
        expect(after[0]).toMatchObject({ kind: 'note', payload: { kind: 'blocker-diagnosis' } });
        expect(String((after[0]?.payload as { text?: string } | undefined)?.text)).toMatch(/^store recover:/);
        const dispatched = after
          .filter((e) => e.kind === 'dispatch')
          .map((e) => (e.payload as { target: string }).target);
        expect(dispatched).toEqual(['B.lean:2']);
        expect(load.value.handoff_cache).toBe('current');

        const audit = await runCli(['audit', runId, '--project', p.dir]);
        expect(audit.code, `${audit.stdout}${audit.stderr}`).toBe(0);

        // a finished run is not resumed again
        const again = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, ...MORE, '--resume', runId), {
          cwd: p.dir,
        });
        expect(again.code).toBe(2);
        expect(again.stderr).toMatch(/finished/);
      } finally {
        await rm(state, { recursive: true, force: true });
      }
    });
  }, 180_000);

  it('a changed file is refused (custody), and so is a lock whose owner lives', async () => {
    await withGitProject(PROJECT, async (p) => {
      const state = await mkdtemp(join(p.dir, '..', 'resume-state-'));
      try {
        const runId = await killedRun(p.dir, state);
        const lock = join(p.dir, '.handoff', 'runs', runId, '.lock');
        const body = JSON.parse(readFileSync(lock, 'utf8')) as Record<string, unknown>;
        // the lock names a live process of this host (this test): never broken
        await writeFile(lock, JSON.stringify({ ...body, pid: process.pid }));
        const busy = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, ...MORE, '--resume', runId), {
          cwd: p.dir,
        });
        expect(busy.code, busy.stderr).toBe(4);
        expect(busy.stderr).toMatch(/owner_alive/);
        await writeFile(lock, JSON.stringify(body));

        await writeFile(join(p.dir, 'B.lean'), 'theorem b : 2 = 2 := by\n  sorry -- edited\n');
        const drift = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, ...MORE, '--resume', runId), {
          cwd: p.dir,
        });
        expect(drift.code, drift.stderr).toBe(4);
        expect(drift.stderr).toMatch(/B\.lean \(modified; last known at /);
        // nothing was dispatched
        expect(git(p.dir, 'log', '--format=%s')).toHaveLength(2);
      } finally {
        await rm(state, { recursive: true, force: true });
      }
    });
  }, 180_000);
});
