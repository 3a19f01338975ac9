/**
 * Group commit with real processes and real files (needs `npm run build`): children append
 * batches of 2–5 events in a loop (odd batches with a trace), reporting each acknowledged batch on
 * a pipe with write(2), and are SIGKILLed at random moments — many of them inside a batch (between
 * its record and its lines, between its lines, before its fsync). No acknowledged event is lost, no
 * partial batch is ever visible, bytes past the prefix are always reported, and a killed writer's
 * lock gives `busy` (never broken). Kept modest: the machine has 2 cores.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, describe, expect, it } from 'vitest';
import { createFsStore, parseJournal } from '../../src/store/index.js';
import { dispatch, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const CHILD = fileURLToPath(new URL('./children/batch-child.mjs', import.meta.url));
const TRIALS = 60;
const CONCURRENCY = 2;
const live = new Set<ChildProcess>();

afterEach(async () => {
  const dying = [...live].map((c) => new Promise((r) => c.once('close', r)));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(dying);
});

interface Child {
  child: ChildProcess;
  lines: string[];
  exited: Promise<void>;
  waitFor(pred: (l: string) => boolean): Promise<void>;
}

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
      for (const w of [...waiters])
        if (w.pred(line)) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve();
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

/** The seq after which batch i ends (batch i holds 2 + (i % 4) events). */
const batchEnds = (upTo: number): number[] => {
  const ends: number[] = [];
  let s = 0;
  for (let i = 0; s <= upTo + 5; i++) {
    s += 2 + (i % 4);
    ends.push(s);
  }
  return ends;
};

describe('SIGKILL trials inside batches', () => {
  it(`no acknowledged event is lost and no partial batch is visible in ${TRIALS} kills`, async () => {
    const root = join(tempDir('batch-crash-'), 'store');
    const plans = fc.sample(
      fc.record({ afterAck: fc.integer({ min: 1, max: 5 }), us: fc.integer({ min: 0, max: 2500 }) }),
      { numRuns: TRIALS, seed: 1515 },
    );
    const stats = { acked: 0, whole: 0, torn: 0, lockLeft: 0, beyondAck: 0 };
    let next = 0;
    const trial = async (t: number): Promise<void> => {
      const label = `batch-${t}`;
      let c: Child | null = null;
      for (let attempt = 1; c === null; attempt++) {
        const s = spawnChild([root, label]);
        try {
          await s.waitFor((l) => l.startsWith('created '));
          c = s;
        } catch (e) {
          if (s.lines.length > 0 || attempt >= 3) throw e;
          await new Promise((r) => setTimeout(r, 500));
        }
      }
      const { child, lines, exited, waitFor } = c;
      const plan = plans[t] as (typeof plans)[number];
      const id = (lines.find((l) => l.startsWith('created ')) as string).slice(8);
      await waitFor(
        (l) =>
          l.split(' ').length === 3 &&
          l.startsWith('ack ') &&
          lines.filter((x) => x.startsWith('ack ')).length >= plan.afterAck,
      );
      // a busy wait of up to 2.5 ms: the kill lands at a moment of the next batch
      const until = process.hrtime.bigint() + BigInt(plan.us) * 1000n;
      while (process.hrtime.bigint() < until) {
        // spin
      }
      child.kill('SIGKILL');
      await exited;
      expect(
        lines.filter((l) => l.startsWith('error')),
        label,
      ).toEqual([]);
      const acks = lines
        .filter((l) => l.startsWith('ack '))
        .map((l) => l.split(' ').map(Number).slice(1) as [number, number]);
      const ends = batchEnds(acks.at(-1)?.[1] ?? 0);
      expect(
        acks.map(([, last]) => last),
        label,
      ).toEqual(ends.slice(0, acks.length));
      const acked = acks.at(-1)?.[1] ?? 0;
      stats.acked += acked;
      const store = createFsStore({ root, env: {} });
      const l = await store.load(id);
      if (!l.ok) throw new Error(`${label}: does not load: ${l.code} ${l.detail}`);
      const events = l.value.events;
      // every acknowledged event survives; at most the in-flight batch more, and only whole
      expect(events.length, label).toBeGreaterThanOrEqual(acked);
      expect([acked, ends[acks.length]], label).toContain(events.length);
      if (events.length > acked) stats.beyondAck++;
      for (const e of events)
        expect(e.payload, label).toEqual({ kind: 'candidate', text: `${label}-${e.seq}`, lean: null });
      // bytes past the all-or-nothing prefix are always reported
      const bytes = readFileSync(join(root, 'runs', id, 'events.jsonl'));
      const plain = parseJournal(bytes, id, l.value.event_schema);
      const extra = plain.validBytes !== bytes.length || plain.events.length !== events.length;
      expect(l.value.damaged, label).toBe(extra);
      if (plain.events.length > events.length) stats.torn++;
      else stats.whole++;
      if (existsSync(join(root, 'runs', id, '.lock'))) {
        stats.lockLeft++;
        expect(
          await store.appendBatch(id, [
            { kind: 'note', payload: note() },
            { kind: 'note', payload: note() },
          ]),
          label,
        ).toMatchObject({
          outcome: 'nothing_written',
          code: 'busy',
        });
        expect(readFileSync(join(root, 'runs', id, 'events.jsonl')).equals(bytes), label).toBe(true);
      }
    };
    const worker = async (): Promise<void> => {
      while (next < TRIALS) await trial(next++);
    };
    await Promise.all(Array.from({ length: CONCURRENCY }, worker));
    // the kills landed inside batches, not only between them
    expect(stats.lockLeft).toBeGreaterThan(0);
    expect(stats.acked).toBeGreaterThan(TRIALS);
  }, 300_000);
});
