/**
 * The fs ledger's held descriptors (issue 15, the hot path): a log object keeps each problem's
 * `log.jsonl` open, and every call still checks by path that the held file is the file at
 * `<problem>/log.jsonl`. A steady append opens, closes and lists nothing; a replaced, removed or
 * symlinked log is noticed at the next call exactly as a fresh object would; bytes another writer
 * appended after this object's parse (a line, a torn tail) are parsed before they matter; a line a
 * rival slips in between this object's check and its write is found by the read-back (the append
 * is lost, never claimed). Descriptors are bounded (`maxHeld`) and `close()` releases them.
 */
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  renameSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { FsLayer } from '../../src/durable/index.js';
import { createFsLedger, fsLedgerLog } from '../../src/gate/index.js';
import { LEDGER_LOG_FILE, ledgerLineText, parseLedgerLines } from '../../src/gate/ledger-line.js';
import type { LedgerEvent } from '../../src/gate/ledger-state.js';
import { leadHandoffEvent, registeredEvent } from '../helpers/ledger-events.js';
import { faultyFs } from '../store/faulty-fs.js';
import { live, PROFILE, req, rm, T0, tempDir } from './fixtures.js';

const tmp = tempDir('gate-ledger-held-');
afterAll(() => rm(tmp));
let n = 0;
const fresh = () => join(tmp, String(n++));

const registered = registeredEvent;
const handoff = leadHandoffEvent;

function parse(file: string) {
  const state = { events: [] as LedgerEvent[], nonces: [] as (string | null)[] };
  const p = parseLedgerLines('p1', readFileSync(file), state, 0);
  return { ...state, ...p };
}

describe('fs ledger: the steady append', () => {
  it('on a held descriptor: one lstat, one write, one fsync, one read-back — no open, close or listing', async () => {
    const root = fresh();
    const f = faultyFs();
    const log = fsLedgerLog(root, { fs: f });
    expect(await log.append('p1', registered('p1'))).toBe(true);
    expect(await log.append('p1', handoff(2))).toBe(true);
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    f.trace.length = 0;
    expect(await log.append('p1', handoff(3))).toBe(true);
    expect(f.trace.map((c) => c.split(' ')[0])).toEqual(['lstat', 'write', 'fsync', 'read']);
    expect(f.trace.every((c) => c.endsWith(file))).toBe(true);
    expect(f.unsyncedContent.has(file)).toBe(false);
    // what the cache says is what the file says
    expect(await log.read('p1')).toEqual(parse(file).events);
    expect(parse(file).events.map((e) => e.seq)).toEqual([1, 2, 3]);
    log.close();
  });
});

describe('fs ledger: a read of a held log', () => {
  it('checks the file and the problem directory (two lstats), lists nothing while no log/ can exist; a log/ that appears is read at once', async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    f.trace.length = 0;
    expect((await l.status('p1'))?.seq).toBe(1);
    expect(f.trace).toEqual([`lstat ${join(root, 'p1', LEDGER_LOG_FILE)}`, `lstat ${join(root, 'p1')}`]);
    // an older version's entry appears beside the held log: the same object sees it on its next call
    mkdirSync(join(root, 'p1', 'log'));
    writeFileSync(join(root, 'p1', 'log', '00000002.json'), '{}');
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    expect(f.trace).toContain(`readdir ${join(root, 'p1', 'log')}`);
  });
});

describe('fs ledger: a new problem', () => {
  it('a first read is one lstat of the problem directory, asked through the injected layer (its faults apply); a failing one is listed as before', async () => {
    const root = fresh();
    const f = faultyFs();
    const log = fsLedgerLog(root, { fs: f });
    const limit = Error.stackTraceLimit;
    expect(await log.read('p1')).toBeNull();
    expect(f.trace).toEqual([`lstat ${join(root, 'p1')}`]);
    expect(Error.stackTraceLimit).toBe(limit);
    // an injected EIO on that lstat: the older log is listed instead (none), then the log file
    f.trace.length = 0;
    f.failAt = 0;
    expect(await log.read('p2')).toBeNull();
    expect(f.failed).toBe(`lstat ${join(root, 'p2')}`);
    expect(f.trace.map((c) => c.split(' ')[0])).toEqual(['lstat', 'readdir', 'open']);
    // errors after it still carry their stacks
    expect(Error.stackTraceLimit).toBe(limit);
    expect(String(new Error('x').stack)).toContain('\n    at ');
    log.close();
  });

  it('hostile: a path-unsafe problem id is refused on every call, never cached as a path', async () => {
    const root = fresh();
    const f = faultyFs();
    const log = fsLedgerLog(root, { fs: f });
    for (const id of ['../escape', '../escape', 'a/b', '']) {
      await expect(log.read(id)).rejects.toMatchObject({ code: 'invalid_input' });
      await expect(log.append(id, registered('p1'))).rejects.toMatchObject({ code: 'invalid_input' });
    }
    expect(f.trace).toEqual([]);
    log.close();
  });
});

