/**
 * The fs ledger's durable boundary (`<problem>/log.jsonl`, gate-ledger-line/v1): one ledger entry
 * is one write and one fsync; a fresh log object reads the file once. Fault injection at every
 * file-system call of a reservation (EIO, a partial write, a write that writes nothing): a failed
 * reservation never grants twice — a retry grants (nothing visible) or replays (the line was
 * written) — and a granted entry is durable (its content fsync'd). A crash can only cut the file
 * after its last fsync'd byte: every such cut keeps every acknowledged entry and reports the torn
 * rest. A log object that cached earlier lines still fails closed on a gap or a damaged last line;
 * a hostile line for a taken seq (valid checksum, other content) cannot replace the entry.
 * Dual read: a problem written in the older one-file-per-entry format is read and continued.
 */
import { spawnSync } from 'node:child_process';
import {
  appendFileSync,
  mkdirSync,
  readFileSync,
  symlinkSync,
  truncateSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsLedger } from '../../src/gate/index.js';
import { LEDGER_LOG_FILE, ledgerLineText, parseLedgerLines } from '../../src/gate/ledger-line.js';
import type { LedgerEvent } from '../../src/gate/ledger-state.js';
import { type FaultMode, faultyFs } from '../store/faulty-fs.js';
import { live, PROFILE, req, rm, T0, tempDir } from './fixtures.js';

const tmp = tempDir('gate-ledger-faults-');
afterAll(() => rm(tmp));
let n = 0;
const fresh = () => join(tmp, String(n++));
const calls = (trace: readonly string[], op: string) => trace.filter((t) => t.startsWith(`${op} `));

/** The winning events of a log file's bytes (throws ledger_damaged like a read). */
function eventsOf(bytes: Buffer): { events: LedgerEvent[]; torn: { offset: number; bytes: number } | null } {
  const state = { events: [] as LedgerEvent[], nonces: [] as (string | null)[] };
  const p = parseLedgerLines('p1', bytes, state, 0);
  return { events: state.events, torn: p.torn };
}

async function registered(root: string): Promise<string> {
  await createFsLedger(root, { now: () => T0 }).register({
    problem_id: 'p1',
    profile: PROFILE,
    contract_revision: 1,
  });
  return join(root, 'p1', LEDGER_LOG_FILE);
}

describe('fs ledger: one durable boundary per entry', () => {
  it('an entry is one write and one fsync (of the log file); a fresh object opens the file once', async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    f.trace.length = 0;
    const g = await l.reserve(...live(req('k1')));
    expect(g.outcome).toBe('granted');
    expect(calls(f.trace, 'fsync')).toEqual([`fsync ${file}`]);
    expect(calls(f.trace, 'write')).toHaveLength(1);
    expect(calls(f.trace, 'link')).toEqual([]);
    expect(calls(f.trace, 'rename')).toEqual([]);
    expect(f.unsyncedContent.size).toBe(0);
    expect([...f.unsyncedEntries].filter((e) => e.startsWith(root))).toEqual([]);
    // a fresh object parses the file once
    const other = faultyFs();
    await createFsLedger(root, { now: () => T0, fs: other }).status('p1');
    expect(calls(other.trace, 'open').filter((c) => c.includes(LEDGER_LOG_FILE))).toEqual([`open ${file}`]);
    expect(eventsOf(readFileSync(file)).events.map((e) => e.seq)).toEqual([1, 2]);
  });

  it('a log object that cached earlier lines still fails closed on a gap or a damaged last line', async () => {
    const root = fresh();
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    await l.reserve(...live(req('k1')));
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    const events = eventsOf(readFileSync(file)).events;
    expect((await l.status('p1'))?.seq).toBe(2);
    const good = readFileSync(file);
    // a well-formed line that skips entry 3
    appendFileSync(
      file,
      ledgerLineText({ ...(events[1] as LedgerEvent), seq: 4 } as LedgerEvent, '0123456789abcdef'),
    );
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    writeFileSync(file, good);
    // a complete last line whose checksum does not match (edited, bit rot): never skipped
    const edited = ledgerLineText(
      { ...(events[1] as LedgerEvent), seq: 3 } as LedgerEvent,
      '0123456789abcdef',
    ).replace(/^./, (c) => (c === '0' ? '1' : '0'));
    appendFileSync(file, edited);
    await expect(createFsLedger(root, { now: () => T0 }).status('p1')).rejects.toMatchObject({
      code: 'ledger_damaged',
    });
  });

  it('hostile: a line for a taken seq with a valid checksum and other content cannot replace the entry', async () => {
    const root = fresh();
    const file = await registered(root);
    const l = createFsLedger(root, { now: () => T0 });
    const g = await l.reserve(...live(req('k1')));
    expect(g.outcome).toBe('granted');
    const [, second] = eventsOf(readFileSync(file)).events;
    const forged = JSON.parse(JSON.stringify(second)) as LedgerEvent & Record<string, unknown>;
    if ('grant' in forged && typeof forged.grant === 'object' && forged.grant !== null)
      (forged.grant as Record<string, unknown>).grant_id = `grt_${'f'.repeat(32)}`;
    appendFileSync(file, ledgerLineText(forged as LedgerEvent, 'ffffffffffffffff'));
    const again = createFsLedger(root, { now: () => T0 });
    const status = await again.status('p1');
    expect(status?.seq).toBe(2);
    expect(status?.grants.map((x) => x.grant_id)).toEqual([
      (g as { grant: { grant_id: string } }).grant.grant_id,
    ]);
    expect((await again.reserve(...live(req('k1')))).outcome).toBe('replayed');
  });
});

