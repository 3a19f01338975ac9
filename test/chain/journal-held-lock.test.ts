/**
 * The file journal's opt-in single-writer mode (`holdLocks`): a baton's lock is taken by its first
 * commit with O_EXCL and held — re-checked by one lstat per commit — until the run ends, `release`,
 * `close`, the cap of held locks, or process exit. Every other writer is refused with `busy` as
 * before; a lock removed behind the holder is taken afresh and the journal re-read, a lock replaced
 * behind it is never touched (`busy`); a holder killed with SIGKILL leaves its lock, which nothing
 * breaks (a person removes it once no writer runs, then the baton resumes). The process tests run
 * real child processes against the built library (`npm run build` first).
 */
import { existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  chainJournalFile,
  chainJournalLockFile,
  createFileChainJournal,
  HELD_APPEND_LOCKS,
  recoverChainJournalLock,
  stageDelta,
} from '../../src/chain/index.js';
import { LOCK_BODY_DIR } from '../../src/chain/jsonl-file.js';
import {
  exists,
  expectOneHistoryPerBaton,
  tripEntries,
  useJournalDir,
} from '../helpers/chain-journal-lock.js';
import { type FaultMode, faultyFs } from '../store/faulty-fs.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

const tmp = useJournalDir('chain-held-');

const calls = (trace: readonly string[], op: string) => trace.filter((t) => t.startsWith(`${op} `));

const batonOf = (chain: ReturnType<typeof tripChain>, id: string) =>
  chain.newBaton({
    baton_id: id,
    intent: 'x',
    facts: { request_id: { value: 'req-7', evidence: ['chat://msg/0'] } },
  });

const body = () => ({ host: hostname(), pid: process.pid });

