/**
 * Recovery after real SIGKILLs (needs `npm run build`: the child appends through dist/): a child
 * appends notes in a loop, reporting each acknowledged seq with write(2), and is killed at a
 * moment that often lands inside an append (holding `.lock`). `recoverRun` then either finds
 * nothing to do or recovers (breaks the dead child's lock, truncates a torn tail) — or, when the
 * kill landed between creating `.lock` and writing its body, refuses the empty lock and touches
 * nothing. Wherever it did not refuse, appends work again and no acknowledged event is lost.
 * Trials continue until a stale lock was broken (at most MAX_TRIALS; about a third of kills
 * inside an append loop leave one).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { recoverRun } from '../../src/store/fs-recover.js';
import { createFsStore } from '../../src/store/index.js';
import type { RecoverResult } from '../../src/store/recover-schema.js';
import { dispatch, note } from './fixtures.js';
import { tempDir } from './tmp.js';

const CHILD = fileURLToPath(new URL('./children/append-child.mjs', import.meta.url));
const MAX_TRIALS = 24;
const live = new Set<ChildProcess>();

afterEach(async () => {
  const dying = [...live].map((c) => new Promise((r) => c.once('close', r)));
  for (const c of live) c.kill('SIGKILL');
  await Promise.all(dying);
});

/** Runs one crash-mode child until it has acknowledged `afterAck` appends, waits `ms`, kills it. */
async function killedWriter(
  root: string,
  label: string,
  afterAck: number,
  ms: number,
): Promise<{ runId: string; acks: number[] }> {
  const child = spawn(process.execPath, [CHILD, root, 'crash', label], {
    stdio: ['pipe', 'pipe', 'pipe'],
    env: { ...process.env, CHILD_DISPATCH: JSON.stringify(dispatch()) },
  });
  live.add(child);
  const lines: string[] = [];
  let buf = '';
  let stderr = '';
  const exited = new Promise<void>((resolve) =>
    child.on('close', () => {
      live.delete(child);
      resolve();
    }),
  );
  const reached = new Promise<void>((resolve, reject) => {
    child.stdout.setEncoding('utf8').on('data', (d: string) => {
      buf += d;
      const parts = buf.split('\n');
      buf = parts.pop() ?? '';
      for (const l of parts) {
        lines.push(l);
        if (l === `ack ${afterAck}`) resolve();
        if (l.startsWith('error')) reject(new Error(l));
      }
    });
    child.stderr.setEncoding('utf8').on('data', (d: string) => {
      stderr += d;
    });
    void exited.then(() => reject(new Error(`child exited early: ${lines.join('|')} ${stderr}`)));
  });
  await reached;
  if (ms > 0) await new Promise((r) => setTimeout(r, ms));
  child.kill('SIGKILL');
  await exited;
  const runId = lines.find((l) => l.startsWith('created '))?.slice(8);
  if (runId === undefined) throw new Error(`no run: ${lines.join('|')}`);
  const acks = lines.filter((l) => l.startsWith('ack ')).map((l) => Number(l.slice(4)));
  expect(acks).toEqual(acks.map((_, i) => i + 1));
  return { runId, acks };
}

describe('recover after SIGKILL inside an append loop', () => {
  it('appends work again and no acknowledged event is lost', async () => {
    const root = join(tempDir('recover-crash-'), 'store');
    const seen = { lockBroken: 0, nothing: 0, emptyLock: 0, trials: 0 };
    for (let t = 0; t < MAX_TRIALS && seen.lockBroken === 0; t++) {
      seen.trials++;
      const label = `recover-trial-${t}`;
      const { runId, acks } = await killedWriter(root, label, 2 + (t % 4), t % 3);
      const dir = join(root, 'runs', runId);
      const journalBefore = readFileSync(join(dir, 'events.jsonl'));
      const lockBefore = existsSync(join(dir, '.lock')) ? readFileSync(join(dir, '.lock')) : null;
      const r: RecoverResult = await recoverRun({ root, runId, env: {} });
      if (r.outcome === 'refused') {
        // only the empty lock of a kill between the lock's creation and its body: nothing touched
        expect(r, label).toMatchObject({ code: 'busy', reason: 'lock_unparsable' });
        expect(lockBefore?.length, label).toBe(0);
        expect(readFileSync(join(dir, 'events.jsonl')).equals(journalBefore), label).toBe(true);
        seen.emptyLock++;
        continue;
      }
      expect(['recovered', 'nothing_to_do'], `${label}: ${JSON.stringify(r)}`).toContain(r.outcome);
      if (r.outcome === 'nothing_to_do') seen.nothing++;
      if (r.actions.some((a) => a.kind === 'lock_broken')) seen.lockBroken++;
      expect(existsSync(join(dir, '.lock')), label).toBe(false);
      const store = createFsStore({ root, env: {} });
      const after = await store.append(runId, 'note', note(`${label}-after`));
      expect(after, label).toMatchObject({ outcome: 'committed' });
      const l = await store.load(runId);
      store.close();
      if (!l.ok) throw new Error(`${label}: ${l.code} ${l.detail}`);
      expect(l.value.damaged, label).toBe(false);
      // every acknowledged event is there, in order, with its payload
      for (const seq of acks)
        expect(l.value.events[seq - 1]?.payload, `${label} seq ${seq}`).toEqual({
          kind: 'candidate',
          text: `${label}-${seq}`,
          lean: null,
        });
      // at most the one unacknowledged event, the recovery note, and the append after it
      const extra = l.value.events.slice(acks.length);
      const kinds = extra.map((e) => (e.payload as { kind: string }).kind);
      expect(kinds.at(-1), label).toBe('failed-avenue');
      if (r.outcome === 'recovered') {
        expect(kinds.at(-2), label).toBe('blocker-diagnosis');
        expect(r.cite, label).toBe(`${runId}#${l.value.events.length - 1}`);
      }
      expect(extra.length, label).toBeLessThanOrEqual(3);
    }
    expect(seen.lockBroken, JSON.stringify(seen)).toBeGreaterThan(0);
  }, 180_000);
});
