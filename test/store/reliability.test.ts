/**
 * Reliability with real processes and real files (needs `npm run build`):
 * - crash: children create a run and append in a loop, reporting each acknowledged seq on a pipe,
 *   and are SIGKILLed at random moments (≥ 200 trials). Every acknowledged append survives, the
 *   journal is whole or its damage is reported, and a lock left by a killed writer is never broken.
 * - race: two processes append to one run at once: appends are serialized by the lock (losers get
 *   `busy`), seqs stay dense and no line interleaves.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/index.js';
import { createFsStore, makeRunId, parseJournal } from '../../src/store/index.js';
import { dispatch, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const CHILD = fileURLToPath(new URL('./children/append-child.mjs', import.meta.url));
const TRIALS = 200;
const CONCURRENCY = 3;

interface Child {
  child: ChildProcess;
  lines: string[];
  exited: Promise<void>;
  /** Resolves once a line satisfying `pred` has arrived (or the child exits: then it rejects). */
  waitFor(pred: (l: string) => boolean): Promise<void>;
}

const live = new Set<ChildProcess>();

afterEach(async () => {
  // a failed trial must not leave children writing into a temp dir that is being removed
  const dying = [...live].map((c) => new Promise((r) => c.once('close', r)));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(dying);
});

function spawnChild(args: string[]): Child {
  const child = spawn(process.execPath, [CHILD, ...args], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CHILD_DISPATCH: JSON.stringify(dispatch()) },
  });
  const lines: string[] = [];
  const waiters: { pred: (l: string) => boolean; resolve: () => void; reject: (e: Error) => void }[] = [];
  let buf = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => {
    buf += d;
    const parts = buf.split('\n');
    buf = parts.pop() ?? '';
    for (const line of parts) {
      lines.push(line);
      for (const w of [...waiters]) {
        if (w.pred(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
        }
      }
    }
  });
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d;
  });
  live.add(child);
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      live.delete(child);
      for (const w of waiters.splice(0))
        w.reject(new Error(`child exited; lines: ${lines.join('|')}; stderr: ${stderr}`));
      resolve();
    }),
  );
  const waitFor = (pred: (l: string) => boolean): Promise<void> =>
    lines.some(pred)
      ? Promise.resolve()
      : new Promise((resolve, reject) => waiters.push({ pred, resolve, reject }));
  return { child, lines, exited, waitFor };
}

/**
 * Spawns a child and waits for its first line. A child that exits before printing anything never
 * reached the store (e.g. dist/ was being rebuilt by a concurrent `npm run build`): it is
 * respawned, at most three times.
 */
async function startChild(args: string[], first: string): Promise<Child> {
  for (let attempt = 1; ; attempt++) {
    const c = spawnChild(args);
    try {
      await c.waitFor((l) => l === first);
      return c;
    } catch (e) {
      if (c.lines.length > 0 || attempt >= 3) throw e;
      await new Promise((r) => setTimeout(r, 500));
    }
  }
}

