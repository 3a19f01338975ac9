/**
 * A person's explicit recovery of a chain journal lock: removed only when its body names this
 * host and a pid that is provably gone; a live holder, another host, an unreadable body or a
 * planted symlink are refused and left as they are. Real files; the holder's liveness is injected
 * for the pure cases and a real killed process is used for the end-to-end case.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readlinkSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chainJournalLockFile,
  createFileChainJournal,
  judgeChainLock,
  parseChainLockRecovery,
  readChainLockRecoveries,
  recoverChainJournalLock,
} from '../../src/chain/index.js';
import { tripBaton, tripChain } from './trip-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-recover-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

const here = { host: 'h1', isAlive: (pid: number) => pid === 77 };
const b = (s: string) => Buffer.from(s);

describe('judgeChainLock (pure)', () => {
  it('stale only for this host and a pid that does not run; everything else is held', () => {
    expect(judgeChainLock(b('{"host":"h1","pid":4242}\n'), here)).toEqual({
      stale: true,
      holder: { host: 'h1', pid: 4242 },
    });
    expect(judgeChainLock(b('{"host":"h1","pid":77}'), here)).toMatchObject({
      stale: false,
      reason: 'owner_alive',
    });
    expect(judgeChainLock(b('{"host":"h2","pid":4242}'), here)).toMatchObject({
      stale: false,
      reason: 'other_host',
    });
    for (const bad of [
      '',
      'x',
      '[]',
      '{"host":"h1"}',
      '{"host":"h1","pid":-1}',
      '{"host":"h1","pid":1,"x":1}',
      'a'.repeat(5000),
    ])
      expect(judgeChainLock(b(bad), here), bad.slice(0, 20)).toMatchObject({
        stale: false,
        reason: 'unreadable',
      });
    expect(judgeChainLock(Uint8Array.from([0xff, 0xfe]), here)).toMatchObject({ reason: 'unreadable' });
  });
});

describe('recoverChainJournalLock', () => {
  it('removes the lock of a killed holder of this host; the baton then resumes', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const journal = createFileChainJournal(dir);
    await journal.commit({ baton: b0, receipt: null });
    const lock = chainJournalLockFile(dir, 'trip-1');
    // a real process that ran and is gone: its pid is provably not running
    const gone = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
      encoding: 'utf8',
    });
    const pid = Number(gone.stdout);
    await writeFile(lock, `{"host":${JSON.stringify(hostname())},"pid":${pid}}\n`);
    await expect(chain.resume(journal, 'trip-1')).rejects.toMatchObject({ code: 'busy' });
    const at = '2026-12-02T12:00:00.123Z';
    const name = '20261202T120000123Z-0badf00d.json';
    const record = {
      schema: 'chain-lock-recovery/v1',
      baton_id: 'trip-1',
      lock: basename(lock),
      holder: { host: hostname(), pid },
      recovered_by: { host: hostname(), pid: 31337 },
      at,
    };
    expect(
      recoverChainJournalLock(dir, 'trip-1', { now: () => at, suffix: () => '0badf00d', pid: 31337 }),
    ).toEqual({
      outcome: 'removed',
      lock,
      holder: { host: hostname(), pid },
      journaled: { record, path: join(dir, 'lock-recoveries', name), cite: `lock-recoveries/${name}` },
    });
    expect(existsSync(lock)).toBe(false);
    // the record is on disk, one canonical line a reader parses back to what was done
    const text = await readFile(join(dir, 'lock-recoveries', name), 'utf8');
    const h = JSON.stringify(hostname());
    expect(text).toBe(
      `{"at":"${at}","baton_id":"trip-1","holder":{"host":${h},"pid":${pid}},"lock":"${basename(lock)}",` +
        `"recovered_by":{"host":${h},"pid":31337},"schema":"chain-lock-recovery/v1"}\n`,
    );
    expect(parseChainLockRecovery(text)).toEqual({ ok: true, value: record });
    expect(recoverChainJournalLock(dir, 'trip-1')).toEqual({ outcome: 'no_lock', lock });
    expect((await chain.resume(journal, 'trip-1')).baton.revision).toBe(3);
  });

  it('refuses a live holder, another host and an unreadable body, and leaves them byte for byte', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const cases: [string, string][] = [
      [`{"host":${JSON.stringify(hostname())},"pid":${process.pid}}\n`, 'owner_alive'],
      ['{"host":"elsewhere","pid":4242}\n', 'other_host'],
      ['not json', 'unreadable'],
    ];
    for (const [text, reason] of cases) {
      await writeFile(lock, text);
      expect(recoverChainJournalLock(dir, 'trip-1')).toMatchObject({ outcome: 'refused', reason });
      expect(await readFile(lock, 'utf8')).toBe(text);
    }
  });

  it('nothing is journaled for a refusal or a missing lock', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    expect(recoverChainJournalLock(dir, 'trip-1')).toEqual({ outcome: 'no_lock', lock });
    await writeFile(lock, '{"host":"elsewhere","pid":4242}\n');
    expect(recoverChainJournalLock(dir, 'trip-1')).toMatchObject({ outcome: 'refused' });
    expect(existsSync(join(dir, 'lock-recoveries'))).toBe(false);
  });

  it('two recoveries in one millisecond get two records; a taken name is skipped, never overwritten', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const body = `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`;
    const at = '2026-12-02T12:00:00.000Z';
    const suffixes = ['aaaaaaaa', 'aaaaaaaa', 'bbbbbbbb'];
    const opts = { now: () => at, suffix: () => suffixes.shift() ?? 'cccccccc', isAlive: () => false };
    await writeFile(lock, body);
    const first = recoverChainJournalLock(dir, 'trip-1', opts);
    await writeFile(lock, body);
    const second = recoverChainJournalLock(dir, 'trip-1', opts);
    expect(first).toMatchObject({ journaled: { cite: 'lock-recoveries/20261202T120000000Z-aaaaaaaa.json' } });
    expect(second).toMatchObject({
      journaled: { cite: 'lock-recoveries/20261202T120000000Z-bbbbbbbb.json' },
    });
    expect((await readdir(join(dir, 'lock-recoveries'))).sort()).toEqual([
      '20261202T120000000Z-aaaaaaaa.json',
      '20261202T120000000Z-bbbbbbbb.json',
    ]);
  });

  it('hostile: a symlink planted at lock-recoveries/ is not written through; the removal says it was not journaled', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const elsewhere = await mkdtemp(join(tmpdir(), 'chain-recover-elsewhere-'));
    try {
      await symlink(elsewhere, join(dir, 'lock-recoveries'));
      await writeFile(lock, `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`);
      const r = recoverChainJournalLock(dir, 'trip-1', { isAlive: () => false });
      expect(r).toMatchObject({ outcome: 'removed', journaled: null });
      expect(r.outcome === 'removed' ? r.record_error : '').toMatch(/not a directory/);
      expect(await readdir(elsewhere)).toEqual([]);
    } finally {
      await rm(elsewhere, { recursive: true, force: true });
    }
  });

  it('readChainLockRecoveries: one baton’s records in time order; a symlinked directory or entry is listed, never followed', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const body = `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`;
    const times = ['2026-12-02T12:00:02.000Z', '2026-12-02T12:00:01.000Z'];
    for (const at of times) {
      await writeFile(lock, body);
      recoverChainJournalLock(dir, 'trip-1', { now: () => at, isAlive: () => false });
    }
    const found = readChainLockRecoveries(dir, 'trip-1');
    expect(found.recoveries.map((r) => r.record.at)).toEqual([...times].sort());
    expect(found.unreadable).toEqual([]);
    expect(readChainLockRecoveries(dir, 'other-baton').recoveries).toEqual([]);
    const outside = join(dir, 'outside.json');
    await writeFile(outside, JSON.stringify(found.recoveries[0]?.record));
    await symlink(outside, join(dir, 'lock-recoveries', 'zz.json'));
    expect(readChainLockRecoveries(dir, 'trip-1').unreadable).toEqual([
      { cite: 'lock-recoveries/zz.json', detail: 'not a regular file: not read' },
    ]);
    // hostile: a FIFO there is not waited on; an oversized file is not read
    execFileSync('mkfifo', [join(dir, 'lock-recoveries', 'zy.json')]);
    await writeFile(join(dir, 'lock-recoveries', 'zx.json'), 'x'.repeat(64 * 1024 + 1));
    expect(readChainLockRecoveries(dir, 'trip-1').unreadable).toEqual([
      { cite: 'lock-recoveries/zx.json', detail: 'more than 65536 bytes: too large for a recovery record' },
      { cite: 'lock-recoveries/zy.json', detail: 'not a regular file: not read' },
      { cite: 'lock-recoveries/zz.json', detail: 'not a regular file: not read' },
    ]);
    const other = await mkdtemp(join(tmpdir(), 'chain-recover-linked-'));
    try {
      await symlink(join(dir, 'lock-recoveries'), join(other, 'lock-recoveries'));
      expect(readChainLockRecoveries(other, 'trip-1')).toEqual({
        recoveries: [],
        unreadable: [{ cite: 'lock-recoveries', detail: 'not a directory (a symlink or a file): not read' }],
      });
      expect(readChainLockRecoveries(join(other, 'missing'), 'trip-1')).toEqual({
        recoveries: [],
        unreadable: [],
      });
    } finally {
      await rm(other, { recursive: true, force: true });
    }
  });

  it('parseChainLockRecovery never throws and refuses what is not a record', () => {
    for (const bad of ['', '{', '[]', '{"schema":"chain-lock-recovery/v1"}', '{"schema":"x"}'])
      expect(parseChainLockRecovery(bad).ok, bad).toBe(false);
    const ok = {
      schema: 'chain-lock-recovery/v1',
      baton_id: 'b',
      lock: 'baton-1.jsonl.lock',
      holder: { host: 'h', pid: 1 },
      recovered_by: { host: 'h', pid: 2 },
      at: '2026-12-02T12:00:00.000Z',
    };
    expect(parseChainLockRecovery(JSON.stringify(ok))).toEqual({ ok: true, value: ok });
    expect(parseChainLockRecovery(JSON.stringify({ ...ok, lock: '../x' })).ok).toBe(false);
    expect(parseChainLockRecovery(JSON.stringify({ ...ok, extra: 1 })).ok).toBe(false);
  });

  it('hostile: a symlink planted at the lock path is not followed and not removed', async () => {
    const lock = chainJournalLockFile(dir, 'trip-1');
    const target = join(dir, 'victim');
    await writeFile(target, `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`);
    await symlink(target, lock);
    expect(recoverChainJournalLock(dir, 'trip-1', { isAlive: () => false })).toMatchObject({
      outcome: 'refused',
      reason: 'not_a_file',
    });
    expect(readlinkSync(lock)).toBe(target);
    expect(existsSync(target)).toBe(true);
  });
});
