/**
 * One writer at a time: every file-journal commit (and every effect-ledger put) holds an O_EXCL
 * lock file; a second concurrent writer is refused with `busy`, the lock is never broken, and a
 * writer re-reads a history another writer extended instead of appending on top of a stale one.
 * The process tests run real child processes against the built library (`npm run build` first).
 */
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chainJournalFile,
  chainJournalLockFile,
  createFileChainJournal,
  createFileEffectLedger,
  idempotentEffect,
  stageDelta,
} from '../../src/chain/index.js';
import { LOCK_BODY_DIR } from '../../src/chain/jsonl-file.js';
import { createExclusiveFile, nodeFsLayer } from '../../src/durable/index.js';
import {
  exists,
  expectOneHistoryPerBaton,
  outcomesOf,
  useJournalDir,
} from '../helpers/chain-journal-lock.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

const tmp = useJournalDir('chain-lock-');

describe('file journal lock (in process)', () => {
  it('a held lock refuses the commit with busy, names the lock, writes nothing and is never broken', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    expect(lock).toBe(`${chainJournalFile(tmp.dir, 'trip-1')}.lock`);
    await mkdir(tmp.dir, { recursive: true });
    await writeFile(lock, '{"host":"elsewhere","pid":4242}\n'); // a writer that died mid-commit
    const journal = createFileChainJournal(tmp.dir);
    for (let i = 0; i < 2; i++) {
      await expect(journal.commit({ baton: b0, receipt: null })).rejects.toMatchObject({
        code: 'busy',
        details: { lock, holder: { host: 'elsewhere', pid: 4242 } },
      });
    }
    await expect(chain.run(b0, { journal })).rejects.toMatchObject({ code: 'busy' });
    expect(await exists(chainJournalFile(tmp.dir, 'trip-1'))).toBe(false);
    expect(await readFile(lock, 'utf8')).toBe('{"host":"elsewhere","pid":4242}\n');
    await rm(lock); // the human's decision, never the journal's
    const r = await chain.run(b0, { journal });
    expect(r.baton.revision).toBe(3);
    expect(await exists(lock)).toBe(false);
  });

  it('a journal object with a stale view re-reads the history under the lock instead of appending on it', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const c1 = await chain.advance(b0);
    const other = goodStages();
    other.intent = () =>
      stageDelta({
        city: { value: 'Beijing', evidence: ['chat://2'] },
        policy: { value: { latest_departure: '20:00' }, evidence: ['policy://travel/v3'] },
      });
    const c1b = await tripChain(other).advance(b0);
    const a = createFileChainJournal(tmp.dir);
    const b = createFileChainJournal(tmp.dir);
    expect(await b.loadLast('trip-1')).toBeUndefined(); // b now holds a view of the empty journal
    await a.commit({ baton: b0, receipt: null });
    await a.commit({ baton: c1.baton, receipt: c1.receipt });
    await expect(b.commit({ baton: b0, receipt: null })).rejects.toMatchObject({ code: 'journal_conflict' });
    await b.commit({ baton: c1.baton, receipt: c1.receipt }); // the same state: a no-op
    await expect(b.commit({ baton: c1b.baton, receipt: c1b.receipt })).rejects.toMatchObject({
      code: 'journal_conflict',
    });
    expect((await b.loadLast('trip-1'))?.fingerprint).toBe(c1.baton.fingerprint);
    const entries = await createFileChainJournal(tmp.dir).entries('trip-1');
    expect(entries.map((e) => e.baton.revision)).toEqual([0, 1]);
  });

  it('hostile: a planted .lock-bodies symlink is not followed; the lock is then made with O_EXCL', async () => {
    const chain = tripChain();
    const elsewhere = await mkdtemp(join(tmpdir(), 'chain-lock-elsewhere-'));
    try {
      await symlink(elsewhere, join(tmp.dir, LOCK_BODY_DIR));
      const journal = createFileChainJournal(tmp.dir);
      const r = await chain.run(tripBaton(chain), { journal });
      expect(r.baton.revision).toBe(3);
      expect(await readdir(elsewhere)).toEqual([]); // nothing written through the link
      expect(await exists(chainJournalLockFile(tmp.dir, 'trip-1'))).toBe(false);
      const lock = chainJournalLockFile(tmp.dir, 'trip-1');
      await writeFile(lock, '{"host":"elsewhere","pid":1}\n');
      await expect(journal.commit({ baton: r.baton, receipt: r.receipts[2] ?? null })).rejects.toMatchObject({
        code: 'busy',
      });
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('effect ledgers: first record wins across ledger objects; a held lock is busy and nothing runs twice', async () => {
    const a = createFileEffectLedger(tmp.dir);
    const b = createFileEffectLedger(tmp.dir);
    expect(await b.get('k')).toBeUndefined();
    await a.put({ key: 'k', result: 'first' });
    expect((await b.put({ key: 'k', result: 'second' })).result).toBe('first');
    expect(await idempotentEffect(b, 'k', () => 'third')).toEqual({
      result: 'first',
      replayed: true,
      via: 'replayed',
    });
    expect((await readFile(join(tmp.dir, 'effects.jsonl'), 'utf8')).trimEnd().split('\n')).toHaveLength(1);
    await writeFile(join(tmp.dir, 'effects.jsonl.lock'), '');
    await expect(b.put({ key: 'k2', result: 1 })).rejects.toMatchObject({ code: 'busy' });
    expect(await exists(join(tmp.dir, 'effects.jsonl.lock'))).toBe(true);
    expect((await a.records()).map((r) => r.key)).toEqual(['k']);
  });
});

describe('file journal lock (real processes)', () => {
  it('while one process holds the baton’s lock, another process’s commits are refused with busy', async () => {
    const holder = await tmp.holder('hold', 'race-0');
    // the held lock is a link to the holder's lock body: a regular file naming the holder, and an
    // O_EXCL writer (another implementation, an older version) is refused by it as well
    const lock = chainJournalLockFile(tmp.dir, 'race-0');
    expect(JSON.parse(await readFile(lock, 'utf8'))).toEqual({ host: hostname(), pid: holder.child.pid });
    expect(createExclusiveFile(nodeFsLayer(), lock, Buffer.from('x'))).toMatchObject({
      ok: false,
      reason: 'exists',
    });
    expect(await tmp.run(['run', tmp.dir, 'a', '1'])).toEqual({ 'race-0': 'busy' });
    expect(await exists(chainJournalFile(tmp.dir, 'race-0'))).toBe(false);
    expect(await exists(chainJournalLockFile(tmp.dir, 'race-0'))).toBe(true);

    holder.child.stdin?.end();
    expect((await holder.done).out).toContain('RELEASED\n');
    expect(await exists(chainJournalLockFile(tmp.dir, 'race-0'))).toBe(false);
    const after = tmp.writer(['run', tmp.dir, 'a', '1']);
    await after.shows('READY\n');
    after.child.stdin?.write('go\n');
    expect(outcomesOf((await after.done).out)).toEqual({ 'race-0': 'accepted' });
    expect((await createFileChainJournal(tmp.dir).loadLast('race-0'))?.revision).toBe(3);
    // every process removed its lock body on exit
    expect(await readdir(join(tmp.dir, LOCK_BODY_DIR))).toEqual([]);
  }, 30_000);

  it('a lock body left by a killed process is swept by the next process; its held lock stays a lock', async () => {
    const holder = await tmp.holder('hold', 'race-0');
    const [body] = await readdir(join(tmp.dir, LOCK_BODY_DIR));
    expect(body).toBe(
      `${hostname().replace(/[^A-Za-z0-9_-]/g, '_')}.${holder.child.pid}.${body?.split('.').pop()}`,
    );
    holder.child.kill('SIGKILL');
    await holder.done;
    const lock = chainJournalLockFile(tmp.dir, 'race-0');
    const other = tmp.writer(['run', tmp.dir, 'a', '1']); // another process: makes its own body, sweeps the dead one
    await other.shows('READY\n');
    other.child.stdin?.write('go\n');
    expect(outcomesOf((await other.done).out)).toEqual({ 'race-0': 'busy' }); // never broken
    expect(await readdir(join(tmp.dir, LOCK_BODY_DIR))).toEqual([]);
    expect(JSON.parse(await readFile(lock, 'utf8'))).toEqual({ host: hostname(), pid: holder.child.pid });
  }, 30_000);

  it('two processes racing on the same batons never interleave: every journal stays one verified history', async () => {
    const n = 12;
    const [oa, ob] = await tmp.race(n);
    await expectOneHistoryPerBaton(tmp.dir, n, oa, ob, (id, entries) => {
      const winner = oa[id] === 'accepted' ? 'a' : ob[id] === 'accepted' ? 'b' : null;
      if (winner !== null) {
        expect(entries).toHaveLength(4);
        expect(entries[3]?.baton.records.every((r) => String(r.value).startsWith(winner))).toBe(true);
      }
    });
  }, 30_000);
});