describe('SIGKILL crash trials', () => {
  it(`every acknowledged append survives ${TRIALS} kills at random moments; damage never silent`, async () => {
    const root = join(tempDir('crash-'), 'store');
    // deterministic kill plans: ~1/5 of the trials are killed during startup/create (a delay after
    // "start"), the rest after the k-th acknowledged append plus a sub-append delay (so kills land
    // between appends and inside locked, half-finished appends)
    const plans = fc.sample(
      fc.record({
        early: fc.integer({ min: 0, max: 4 }),
        afterAck: fc.integer({ min: 1, max: 6 }),
        ms: fc.integer({ min: 0, max: 12 }),
      }),
      { numRuns: TRIALS, seed: 4242 },
    );
    const stats = { acked: 0, created: 0, lockLeft: 0, notCreated: 0 };
    let next = 0;
    const trial = async (t: number): Promise<void> => {
      const label = `trial-${t}`;
      const { child, lines, exited, waitFor } = await startChild([root, 'crash', label], 'start');
      const plan = plans[t] as (typeof plans)[number];
      if (plan.early === 0) {
        await new Promise((r) => setTimeout(r, plan.ms));
      } else {
        await waitFor((l) => l === `ack ${plan.afterAck}` || l.startsWith('error'));
        if (plan.ms % 3 !== 0) await new Promise((r) => setTimeout(r, plan.ms % 3));
      }
      child.kill('SIGKILL');
      await exited;
      expect(
        lines.filter((l) => l.startsWith('error')),
        label,
      ).toEqual([]);
      const created = lines.find((l) => l.startsWith('created '))?.slice(8);
      const acks = lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
      expect(acks, label).toEqual(acks.map((_, i) => i + 1));
      const store = createFsStore({ root, env: {} });
      if (created === undefined) {
        stats.notCreated++;
        // killed during create: nothing was acknowledged; the run is absent, refused as incomplete,
        // or (killed after its last barrier) a whole run with an empty journal — never a false history
        // the child draws its run id's suffix from sha256(label) (children/append-child.mjs)
        const id = makeRunId('2026-11-30T10:00:00Z', () => sha256Hex(label).slice(0, 8));
        const half = await store.load(id);
        if (half.ok) {
          expect(half.value.events, label).toEqual([]);
          expect(half.value.damaged, label).toBe(false);
        } else
          expect(
            ['no_storage_root', 'no_runs_dir', 'no_such_run', 'incomplete_run', 'integrity_failure'],
            label,
          ).toContain(half.code);
        return;
      }
      stats.created++;
      stats.acked += acks.length;
      const l = await store.load(created);
      if (!l.ok) throw new Error(`${label}: acknowledged run does not load: ${l.code} ${l.detail}`);
      const events = l.value.events;
      expect(events.length, label).toBeGreaterThanOrEqual(acks.length);
      expect(events.length, label).toBeLessThanOrEqual(acks.length + 1);
      for (const e of events)
        expect(e.payload, label).toEqual({ kind: 'candidate', text: `${label}-${e.seq}`, lean: null });
      // damage is never silent: bytes past the valid prefix are always reported
      const bytes = readFileSync(join(root, 'runs', created, 'events.jsonl'));
      const parsed = parseJournal(bytes, created, l.value.event_schema);
      if (parsed.validBytes !== bytes.length) expect(l.value.damaged, label).toBe(true);
      else expect(l.value.damaged, label).toBe(false);
      if (existsSync(join(root, 'runs', created, '.lock'))) {
        stats.lockLeft++;
        // a killed writer's lock is never broken: appends stay refused, nothing is written
        const r = await store.append(created, 'note', note());
        expect(r, label).toMatchObject({ outcome: 'nothing_written', code: 'busy' });
        expect(readFileSync(join(root, 'runs', created, 'events.jsonl')).equals(bytes), label).toBe(true);
      }
    };
    const worker = async (): Promise<void> => {
      while (next < TRIALS) await trial(next++);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    expect(stats.created + stats.notCreated).toBe(TRIALS);
    // the kills really landed in all phases: during create, between appends, inside a locked append
    expect(stats.notCreated).toBeGreaterThan(0);
    expect(stats.acked).toBeGreaterThan(TRIALS);
    expect(stats.lockLeft).toBeGreaterThan(0);
    // 200 node processes: ~15 s on an idle 2-core machine, several times that when it is shared
  }, 300_000);
});

describe('two processes appending to one run', () => {
  it('serializes through the lock: one gets busy, seqs dense, no interleaving', async () => {
    const root = join(tempDir('race-'), 'store');
    const store = createFsStore({ root, env: {} });
    const c = await store.createRun({ dispatch: dispatch(), now: '2026-11-30T10:00:00Z' });
    const id = c.run_id as string;
    const COUNT = 60;
    const [a, b] = await Promise.all([
      startChild([root, 'race', 'A', id, String(COUNT)], 'ready'),
      startChild([root, 'race', 'B', id, String(COUNT)], 'ready'),
    ]);
    a.child.stdin?.write('go\n');
    b.child.stdin?.write('go\n');
    await Promise.all([a.exited, b.exited]);
    for (const p of [a, b]) expect(p.lines.filter((l) => l.startsWith('error'))).toEqual([]);
    const oks = (p: typeof a, who: string) =>
      p.lines
        .filter((l) => l.startsWith('ok '))
        .map((l) => {
          const [, seq, i] = l.split(' ');
          return { seq: Number(seq), text: `${who}-${i}` };
        });
    const committed = [...oks(a, 'A'), ...oks(b, 'B')].sort((x, y) => x.seq - y.seq);
    const busy = [...a.lines, ...b.lines].filter((l) => l === 'busy').length;
    expect(busy).toBeGreaterThan(0);
    expect(committed.length + busy).toBe(2 * COUNT);
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.damaged).toBe(false);
    expect(l.value.events.map((e) => e.seq)).toEqual(committed.map((_, i) => i + 1));
    expect(l.value.events.map((e) => (e.payload as { text: string }).text)).toEqual(
      committed.map((x) => x.text),
    );
    expect(await store.isLocked(id)).toBe(false);
  }, 60_000);
});
