/**
 * The multi-process race on the fs transfer journal: N node processes (the built library) start
 * together and each submits, per round, one transfer request from the active agent of a fresh
 * session — exactly one grant per round, every other answer `not_active`, and each session's
 * journal folds cleanly with one transfer. Needs `npm run build` (dist/), like the other tests
 * that start the built library.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readTransferSession } from '../../src/transfer/index.js';

const WORKER = fileURLToPath(new URL('./fixtures/race-worker.mjs', import.meta.url));
/** CI size 8 × 10; `TRANSFER_RACE=32x20` runs the full size by hand. */
const [PROCESSES, ROUNDS] = (/^(\d+)x(\d+)$/
  .exec(process.env.TRANSFER_RACE ?? '')
  ?.slice(1)
  .map(Number) ?? [8, 10]) as [number, number];

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'transfer-race-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

interface Racer {
  readonly ready: Promise<void>;
  readonly done: Promise<{
    code: number | null;
    lines: { round: number; outcome: string; code: string }[];
    err: string;
  }>;
}

function racer(id: string): Racer {
  const p = spawn(process.execPath, [WORKER, dir, id, String(ROUNDS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  let signalReady: () => void = () => {};
  const ready = new Promise<void>((r) => {
    signalReady = r;
  });
  p.stdout.setEncoding('utf8').on('data', (d: string) => {
    out += d;
    if (out.startsWith('ready\n')) signalReady();
  });
  p.stderr.setEncoding('utf8').on('data', (d: string) => {
    err += d;
  });
  const done = new Promise<Awaited<Racer['done']>>((resolve) =>
    p.on('close', (code) => {
      signalReady();
      const lines = out
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as { round: number; outcome: string; code: string });
      resolve({ code, lines, err });
    }),
  );
  return { ready, done };
}

describe('transfer journal race (processes)', () => {
  it(`${PROCESSES} processes × ${ROUNDS} rounds: exactly one grant per round, the rest not_active`, async () => {
    const racers = Array.from({ length: PROCESSES }, (_, i) => racer(`p${i}`));
    await Promise.all(racers.map((r) => r.ready));
    writeFileSync(join(dir, 'go'), '');
    const results = await Promise.all(racers.map((r) => r.done));
    for (const r of results) {
      expect(r.err).toBe('');
      expect(r.code).toBe(0);
      expect(r.lines).toHaveLength(ROUNDS);
    }
    for (let round = 0; round < ROUNDS; round++) {
      const answers = results.map((r) => r.lines.find((l) => l.round === round));
      expect(answers.filter((a) => a?.outcome === 'granted')).toHaveLength(1);
      expect(answers.filter((a) => a?.code === 'not_active')).toHaveLength(PROCESSES - 1);
      const s = readTransferSession(join(dir, 'journal'), `race-${round}`);
      expect(s).toMatchObject({ active: 'billing', transfers: 1, seq: PROCESSES + 1 });
    }
  }, 300_000);
});