describe('fs ledger: a held descriptor follows the path', () => {
  it('a log replaced by rename is read (and appended to) as the new file, never through the old descriptor', async () => {
    const root = fresh();
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g = await l.reserve(...live(req('k1')));
    expect(g.outcome).toBe('granted');
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    // the registration only, as a new file renamed over the log
    const [first] = readFileSync(file, 'utf8').split('\n');
    writeFileSync(join(root, 'p1', 'next.jsonl'), `${first}\n`);
    renameSync(join(root, 'p1', 'next.jsonl'), file);
    expect((await l.status('p1'))?.seq).toBe(1);
    const again = await l.reserve(...live(req('k2', 'd'.repeat(64))));
    expect(again.outcome).toBe('granted');
    // the new entry is in the file at the path (the old inode is gone with its descriptor)
    expect(parse(file).events.map((e) => e.type)).toEqual(['registered', 'reserved']);
    expect(await createFsLedger(root, { now: () => T0 }).status('p1')).toMatchObject({ seq: 2 });
  });

  it('a removed log is history missing, at once', async () => {
    const root = fresh();
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    unlinkSync(join(root, 'p1', LEDGER_LOG_FILE));
    expect(await l.status('p1')).toBeNull();
    expect(await l.reserve(...live(req('k1')))).toMatchObject({
      outcome: 'refused',
      reason: 'history_missing',
    });
  });

  it('hostile: a symlink planted over a held log fails closed and nothing is written through it', async () => {
    const root = fresh();
    const log = fsLedgerLog(root);
    expect(await log.append('p1', registered('p1'))).toBe(true);
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    const target = join(root, 'elsewhere.jsonl');
    const bytes = readFileSync(file);
    writeFileSync(target, bytes);
    unlinkSync(file);
    symlinkSync(target, file);
    await expect(log.read('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    await expect(log.append('p1', handoff(2))).rejects.toBeDefined();
    expect(readFileSync(target).equals(bytes)).toBe(true);
    log.close();
  });
});

describe('fs ledger: other writers of a held log', () => {
  it("another writer's line after this object's parse: its append loses the seq and its read shows the winner", async () => {
    const root = fresh();
    const mine = fsLedgerLog(root);
    const theirs = fsLedgerLog(root);
    expect(await mine.append('p1', registered('p1'))).toBe(true);
    expect(await theirs.append('p1', handoff(2, 'theirs'))).toBe(true);
    expect(await mine.append('p1', handoff(2, 'mine'))).toBe(false);
    expect((await mine.read('p1'))?.map((e) => (e.type === 'lead-handoff' ? e.route : e.type))).toEqual([
      'registered',
      'theirs',
    ]);
    expect(await mine.append('p1', handoff(3, 'mine'))).toBe(true);
    expect((await theirs.read('p1'))?.length).toBe(3);
    mine.close();
    theirs.close();
  });

  it("another writer's torn tail after this object's parse: the next line starts on a new line", async () => {
    const root = fresh();
    const log = fsLedgerLog(root);
    expect(await log.append('p1', registered('p1'))).toBe(true);
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    const before = readFileSync(file).length;
    // a crashed writer's half line, appended behind this object's back
    appendFileSync(file, ledgerLineText(handoff(2, 'crashed'), 'cccccccccccccccc').slice(0, 50));
    expect(await log.append('p1', handoff(2))).toBe(true);
    const p = parse(file);
    expect(p.events.map((e) => e.seq)).toEqual([1, 2]);
    expect(p.events[1]).toMatchObject({ route: 'lead' });
    expect(p.residue).toEqual([2]);
    expect(readFileSync(file)[before + 50]).toBe(0x0a); // the torn bytes were closed by a newline
    log.close();
  });

  it('hostile: a rival line slipped in between the check and the write is found by the read-back (lost, never claimed)', async () => {
    const root = fresh();
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    const base = faultyFs();
    let rival: Buffer | null = null;
    // the rival appends its own line for the same seq just before this object's write lands
    const fs: FsLayer = {
      ...base,
      write(fd, b, o, l) {
        if (rival !== null) {
          appendFileSync(file, rival);
          rival = null;
        }
        return base.write(fd, b, o, l);
      },
    };
    const log = fsLedgerLog(root, { fs });
    expect(await log.append('p1', registered('p1'))).toBe(true);
    rival = Buffer.from(ledgerLineText(handoff(2, 'rival'), 'ffffffffffffffff'));
    expect(await log.append('p1', handoff(2, 'mine'))).toBe(false);
    const p = parse(file);
    expect(p.events.map((e) => (e.type === 'lead-handoff' ? e.route : e.type))).toEqual([
      'registered',
      'rival',
    ]);
    expect(p.losers).toBe(1);
    expect((await log.read('p1'))?.[1]).toMatchObject({ route: 'rival' });
    log.close();
  });
});

describe('fs ledger: descriptors are bounded', () => {
  it('at most maxHeld logs stay open; close() closes the rest; the log stays usable', async () => {
    const root = fresh();
    const f = faultyFs();
    const isLog = (p: string | undefined) => p?.endsWith(LEDGER_LOG_FILE) === true;
    const fds = new Map<number, string>();
    const closed: string[] = [];
    // counts the log descriptors really open (a failed open is no descriptor)
    const counting: FsLayer = {
      ...f,
      open(p, flags, mode) {
        const fd = f.open(p, flags, mode);
        if (isLog(p)) fds.set(fd, p);
        return fd;
      },
      close(fd) {
        const p = fds.get(fd);
        fds.delete(fd);
        if (p !== undefined) closed.push(p);
        f.close(fd);
      },
    };
    const log = fsLedgerLog(root, { fs: counting, maxHeld: 2 });
    const open = () => fds.size;
    for (const p of ['a1', 'a2', 'a3']) expect(await log.append(p, registered(p))).toBe(true);
    expect(open()).toBe(2);
    // the least recently used (a1) was closed: using it reopens it and closes a2
    expect(await log.append('a1', handoff(2))).toBe(true);
    expect(open()).toBe(2);
    expect(closed).toEqual([join(root, 'a1', LEDGER_LOG_FILE), join(root, 'a2', LEDGER_LOG_FILE)]);
    log.close();
    expect(open()).toBe(0);
    expect((await log.read('a1'))?.map((e) => e.seq)).toEqual([1, 2]);
    expect((await log.read('a3'))?.map((e) => e.seq)).toEqual([1]);
    log.close();
    expect(open()).toBe(0);
  });
});
