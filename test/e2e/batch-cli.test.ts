/**
 * `--batch-size` through the CLI with real child-process workers on a real git project: targets
 * of disjoint files run at the same time (bounded by `--max-delegates`), two targets of one file
 * never do, every sibling is verified and checkpointed, and with `--persist` the journal holds one
 * dispatch and one handoff per worker, in a valid order.
 */
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';
import { gitLog, handoffOf, runArgs, TS_WORKER, withGitProject } from './helpers.js';

const WRAPPER = fileURLToPath(new URL('./batch-worker.mjs', import.meta.url));
const worker = `node ${WRAPPER} ${TS_WORKER}`;

/** Three files; A.lean holds two targets (never together), B and C one each. */
const FILES = {
  'A.lean':
    'theorem a : 1 = 1 := by\n  sorry -- hint: rfl\n\ntheorem a2 : True := by\n  sorry -- hint: trivial\n',
  'B.lean': 'theorem b : 2 = 2 := by\n  sorry -- hint: rfl\n',
  'C.lean': 'theorem c : 3 = 3 := by\n  sorry -- hint: rfl\n',
};

interface Mark {
  readonly what: 'start' | 'end';
  readonly target: string;
  readonly at: number;
}

/** Each target's [start, end] interval from the wrapper's log. */
async function intervals(log: string): Promise<Map<string, [number, number]>> {
  const text = await readFile(log, 'utf8');
  await rm(log, { force: true });
  const marks = text
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Mark);
  const out = new Map<string, [number, number]>();
  for (const m of marks) {
    const cur = out.get(m.target) ?? [Number.NaN, Number.NaN];
    out.set(m.target, m.what === 'start' ? [m.at, cur[1]] : [cur[0], m.at]);
  }
  return out;
}

const overlap = (a: [number, number] | undefined, b: [number, number] | undefined): boolean =>
  a !== undefined && b !== undefined && a[0] < b[1] && b[0] < a[1];

// the wrapper logs each worker's interval to a file beside the project: a host path the sandbox
// would keep private, so these runs are custody-only (--sandbox off)
const OFF = ['--sandbox', 'off'];

describe('handoff run --batch-size (real workers, real git)', () => {
  it('runs disjoint files together, one file never twice at once; every sibling verified and committed', async () => {
    await withGitProject(FILES, async (p) => {
      const log = `${p.dir}.batch.log`;
      const r = await runCli(
        runArgs(p.dir, worker, '--batch-size', '3', '--max-delegates', '3', '--json', ...OFF),
        {
          env: { BATCH_LOG: log, BATCH_HOLD_MS: '2000' },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(handoffOf(r.stdout).status).toBe('solved');
      const iv = await intervals(log);
      expect([...iv.keys()].sort()).toEqual(['A.lean:2', 'A.lean:5', 'B.lean:2', 'C.lean:2']);
      // cycle 1: A.lean:2 with B and C at once; A.lean:5 waits for a later cycle
      expect(overlap(iv.get('A.lean:2'), iv.get('B.lean:2'))).toBe(true);
      expect(overlap(iv.get('A.lean:2'), iv.get('C.lean:2'))).toBe(true);
      expect(overlap(iv.get('A.lean:2'), iv.get('A.lean:5'))).toBe(false);
      expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toEqual([
        'checkpoint: cycle 2: A.lean:5 solved',
        'checkpoint: cycle 1: A.lean:2 solved, B.lean:2 solved, C.lean:2 solved',
      ]);
      for (const f of ['A.lean', 'B.lean', 'C.lean'])
        expect(await readFile(join(p.dir, f), 'utf8')).not.toContain('sorry');
    });
  }, 60_000);

  it('with --persist (a watched run store) the batch runs one worker at a time, journaled in order', async () => {
    await withGitProject(FILES, async (p) => {
      const log = `${p.dir}.batch.log`;
      const r = await runCli(
        runArgs(p.dir, worker, '--batch-size', '3', '--max-delegates', '3', '--json', '--persist', ...OFF),
        { env: { BATCH_LOG: log, BATCH_HOLD_MS: '100' } },
      );
      expect(r.code, r.stderr).toBe(0);
      const all = [...(await intervals(log)).values()];
      for (const [i, a] of all.entries())
        for (const b of all.slice(i + 1)) expect(overlap(a, b), JSON.stringify([a, b])).toBe(false);
      expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toEqual([
        'checkpoint: cycle 2: A.lean:5 solved',
        'checkpoint: cycle 1: A.lean:2 solved, B.lean:2 solved, C.lean:2 solved',
      ]);
      // the journal: the first dispatch is the run's manifest; after it, each dispatch is followed
      // by its own handoff, and the run's final handoff closes it
      const runs = join(p.dir, '.handoff', 'runs');
      const [run] = (await readdir(runs)).filter((n) => !n.startsWith('.'));
      const dir = join(runs, run as string);
      const manifest = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as {
        dispatch?: { target?: string };
      };
      expect(manifest.dispatch?.target).toBe('A.lean:2');
      const events = (await readFile(join(dir, 'events.jsonl'), 'utf8'))
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l) as { kind: string; payload?: { target?: string } });
      const pairs = events
        .filter((e) => e.kind === 'dispatch' || e.kind === 'handoff')
        .map((e) => `${e.kind} ${e.payload?.target}`);
      expect(pairs).toEqual([
        'handoff A.lean:2',
        'dispatch B.lean:2',
        'handoff B.lean:2',
        'dispatch C.lean:2',
        'handoff C.lean:2',
        'dispatch A.lean:5',
        'handoff A.lean:5',
        'handoff .',
      ]);
    });
  }, 60_000);

  it('--max-delegates 1 runs the same batch one worker at a time', async () => {
    await withGitProject(FILES, async (p) => {
      const log = `${p.dir}.batch.log`;
      const r = await runCli(
        runArgs(p.dir, worker, '--batch-size', '3', '--max-delegates', '1', '--json', ...OFF),
        {
          env: { BATCH_LOG: log, BATCH_HOLD_MS: '300' },
        },
      );
      expect(r.code, r.stderr).toBe(0);
      const iv = await intervals(log);
      const all = [...iv.values()];
      for (const [i, a] of all.entries())
        for (const b of all.slice(i + 1)) expect(overlap(a, b), JSON.stringify([a, b])).toBe(false);
      // still one cycle for the three disjoint targets
      expect(gitLog(p.dir).filter((l) => l.startsWith('checkpoint: '))).toHaveLength(2);
    });
  }, 60_000);
});