describe('fs ledger: hostile files', () => {
  it('a FIFO or a symlink planted as log.jsonl fails closed without hanging', async () => {
    const root = fresh();
    const file = await registered(root);
    const target = join(root, 'elsewhere.jsonl');
    const bytes = readFileSync(file);
    writeFileSync(target, bytes);
    unlinkSync(file);
    symlinkSync(target, file);
    await expect(createFsLedger(root, { now: () => T0 }).status('p1')).rejects.toMatchObject({
      code: 'ledger_damaged',
    });
    await expect(createFsLedger(root, { now: () => T0 }).reserve(...live(req('k1')))).rejects.toBeDefined();
    expect(readFileSync(target).equals(bytes)).toBe(true); // nothing written through the link
    unlinkSync(file);
    expect(spawnSync('mkfifo', [file]).status).toBe(0);
    await expect(createFsLedger(root, { now: () => T0 }).status('p1')).rejects.toMatchObject({
      code: 'ledger_damaged',
    });
  });
});

describe('fs ledger: crash cuts', () => {
  it('every cut after the last fsync keeps every acknowledged entry and reports the torn rest', async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const file = join(root, 'p1', LEDGER_LOG_FILE);
    const acknowledged: number[] = [];
    const g = await l.reserve(...live(req('k1')));
    if (g.outcome !== 'granted') throw new Error(g.outcome);
    expect(f.unsyncedContent.has(file)).toBe(false); // acknowledged: nothing of the file unsynced
    acknowledged.push(readFileSync(file).length);
    await l.start('p1', g.grant.grant_id);
    expect(f.unsyncedContent.has(file)).toBe(false);
    acknowledged.push(readFileSync(file).length);
    const whole = readFileSync(file);
    const ackCount = eventsOf(whole).events.length;
    // the next append's line, cut at every byte: what a crash during its write can leave
    const next = Buffer.from(
      ledgerLineText(
        { ...(eventsOf(whole).events[1] as LedgerEvent), seq: ackCount + 1 } as LedgerEvent,
        'aaaaaaaaaaaaaaaa',
      ),
    );
    for (let cut = 0; cut < next.length; cut++) {
      const bytes = Buffer.concat([whole, next.subarray(0, cut)]);
      const p = eventsOf(bytes);
      expect(p.events.length, `cut ${cut}`).toBe(ackCount);
      expect(p.torn, `cut ${cut}`).toEqual(cut === 0 ? null : { offset: whole.length, bytes: cut });
    }
    // a real torn tail, then the next writer: it starts a new line, every entry stays, the torn
    // bytes are residue
    appendFileSync(file, next.subarray(0, 40));
    const after = createFsLedger(root, { now: () => T0 });
    expect((await after.status('p1'))?.seq).toBe(ackCount);
    expect((await after.consume('p1', g.grant.grant_id)).state).toBe('consumed');
    const final = eventsOf(readFileSync(file));
    expect(final.events.length).toBe(ackCount + 1);
    expect(final.torn).toBeNull();
    expect(readFileSync(file).subarray(0, whole.length).equals(whole)).toBe(true);
    // cutting the file back to any acknowledged size loses nothing before it
    truncateSync(file, acknowledged[1] as number);
    expect((await createFsLedger(root, { now: () => T0 }).status('p1'))?.seq).toBe(
      eventsOf(readFileSync(file)).events.length,
    );
  });
});

describe("fs ledger: a new problem's directory and file", () => {
  it("are fsync'd into their parents when created; a file system refusing directory fsync (EINVAL) still registers", async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const fsynced = calls(f.trace, 'fsync');
    for (const parent of [join(root, '..'), root, join(root, 'p1')])
      expect(fsynced, parent).toContain(`fsync ${join(parent)}`);
    expect([...f.unsyncedEntries].filter((e) => e.startsWith(root))).toEqual([]);
    // the directory fsync after the file's creation, refused with EINVAL: the entry stands
    const probe = faultyFs();
    const root2 = fresh();
    mkdirSync(join(root2, 'p1'), { recursive: true });
    await createFsLedger(root2, { now: () => T0, fs: probe }).register({
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    });
    const createdAt = probe.trace.indexOf(`open ${join(root2, 'p1', LEDGER_LOG_FILE)}`);
    const dirFsync = probe.trace.findIndex((c, i) => i > createdAt && c === `fsync ${join(root2, 'p1')}`);
    expect(dirFsync).toBeGreaterThan(createdAt);
    const root3 = fresh();
    mkdirSync(join(root3, 'p1'), { recursive: true });
    const ein = faultyFs();
    ein.mode = 'einval';
    ein.failAt = dirFsync;
    await createFsLedger(root3, { now: () => T0, fs: ein }).register({
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    });
    expect(ein.failed).toBe(`fsync ${join(root3, 'p1')}`);
    expect((await createFsLedger(root3, { now: () => T0 }).status('p1'))?.seq).toBe(1);
  });
});

