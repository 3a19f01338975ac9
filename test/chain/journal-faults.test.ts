/**
 * The file journal's and the file effect ledger's durable boundary: exactly one lock acquisition
 * (one link(2) to this process's lock body), one lstat, one write and one fsync per commit (plus the directory fsync of the commit that creates the
 * file), and, for every file-system call a commit makes, that call failing (EIO, a partial write,
 * a write that writes nothing): the commit rejects and leaves the file byte-for-byte as it was (no
 * torn or unsynced line survives to be taken for a committed one) and no lock behind, or it
 * resolves and the entry is durable. A retry on the same journal object then commits the entry
 * once. The descriptor a journal object keeps between commits is re-checked under the lock: a
 * torn tail another writer left is cut, a replaced file is reopened.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { appendFile, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chainJournalFile,
  chainJournalLockFile,
  createFileChainJournal,
  createFileEffectLedger,
} from '../../src/chain/index.js';
import { LOCK_BODY_DIR } from '../../src/chain/jsonl-file.js';
import { tripEntries } from '../helpers/chain-journal-lock.js';
import { type FaultMode, faultyFs } from '../store/faulty-fs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-faults-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const calls = (trace: readonly string[], op: string) => trace.filter((t) => t.startsWith(`${op} `));

describe('file journal: one durable boundary per commit', () => {
  it('a commit is one lock, one write and one fsync; the creating commit also fsyncs the directory', async () => {
    const [e0, e1, e2] = await tripEntries();
    const f = faultyFs();
    const journal = createFileChainJournal(dir, { fs: f });
    const file = chainJournalFile(dir, 'trip-1');
    const lock = chainJournalLockFile(dir, 'trip-1');
    await journal.commit(e0);
    expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`, `fsync ${dir}`]);
    // the first lock in a directory writes this process's lock body once; locks are links to it
    const [body] = calls(f.trace, 'link').map((c) => c.split(' ')[1] as string);
    expect(body?.startsWith(join(dir, LOCK_BODY_DIR, ''))).toBe(true);
    expect(JSON.parse(readFileSync(body as string, 'utf8'))).toEqual({ host: hostname(), pid: process.pid });
    for (const e of [e1, e2]) {
      f.trace.length = 0;
      await journal.commit(e);
      expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`]);
      expect(calls(f.trace, 'link')).toEqual([`link ${body} ${lock}`]); // the lock: one link(2)
      expect(calls(f.trace, 'write')).toEqual([`write ${file}`]);
      expect(calls(f.trace, 'open')).toEqual([]); // no lock file made, the journal's descriptor kept
      expect(calls(f.trace, 'unlink')).toEqual([`unlink ${lock}`]);
      expect(calls(f.trace, 'lstat')).toEqual([`lstat ${file}`]); // the one check under the lock
      expect(f.trace).toHaveLength(5);
      expect(existsSync(lock)).toBe(false);
    }
    expect(f.unsyncedContent.has(file)).toBe(false);
    expect((await createFileChainJournal(dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1, 2,
    ]);
  });

  it('an effect-ledger put is one lock, one write and one fsync', async () => {
    const f = faultyFs();
    const ledger = createFileEffectLedger(dir, { fs: f });
    await ledger.put({ key: 'a', result: 1 });
    f.trace.length = 0;
    await ledger.put({ key: 'b', result: 2 });
    const file = join(dir, 'effects.jsonl');
    expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`]);
    expect(calls(f.trace, 'link')).toHaveLength(1);
    expect(calls(f.trace, 'write')).toEqual([`write ${file}`]);
    expect((await createFileEffectLedger(dir).records()).map((r) => r.key)).toEqual(['a', 'b']);
  });
});

describe('file journal: fault injection at every call of a commit', () => {
  for (const mode of ['eio', 'partial', 'enospc-nothing'] as FaultMode[]) {
    it(`${mode}: rejected commits leave the file as it was and no lock; resolved ones are durable`, async () => {
      const [e0, e1] = await tripEntries();
      const file = chainJournalFile(dir, 'trip-1');
      const lock = chainJournalLockFile(dir, 'trip-1');
      // the calls of one commit of e1 on a journal object that has not seen the file yet
      await createFileChainJournal(dir).commit(e0);
      const probe = faultyFs();
      await createFileChainJournal(join(dir, 'probe'), { fs: probe }).commit(e0);
      probe.trace.length = 0;
      await createFileChainJournal(join(dir, 'probe'), { fs: probe }).commit(e1);
      const n = probe.trace.length;
      expect(n).toBeGreaterThan(8);
      const before = readFileSync(file);
      let rejected = 0;
      for (let i = 0; i < n; i++) {
        const f = faultyFs();
        f.mode = mode;
        f.failAt = i;
        const journal = createFileChainJournal(dir, { fs: f });
        const outcome = await journal.commit(e1).then(
          () => 'resolved' as const,
          (e: unknown) => e,
        );
        const ctx = `failing call ${i} (${f.failed}) → ${outcome === 'resolved' ? outcome : String(outcome)}`;
        if (outcome === 'resolved') {
          expect(f.unsyncedContent.has(file), ctx).toBe(false);
          const got = await createFileChainJournal(dir).entries('trip-1');
          expect(
            got.map((e) => e.baton.revision),
            ctx,
          ).toEqual([0, 1]);
          // a failed lock removal leaves the lock (never broken): the next commit is busy
          if (f.failed?.startsWith('unlink')) {
            expect(existsSync(lock), ctx).toBe(true);
            await rm(lock);
          }
        } else {
          rejected++;
          expect(outcome, ctx).toMatchObject({ code: 'io_error' });
          expect(readFileSync(file).equals(before), `${ctx}: file changed`).toBe(true);
          expect(existsSync(lock), `${ctx}: lock left`).toBe(false);
          // the same object retries without faults: the entry is written once and durable
          f.failAt = -1;
          await journal.commit(e1);
          expect(f.unsyncedContent.has(file), ctx).toBe(false);
        }
        const got = await createFileChainJournal(dir).entries('trip-1');
        expect(
          got.map((e) => e.baton.revision),
          ctx,
        ).toEqual([0, 1]);
        // back to one committed entry for the next round
        writeFileSync(file, before);
      }
      expect(rejected).toBeGreaterThan(4);
    });
  }

  it('a failed fsync is not acknowledged and the unsynced line does not survive to be taken as committed', async () => {
    const [e0, e1] = await tripEntries();
    const f = faultyFs();
    const journal = createFileChainJournal(dir, { fs: f });
    await journal.commit(e0);
    const file = chainJournalFile(dir, 'trip-1');
    const before = readFileSync(file);
    f.trace.length = 0;
    f.failAt = 3; // lock link; journal lstat, write; → the fsync (checked below)
    await expect(journal.commit(e1)).rejects.toMatchObject({ code: 'io_error', details: { step: 'fsync' } });
    expect(f.failed).toBe(`fsync ${file}`);
    expect(readFileSync(file).equals(before)).toBe(true);
    // a retry is a real append (not a no-op on an unsynced duplicate)
    f.trace.length = 0;
    f.failAt = -1;
    await journal.commit(e1);
    expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`]);
    expect(f.unsyncedContent.has(file)).toBe(false);
  });
});

describe('file journal: the held descriptor is re-checked under the lock', () => {
  it('a torn tail another writer left after this object’s last commit is cut, not merged', async () => {
    const [e0, e1, e2] = await tripEntries();
    const journal = createFileChainJournal(dir);
    await journal.commit(e0);
    await journal.commit(e1);
    const file = chainJournalFile(dir, 'trip-1');
    await appendFile(file, '{"v":1,"baton_id":"trip-1","rev'); // a writer killed mid-write
    expect((await createFileChainJournal(dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1,
    ]);
    await journal.commit(e2);
    const text = readFileSync(file, 'utf8');
    expect(text.endsWith('\n')).toBe(true);
    expect(text.split('\n')).toHaveLength(4); // three complete lines
    expect((await createFileChainJournal(dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1, 2,
    ]);
  });

  it('a torn line that is not last is reported as damage, never accepted', async () => {
    const [e0, e1, e2] = await tripEntries();
    const journal = createFileChainJournal(dir);
    await journal.commit(e0);
    const file = chainJournalFile(dir, 'trip-1');
    const good = readFileSync(file, 'utf8');
    const l1 = JSON.stringify({
      v: 1,
      baton_id: 'trip-1',
      revision: 1,
      baton: e1.baton,
      receipt: e1.receipt,
    });
    writeFileSync(file, `${good}${l1.slice(0, 40)}\n`);
    await expect(createFileChainJournal(dir).loadLast('trip-1')).rejects.toMatchObject({
      code: 'journal_damaged',
      details: { line: 2 },
    });
    await expect(journal.commit(e2)).rejects.toMatchObject({ code: 'journal_damaged' });
  });

  it('a file replaced under a held descriptor is reopened: the commit lands in the file at the path', async () => {
    const [e0, e1] = await tripEntries();
    const journal = createFileChainJournal(dir);
    await journal.commit(e0);
    const file = chainJournalFile(dir, 'trip-1');
    const text = readFileSync(file);
    renameSync(file, `${file}.bak`);
    writeFileSync(file, text); // same history, another inode
    await journal.commit(e1);
    expect(readFileSync(`${file}.bak`).equals(text)).toBe(true);
    expect((await createFileChainJournal(dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1,
    ]);
  });
});
