/**
 * The fs ledger's durable boundary: one ledger entry is one temp write, one fsync, one `link(2)`
 * and one directory fsync; reads list the log once and parse only entries the log object has not
 * parsed yet. Fault injection at every file-system call of a reservation (EIO, a partial write, a
 * write that writes nothing): a rejected reservation leaves no entry and no temp file and a retry
 * grants once; a granted one is durable (its entry fsync'd and its name too: a directory fsync
 * that fails with EIO is an error, only a file system's refusal — EINVAL — is skipped). A log that gains an unparsable entry fails closed even for a
 * log object that cached the earlier entries.
 */
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createFsLedger } from '../../src/gate/index.js';
import { type FaultMode, faultyFs } from '../store/faulty-fs.js';
import { PROFILE, req, rm, T0, tempDir } from './fixtures.js';

const tmp = tempDir('gate-ledger-faults-');
afterAll(() => rm(tmp));
let n = 0;
const fresh = () => join(tmp, String(n++));
const calls = (trace: readonly string[], op: string) => trace.filter((t) => t.startsWith(`${op} `));

describe('fs ledger: one durable boundary per entry', () => {
  it('an entry is one write, one fsync of its content, one link and one directory fsync', async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    f.trace.length = 0;
    const g = await l.reserve(req('k1'));
    expect(g.outcome).toBe('granted');
    const log = join(root, 'p1', 'log');
    expect(calls(f.trace, 'fsync').map((c) => c.replace(/\/p1\/tmp\/[^/]+$/, '/p1/tmp/…'))).toEqual([
      `fsync ${join(root, 'p1', 'tmp/…')}`,
      `fsync ${log}`,
    ]);
    expect(calls(f.trace, 'write')).toHaveLength(1);
    expect(calls(f.trace, 'link')).toHaveLength(1);
    // the read before the decision lists the log; entry 1 is this object's own: not opened again
    expect(calls(f.trace, 'open').filter((c) => c.includes('/log/'))).toEqual([]);
    // a fresh object parses each entry once
    const other = faultyFs();
    const l2 = createFsLedger(root, { now: () => T0, fs: other });
    await l2.status('p1');
    expect(calls(other.trace, 'open')).toEqual([
      `open ${join(log, '00000001.json')}`,
      `open ${join(log, '00000002.json')}`,
    ]);
    f.trace.length = 0;
    await l.status('p1');
    // entries 1 and 2 are known: the listing is read, no entry is opened again
    expect(calls(f.trace, 'readdir')).toHaveLength(1);
    expect(calls(f.trace, 'open')).toEqual([]);
    expect(f.unsyncedContent.size).toBe(0);
    expect([...f.unsyncedEntries].filter((e) => e.startsWith(log))).toEqual([]);
  });

  it('a log object that cached earlier entries still fails closed on a damaged new one or a gap', async () => {
    const root = fresh();
    const l = createFsLedger(root, { now: () => T0 });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    await l.reserve(req('k1'));
    expect((await l.status('p1'))?.seq).toBe(2);
    writeFileSync(join(root, 'p1', 'log', '00000004.json'), '{}');
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
    writeFileSync(join(root, 'p1', 'log', '00000003.json'), '{"type":"torn');
    await expect(l.status('p1')).rejects.toMatchObject({ code: 'ledger_damaged' });
  });
});