describe('fs ledger: fault injection at every call of a reservation', () => {
  for (const mode of ['eio', 'partial', 'enospc-nothing'] as FaultMode[]) {
    it(`${mode}: a failed reservation never grants twice; a granted entry is durable`, async () => {
      const probeRoot = fresh();
      await registered(probeRoot);
      const probe = faultyFs();
      await createFsLedger(probeRoot, { now: () => T0, fs: probe }).reserve(...live(req('k1')));
      const count = probe.trace.length;
      expect(count).toBeGreaterThanOrEqual(6);
      let failed = 0;
      for (let i = 0; i < count; i++) {
        const root = fresh();
        const file = await registered(root);
        const f = faultyFs();
        f.mode = mode;
        f.failAt = i;
        const l = createFsLedger(root, { now: () => T0, fs: f });
        const outcome = await l.reserve(...live(req('k1'))).then(
          (r) => r,
          (e: unknown) => e as Error,
        );
        const ctx = `failing call ${i} (${f.failed})`;
        if (outcome instanceof Error) {
          failed++;
          const visible = eventsOf(readFileSync(file)).events.length === 2;
          f.failAt = -1;
          // the line reached the file (only its fsync or the read-back failed): a retry replays it
          // (a line missing only its newline is closed by the retry's leading newline and counts, as
          // a line whose fsync failed does: the retry replays it)
          const retry = (await l.reserve(...live(req('k1')))).outcome;
          if (visible) expect(retry, ctx).toBe('replayed');
          else expect(['granted', 'replayed'], ctx).toContain(retry);
        } else {
          expect(outcome.outcome, ctx).toBe('granted');
          expect(f.unsyncedContent.has(file), ctx).toBe(false);
        }
        const again = createFsLedger(root, { now: () => T0 });
        const s = await again.status('p1');
        expect(s?.seq, ctx).toBe(2);
        expect(s?.grants, ctx).toHaveLength(1);
        expect((await again.reserve(...live(req('k1')))).outcome, ctx).toBe('replayed');
      }
      expect(failed).toBeGreaterThanOrEqual(mode === 'enospc-nothing' ? 1 : 4);
    });
  }
});

describe('fs ledger: the older one-file-per-entry format', () => {
  it('is read first and continued in log.jsonl; a line for a seq the old log holds fails closed', async () => {
    const root = fresh();
    const file = await registered(root);
    const l = createFsLedger(root, { now: () => T0 });
    await l.reserve(...live(req('k1')));
    const events = eventsOf(readFileSync(file)).events;
    // the same history as an earlier version wrote it: log/00000001.json … (JSON + newline)
    const oldRoot = fresh();
    mkdirSync(join(oldRoot, 'p1', 'log'), { recursive: true });
    for (const e of events)
      writeFileSync(
        join(oldRoot, 'p1', 'log', `${String(e.seq).padStart(8, '0')}.json`),
        `${JSON.stringify(e)}\n`,
      );
    const o = createFsLedger(oldRoot, { now: () => T0 });
    expect((await o.status('p1'))?.seq).toBe(2);
    expect((await o.reserve(...live(req('k1')))).outcome).toBe('replayed');
    const grant = (events[1] as LedgerEvent & { grant: { grant_id: string } }).grant;
    await o.consume('p1', grant.grant_id);
    // the new entry went to log.jsonl only, continuing the old seqs; the old files are unchanged
    const jsonl = join(oldRoot, 'p1', LEDGER_LOG_FILE);
    expect(readFileSync(jsonl, 'utf8').split('\n').filter(Boolean)).toHaveLength(1);
    expect(JSON.parse(readFileSync(jsonl, 'utf8').slice(65)).event.seq).toBe(3);
    expect(readFileSync(join(oldRoot, 'p1', 'log', '00000002.json'), 'utf8')).toBe(
      `${JSON.stringify(events[1])}\n`,
    );
    const fresh2 = createFsLedger(oldRoot, { now: () => T0 });
    expect((await fresh2.status('p1'))?.seq).toBe(3);
    expect((await fresh2.status('p1'))?.grants.map((x) => x.state)).toEqual(['consumed']);
    // an older version writing beside this one: both formats hold one seq → fail closed
    appendFileSync(jsonl, ledgerLineText(events[1] as LedgerEvent, '0123456789abcdef'));
    await expect(createFsLedger(oldRoot, { now: () => T0 }).status('p1')).rejects.toMatchObject({
      code: 'ledger_damaged',
    });
  });
});