describe('file journal with holdLocks (in process)', () => {
  it('takes the lock once (a link to this process’s lock body, naming it); a later commit is one lstat of the lock, one of the file, one write, one fsync', async () => {
    const [e0, e1, e2] = await tripEntries();
    const f = faultyFs();
    const journal = createFileChainJournal(tmp.dir, { fs: f, holdLocks: true });
    const file = chainJournalFile(tmp.dir, 'trip-1');
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    await journal.commit(e0);
    const links = calls(f.trace, 'link');
    expect(links).toHaveLength(1); // the lock: one link(2) to this process's lock body
    expect(links[0]?.endsWith(` ${lock}`)).toBe(true);
    expect(links[0]?.startsWith(`link ${join(tmp.dir, LOCK_BODY_DIR, '')}`)).toBe(true);
    expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`, `fsync ${tmp.dir}`]);
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(body());
    const ino = lstatSync(lock).ino;
    for (const e of [e1, e2]) {
      f.trace.length = 0;
      await journal.commit(e);
      expect(f.trace).toEqual([`lstat ${lock}`, `lstat ${file}`, `write ${file}`, `fsync ${file}`]);
      expect(lstatSync(lock).ino).toBe(ino); // the same lock file, held
    }
    expect(f.unsyncedContent.has(file)).toBe(false);
    f.trace.length = 0;
    await journal.release('trip-1');
    expect(f.trace).toEqual([`lstat ${lock}`, `unlink ${lock}`]);
    expect(existsSync(lock)).toBe(false);
    expect((await createFileChainJournal(tmp.dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1, 2,
    ]);
  });

  it('where lock bodies cannot be used (a planted .lock-bodies symlink) the held lock is an O_EXCL file of its own, pinned by its descriptor', async () => {
    const [e0, e1] = await tripEntries();
    await mkdir(tmp.dir, { recursive: true });
    const elsewhere = await mkdtemp(join(tmpdir(), 'chain-held-elsewhere-'));
    await symlink(elsewhere, join(tmp.dir, LOCK_BODY_DIR));
    try {
      const f = faultyFs();
      const journal = createFileChainJournal(tmp.dir, { fs: f, holdLocks: true });
      const lock = chainJournalLockFile(tmp.dir, 'trip-1');
      await journal.commit(e0);
      expect(calls(f.trace, 'link')).toEqual([]);
      expect(calls(f.trace, 'open')).toContain(`open ${lock}`);
      expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(body());
      expect(lstatSync(lock).nlink).toBe(1);
      const ino = lstatSync(lock).ino;
      await rm(lock); // removed behind the holder: taken afresh, and never with the old inode
      await journal.commit(e1);
      expect(lstatSync(lock).ino).not.toBe(ino);
      await journal.close();
      expect(existsSync(lock)).toBe(false);
      expect(readdirSync(elsewhere)).toEqual([]); // nothing was written through the symlink
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('chain.run holds the lock for the run and releases it when the run ends (accepted or stopped)', async () => {
    const chain = tripChain();
    const journal = createFileChainJournal(tmp.dir, { holdLocks: true });
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    const seen: boolean[] = [];
    const r = await chain.run(tripBaton(chain), {
      journal,
      onCommit: async () => {
        seen.push(existsSync(lock));
      },
    });
    expect(r.baton.revision).toBe(3);
    expect(seen).toEqual([true, true, true]); // held between commits
    expect(existsSync(lock)).toBe(false);
    // a run the chain stops at a seam releases the lock too
    const bad = goodStages();
    bad.intent = () => stageDelta({ city: { value: 42, evidence: ['chat://1'] } });
    const stopping = tripChain(bad);
    const b0 = batonOf(stopping, 'trip-2');
    await expect(stopping.run(b0, { journal })).rejects.toMatchObject({ code: expect.any(String) });
    expect(existsSync(chainJournalLockFile(tmp.dir, 'trip-2'))).toBe(false);
    expect((await journal.entries('trip-2')).map((e) => e.baton.revision)).toEqual([0]);
  });

  it('a second writer — another journal object, per-commit or held — is refused with busy while the lock is held; nothing is written', async () => {
    const [e0, e1] = await tripEntries();
    const holder = createFileChainJournal(tmp.dir, { holdLocks: true });
    await holder.commit(e0);
    const file = chainJournalFile(tmp.dir, 'trip-1');
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    const before = readFileSync(file);
    for (const other of [
      createFileChainJournal(tmp.dir),
      createFileChainJournal(tmp.dir, { holdLocks: true }),
    ]) {
      await expect(other.commit(e1)).rejects.toMatchObject({
        code: 'busy',
        details: { lock, holder: body() },
      });
      await other.close(); // releases nothing of the holder's
      expect(existsSync(lock)).toBe(true);
    }
    expect(readFileSync(file).equals(before)).toBe(true);
    await holder.commit(e1);
    await holder.close();
    expect(existsSync(lock)).toBe(false);
    expect((await createFileChainJournal(tmp.dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0, 1,
    ]);
  });

  it('a lock removed behind the holder is detected: taken afresh with O_EXCL and the history re-read (another writer’s commit is seen, never overwritten)', async () => {
    const [e0, e1, e2] = await tripEntries();
    const other = goodStages();
    other.intent = () =>
      stageDelta({
        city: { value: 'Beijing', evidence: ['chat://2'] },
        policy: { value: { latest_departure: '20:00' }, evidence: ['policy://travel/v3'] },
      });
    const c1b = await tripChain(other).advance(e0.baton);
    const holder = createFileChainJournal(tmp.dir, { holdLocks: true });
    await holder.commit(e0);
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    await rm(lock); // a person (wrongly) removed it while the holder ran
    await createFileChainJournal(tmp.dir).commit(e1); // and another writer committed meanwhile
    // the holder's own next revision 1 is refused: the re-read history already has another one
    await expect(holder.commit({ baton: c1b.baton, receipt: c1b.receipt })).rejects.toMatchObject({
      code: 'journal_conflict',
    });
    expect(JSON.parse(readFileSync(lock, 'utf8'))).toEqual(body()); // taken afresh by the holder
    await holder.commit(e1); // the same state: a no-op
    await holder.commit(e2);
    expect((await createFileChainJournal(tmp.dir).entries('trip-1')).map((e) => e.baton.snapshot_id)).toEqual(
      [e0.baton.snapshot_id, e1.baton.snapshot_id, e2.baton.snapshot_id],
    );
    await holder.close();
    expect(existsSync(lock)).toBe(false);
  });

  it('a lock replaced behind the holder is not its own any more: busy, and the replacement is never touched', async () => {
    const [e0, e1] = await tripEntries();
    const holder = createFileChainJournal(tmp.dir, { holdLocks: true });
    await holder.commit(e0);
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    await rm(lock);
    await writeFile(lock, '{"host":"elsewhere","pid":4242}\n'); // another writer's lock now
    await expect(holder.commit(e1)).rejects.toMatchObject({
      code: 'busy',
      details: { holder: { host: 'elsewhere', pid: 4242 } },
    });
    await holder.release('trip-1');
    await holder.close();
    expect(readFileSync(lock, 'utf8')).toBe('{"host":"elsewhere","pid":4242}\n');
    expect((await createFileChainJournal(tmp.dir).entries('trip-1')).map((e) => e.baton.revision)).toEqual([
      0,
    ]);
  });

  it('hostile: a symlink planted at the lock path is never followed (busy; its target is not created or written)', async () => {
    const [e0] = await tripEntries();
    await mkdir(tmp.dir, { recursive: true });
    const lock = chainJournalLockFile(tmp.dir, 'trip-1');
    const target = join(tmp.dir, 'victim');
    await symlink(target, lock); // dangling: an O_CREAT that followed it would create the victim
    const journal = createFileChainJournal(tmp.dir, { holdLocks: true });
    await expect(journal.commit(e0)).rejects.toMatchObject({ code: 'busy' });
    expect(existsSync(target)).toBe(false);
    writeFileSync(target, 'precious\n');
    await expect(journal.commit(e0)).rejects.toMatchObject({ code: 'busy', details: { holder: null } });
    await journal.close();
    expect(readFileSync(target, 'utf8')).toBe('precious\n');
    expect(readlinkSync(lock)).toBe(target); // left as planted: never broken
    expect(await exists(chainJournalFile(tmp.dir, 'trip-1'))).toBe(false);
  });

  it(`holds at most ${HELD_APPEND_LOCKS} batons' locks: the least recently used is released first`, async () => {
    const chain = tripChain();
    const journal = createFileChainJournal(tmp.dir, { holdLocks: true });
    const ids = Array.from({ length: HELD_APPEND_LOCKS + 2 }, (_, i) => `b-${i}`);
    for (const id of ids) await journal.commit({ baton: batonOf(chain, id), receipt: null });
    const held = ids.map((id) => existsSync(chainJournalLockFile(tmp.dir, id)));
    expect(held).toEqual([false, false, ...ids.slice(2).map(() => true)]);
    await journal.close();
    expect(ids.some((id) => existsSync(chainJournalLockFile(tmp.dir, id)))).toBe(false);
  });

  for (const mode of ['eio', 'partial'] as FaultMode[]) {
    it(`${mode}: a held-mode commit failing at any call leaves the file as it was; a retry commits once`, async () => {
      const [e0, e1] = await tripEntries();
      const file = chainJournalFile(tmp.dir, 'trip-1');
      const lock = chainJournalLockFile(tmp.dir, 'trip-1');
      await createFileChainJournal(tmp.dir).commit(e0);
      const before = readFileSync(file);
      // the calls of a commit of e1 by a held-mode object that has not seen the file yet
      const probe = faultyFs();
      await createFileChainJournal(join(tmp.dir, 'probe'), { fs: probe }).commit(e0);
      probe.trace.length = 0;
      const pj = createFileChainJournal(join(tmp.dir, 'probe'), { fs: probe, holdLocks: true });
      await pj.commit(e1);
      await pj.close(); // its release's calls too
      const n = probe.trace.length;
      expect(n).toBeGreaterThan(6);
      let rejected = 0;
      for (let i = 0; i < n; i++) {
        const f = faultyFs();
        f.mode = mode;
        f.failAt = i;
        const journal = createFileChainJournal(tmp.dir, { fs: f, holdLocks: true });
        const outcome = await journal.commit(e1).then(
          () => 'resolved' as const,
          (e: unknown) => e,
        );
        const ctx = `failing call ${i} (${f.failed}) → ${outcome === 'resolved' ? outcome : String(outcome)}`;
        if (outcome !== 'resolved') {
          rejected++;
          expect(outcome, ctx).toMatchObject({ code: 'io_error' });
          expect(readFileSync(file).equals(before), `${ctx}: file changed`).toBe(true);
          f.failAt = -1;
          await journal.commit(e1); // the same object retries: written once, durable
        }
        expect(f.unsyncedContent.has(file), ctx).toBe(false);
        const failedBefore = f.failed;
        await journal.close();
        if (existsSync(lock)) {
          // only a fault in the release itself leaves the lock: one that cannot be checked or
          // removed stays (never broken)
          expect(failedBefore, ctx).toBeNull();
          expect(f.failed, ctx).toMatch(/^(lstat|unlink) /);
          await rm(lock);
        }
        expect(existsSync(lock), `${ctx}: lock left after close (${f.failed})`).toBe(false);
        expect(
          (await createFileChainJournal(tmp.dir).entries('trip-1')).map((e) => e.baton.revision),
          ctx,
        ).toEqual([0, 1]);
        writeFileSync(file, before);
      }
      expect(rejected).toBeGreaterThan(3);
    });
  }
});