describe("fs ledger: a new problem's directories", () => {
  it("are fsync'd into their parents when created; a file system refusing directory fsync (EINVAL) still grants", async () => {
    const root = fresh();
    const f = faultyFs();
    const l = createFsLedger(root, { now: () => T0, fs: f });
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const fsynced = calls(f.trace, 'fsync');
    // the root, the problem directory and its log directory entries are each made durable
    for (const parent of [join(root, '..'), root, join(root, 'p1')]) {
      expect(fsynced, parent).toContain(`fsync ${join(parent)}`);
    }
    expect([...f.unsyncedEntries].filter((e) => e.startsWith(root) && !e.includes('/tmp/'))).toEqual([]);

    // the log directory's fsync after an entry is refused with EINVAL: the grant stands
    const dirFsyncs: number[] = [];
    const probe = faultyFs();
    const root3 = fresh();
    await createFsLedger(root3, { now: () => T0 }).register({
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    });
    await createFsLedger(root3, { now: () => T0, fs: probe }).reserve(req('k1'));
    probe.trace.forEach((c, i) => {
      if (c === `fsync ${join(root3, 'p1', 'log')}`) dirFsyncs.push(i);
    });
    expect(dirFsyncs).toHaveLength(1);
    const root4 = fresh();
    await createFsLedger(root4, { now: () => T0 }).register({
      problem_id: 'p1',
      profile: PROFILE,
      contract_revision: 1,
    });
    const ein = faultyFs();
    ein.mode = 'einval';
    ein.failAt = dirFsyncs[0] as number;
    expect((await createFsLedger(root4, { now: () => T0, fs: ein }).reserve(req('k1'))).outcome).toBe(
      'granted',
    );
    expect(ein.failed).toBe(`fsync ${join(root4, 'p1', 'log')}`);
  });
});

describe('fs ledger: fault injection at every call of a reservation', () => {
  for (const mode of ['eio', 'partial', 'enospc-nothing'] as FaultMode[]) {
    it(`${mode}: a refused call leaves no entry and no temp file; a granted entry is durable`, async () => {
      // the calls of one reservation by a ledger object that has not read the log yet
      const probeRoot = fresh();
      await createFsLedger(probeRoot, { now: () => T0 }).register({
        problem_id: 'p1',
        profile: PROFILE,
        contract_revision: 1,
      });
      const probe = faultyFs();
      await createFsLedger(probeRoot, { now: () => T0, fs: probe }).reserve(req('k1'));
      const count = probe.trace.length;
      expect(count).toBeGreaterThanOrEqual(10);
      let refused = 0;
      for (let i = 0; i < count; i++) {
        const root = fresh();
        await createFsLedger(root, { now: () => T0 }).register({
          problem_id: 'p1',
          profile: PROFILE,
          contract_revision: 1,
        });
        const f = faultyFs();
        f.mode = mode;
        f.failAt = i;
        const l = createFsLedger(root, { now: () => T0, fs: f });
        const outcome = await l.reserve(req('k1')).then(
          (r) => r,
          (e: unknown) => e as Error,
        );
        const ctx = `failing call ${i} (${f.failed})`;
        const log = join(root, 'p1', 'log');
        const entry = join(log, '00000002.json');
        if (outcome instanceof Error && (f.failed === `fsync ${log}` || f.failed === `open ${log}`)) {
          // the entry was linked but its name is not known durable: the caller gets the error
          // (never a grant it cannot rely on), and a retry finds the entry and replays it
          expect(existsSync(entry), ctx).toBe(true);
          expect(readdirSync(join(root, 'p1', 'tmp')), `${ctx}: temp file left`).toEqual([]);
          f.failAt = -1;
          expect((await l.reserve(req('k1'))).outcome, ctx).toBe('replayed');
        } else if (outcome instanceof Error) {
          refused++;
          expect(existsSync(entry), ctx).toBe(false);
          expect(readdirSync(join(root, 'p1', 'tmp')), `${ctx}: temp file left`).toEqual([]);
          f.failAt = -1;
          expect((await l.reserve(req('k1'))).outcome, ctx).toBe('granted');
        } else {
          expect(outcome.outcome, ctx).toBe('granted');
          expect(f.unsyncedContent.has(entry), ctx).toBe(false);
          expect(f.unsyncedEntries.has(entry), `${ctx}: name not durable`).toBe(false);
        }
        const again = createFsLedger(root, { now: () => T0 });
        expect((await again.status('p1'))?.seq, ctx).toBe(2);
        expect((await again.reserve(req('k1'))).outcome, ctx).toBe('replayed');
      }
      expect(refused).toBeGreaterThanOrEqual(5);
    });
  }
});
