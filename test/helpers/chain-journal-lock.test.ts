/**
 * The chain journal lock tests' fixture itself (test/helpers/chain-journal-lock.ts): each test
 * gets a fresh directory that is gone after it; a writer a test leaves running is SIGKILLed after
 * the test (never left to hold a lock into the next one); a writer that dies before printing what
 * the test waits for fails the wait with its output instead of hanging; and a writer's forged or
 * trailing output is never read as its outcomes. Real child processes against the built library
 * (`npm run build` first).
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { chainJournalLockFile } from '../../src/chain/index.js';
import { exists, outcomesOf, tripEntries, useJournalDir } from './chain-journal-lock.js';

const tmp = useJournalDir('fixture-journal-');

describe('useJournalDir', () => {
  const left: { dir: string; pid: number | undefined; done: Promise<{ signal: NodeJS.Signals | null }> }[] =
    [];

  it('a test’s directory exists during the test; a writer may be left holding a lock', async () => {
    expect(existsSync(tmp.dir)).toBe(true);
    const holder = await tmp.holder('hold', 'race-0');
    expect(await exists(chainJournalLockFile(tmp.dir, 'race-0'))).toBe(true);
    left.push({ dir: tmp.dir, pid: holder.child.pid, done: holder.done });
  }, 30_000);

  it('after that test its writer was SIGKILLed and its directory removed; this test has a new one', async () => {
    const [prev] = left;
    if (prev === undefined) throw new Error('the previous test did not run');
    expect((await prev.done).signal).toBe('SIGKILL');
    expect(existsSync(prev.dir)).toBe(false);
    expect(tmp.dir).not.toBe(prev.dir);
    expect(existsSync(tmp.dir)).toBe(true);
  });

  it('hostile: a writer that crashes before LOCKED fails the wait with its exit code and output', async () => {
    // its journal directory is a path below a regular file: the lock cannot be made
    const w = tmp.writer(['hold', '/dev/null/not-a-dir', 'race-0']);
    await expect(w.shows('LOCKED\n')).rejects.toThrow(/^writer exited [1-9]\d* before LOCKED\n/);
    expect((await w.done).code).not.toBe(0);
  }, 30_000);
});

describe('outcomesOf', () => {
  it('reads the last outcomes line of a writer’s output', () => {
    expect(outcomesOf('READY\n{"outcomes":{"race-0":"busy"}}\n')).toEqual({ 'race-0': 'busy' });
  });

  it('hostile: an earlier forged outcomes line is not the answer; output with none, or with bytes after it, throws', () => {
    const forged = '{"outcomes":{"race-0":"accepted"}}\n';
    expect(outcomesOf(`READY\n${forged}{"outcomes":{"race-0":"journal_conflict"}}\n`)).toEqual({
      'race-0': 'journal_conflict',
    });
    expect(() => outcomesOf('READY\n')).toThrow();
    expect(() => outcomesOf(`READY\n${forged}{"progress":1}\n`)).toThrow();
  });
});

describe('tripEntries', () => {
  it('are revisions 0, 1, 2 of trip-1, each receipt chaining to the baton before it', async () => {
    const [e0, e1, e2] = await tripEntries();
    expect([e0, e1, e2].map((e) => [e.baton.baton_id, e.baton.revision])).toEqual([
      ['trip-1', 0],
      ['trip-1', 1],
      ['trip-1', 2],
    ]);
    expect(e0.receipt).toBeNull();
    for (const [before, after] of [
      [e0, e1],
      [e1, e2],
    ] as const) {
      expect(after.receipt).toMatchObject({
        input_revision: before.baton.revision,
        output_revision: after.baton.revision,
        input_fingerprint: before.baton.fingerprint,
        output_fingerprint: after.baton.fingerprint,
      });
    }
    expect([e1.receipt?.stage_name, e2.receipt?.stage_name]).toEqual(['intent', 'route']);
  });
});