describe('file journal with holdLocks (real processes)', () => {
  it('a held lock refuses another process (busy); the holder’s exit releases it', async () => {
    const holder = await tmp.holder('hold-held', 'race-0');
    const lock = chainJournalLockFile(tmp.dir, 'race-0');
    expect(JSON.parse(await readFile(lock, 'utf8'))).toEqual({ host: hostname(), pid: holder.child.pid });
    expect(await tmp.run(['run', tmp.dir, 'a', '1'])).toEqual({ 'race-0': 'busy' });
    expect(await tmp.run(['run', tmp.dir, 'a', '1', 'held'])).toEqual({ 'race-0': 'busy' });
    holder.child.stdin?.end();
    const r = await holder.done;
    expect(r.out).toContain('EXITING\n');
    expect(await exists(lock)).toBe(false); // released by the exit hook
    expect(await tmp.run(['run', tmp.dir, 'a', '1', 'held'])).toEqual({ 'race-0': 'accepted' });
    expect(await exists(lock)).toBe(false); // released when the run ended
    expect((await createFileChainJournal(tmp.dir).loadLast('race-0'))?.revision).toBe(3);
  }, 30_000);

  it('SIGKILL while holding leaves the lock: never broken (busy) until a person removes it; then the baton resumes', async () => {
    const holder = await tmp.holder('hold-held', 'race-0');
    holder.child.kill('SIGKILL');
    expect((await holder.done).signal).toBe('SIGKILL');
    const lock = chainJournalLockFile(tmp.dir, 'race-0');
    expect(JSON.parse(await readFile(lock, 'utf8'))).toEqual({ host: hostname(), pid: holder.child.pid });
    // the acknowledged start baton survived the kill
    expect((await createFileChainJournal(tmp.dir).entries('race-0')).map((e) => e.baton.revision)).toEqual([
      0,
    ]);
    expect(await tmp.run(['run', tmp.dir, 'a', '1', 'held'])).toEqual({ 'race-0': 'busy' });
    expect(await exists(lock)).toBe(true);
    // the documented recovery, run by a person: the holder is provably gone (same host, no such pid)
    expect(recoverChainJournalLock(tmp.dir, 'race-0')).toMatchObject({
      outcome: 'removed',
      holder: { host: hostname(), pid: holder.child.pid },
    });
    expect(await tmp.run(['run', tmp.dir, 'a', '1', 'held'])).toEqual({ 'race-0': 'accepted' });
    expect((await createFileChainJournal(tmp.dir).entries('race-0')).map((e) => e.baton.revision)).toEqual([
      0, 1, 2, 3,
    ]);
  }, 30_000);

  it('two held-mode processes racing on the same batons never interleave', async () => {
    const n = 10;
    const [oa, ob] = await tmp.race(n, ['held']);
    await expectOneHistoryPerBaton(tmp.dir, n, oa, ob);
  }, 30_000);
});
