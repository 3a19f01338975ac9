/**
 * The effect ledger's exactly-once rule: an effect runs only after its intent is durable; a busy
 * ledger (a stale lock) refuses before the effect runs; a key whose intent has no result is in
 * doubt — decided by `reconcile`, re-run only when `rerunSafe`, otherwise refused with
 * `effect_in_doubt`, never run again blindly. And the first commit into a missing directory is
 * durable: the directory is made through the durable layer, and an injected EIO on a directory
 * fsync rejects the effect ledger's first `begin`/`put` and the chain journal's first commit.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createMemoryPaymentRail, generatePayrollMonth, runPayroll } from '../../examples/payroll/index.js';
import {
  chainJournalFile,
  createFileChainJournal,
  createFileEffectLedger,
  createMemoryChainJournal,
  createMemoryEffectLedger,
  decideEffect,
  type EffectLedger,
  idempotentEffect,
  intentStillRunning,
} from '../../src/chain/index.js';
import { tripEntries } from '../helpers/chain-journal-lock.js';
import { faultyFs } from '../store/faulty-fs.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-effects-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('decideEffect (pure)', () => {
  it('replays a result, runs a fresh intent, and decides an in-doubt key only by reconcile or rerunSafe', () => {
    const none = { reconcile: false, rerunSafe: false };
    const doubt = { state: 'in_doubt', intent: null } as const;
    expect(decideEffect({ state: 'done', result: 1 }, { reconcile: true, rerunSafe: true })).toBe('replay');
    expect(decideEffect({ state: 'started' }, none)).toBe('run');
    expect(decideEffect(doubt, none)).toBe('refuse');
    expect(decideEffect(doubt, { reconcile: false, rerunSafe: true })).toBe('rerun');
    expect(decideEffect(doubt, { reconcile: true, rerunSafe: false })).toBe('reconcile');
    expect(decideEffect(doubt, { reconcile: true, rerunSafe: true })).toBe('reconcile');
    // the run that recorded the intent still runs: nothing is decided under it
    expect(decideEffect(doubt, { reconcile: true, rerunSafe: true }, true)).toBe('wait');
    expect(decideEffect({ state: 'started' }, none, true)).toBe('run');
  });
});

/** An effect that counts its runs and can throw after "acting". */
function countingEffect() {
  const state = { runs: 0, failNext: false };
  const effect = async () => {
    state.runs++;
    if (state.failNext) {
      state.failNext = false;
      throw new Error('connection reset after the request was sent');
    }
    return { paid: 100, run: state.runs };
  };
  return { state, effect };
}

describe('idempotentEffect: in doubt', () => {
  for (const kind of ['memory', 'file'] as const) {
    const ledgerOf = (): EffectLedger => (kind === 'memory' ? shared : createFileEffectLedger(dir));
    let shared: EffectLedger = createMemoryEffectLedger();
    beforeEach(() => {
      shared = createMemoryEffectLedger();
    });

    it(`${kind}: an effect that threw leaves its key in doubt; a retry is refused without running it`, async () => {
      const { state, effect } = countingEffect();
      state.failNext = true;
      await expect(idempotentEffect(ledgerOf(), 'k', effect)).rejects.toThrow('connection reset');
      expect(state.runs).toBe(1);
      const refused = await idempotentEffect(ledgerOf(), 'k', effect).catch((e: unknown) => e);
      expect(refused).toMatchObject({
        code: 'effect_in_doubt',
        details: { key: 'k', intent: { host: hostname(), pid: process.pid } },
      });
      expect(state.runs).toBe(1); // not run again
      expect(await ledgerOf().get('k')).toBeUndefined();
    });

    it(`${kind}: reconcile decides an in-doubt key once; later calls replay what it recorded`, async () => {
      const { state, effect } = countingEffect();
      state.failNext = true;
      await idempotentEffect(ledgerOf(), 'k', effect).catch(() => undefined);
      let reconciles = 0;
      const reconcile = async (key: string) => {
        reconciles++;
        return { paid: 100, run: 0, reconciled: key };
      };
      const r = await idempotentEffect(ledgerOf(), 'k', effect, { reconcile });
      expect(r).toEqual({
        result: { paid: 100, run: 0, reconciled: 'k' },
        replayed: false,
        via: 'reconciled',
      });
      const again = await idempotentEffect(ledgerOf(), 'k', effect, { reconcile });
      expect(again).toMatchObject({ replayed: true, via: 'replayed', result: { reconciled: 'k' } });
      expect([state.runs, reconciles]).toEqual([1, 1]);
    });

    it(`${kind}: a rerunSafe effect runs again when in doubt; a fresh key runs once`, async () => {
      const { state, effect } = countingEffect();
      state.failNext = true;
      await idempotentEffect(ledgerOf(), 'k', effect).catch(() => undefined);
      const r = await idempotentEffect(ledgerOf(), 'k', effect, { rerunSafe: true });
      expect(r).toEqual({ result: { paid: 100, run: 2 }, replayed: false, via: 'reran' });
      expect(await idempotentEffect(ledgerOf(), 'k2', effect, { rerunSafe: true })).toMatchObject({
        via: 'ran',
      });
      expect(state.runs).toBe(3);
    });
  }

  it('file: an intent line precedes the result line; a file of result lines only (older writers) still reads', async () => {
    const ledger = createFileEffectLedger(dir);
    await idempotentEffect(ledger, 'k', () => 7);
    const lines = readFileSync(join(dir, 'effects.jsonl'), 'utf8').trimEnd().split('\n');
    expect(lines.map((l) => JSON.parse(l))).toEqual([
      { key: 'k', intent: { host: hostname(), pid: process.pid } },
      { key: 'k', result: 7 },
    ]);
    writeFileSync(join(dir, 'effects.jsonl'), '{"key":"old","result":1}\n');
    const old = createFileEffectLedger(dir);
    expect(await old.records()).toEqual([{ key: 'old', result: 1 }]);
    expect(await old.inDoubt()).toEqual([]);
    expect(await idempotentEffect(old, 'old', () => 2)).toMatchObject({ result: 1, via: 'replayed' });
  });
});

describe('idempotentEffect: an in-doubt key whose run still runs is busy, never reconciled under it', () => {
  it('intentStillRunning (pure): this process only while in flight, a live pid of this host; another host cannot be checked', () => {
    const here = { host: 'h1', pid: 10, inFlight: false, isAlive: (p: number) => p === 42 };
    expect(intentStillRunning({ host: 'h1', pid: 42 }, here)).toBe(true);
    expect(intentStillRunning({ host: 'h1', pid: 43 }, here)).toBe(false);
    expect(intentStillRunning({ host: 'h1', pid: 10 }, here)).toBe(false);
    expect(intentStillRunning({ host: 'h1', pid: 10 }, { ...here, inFlight: true })).toBe(true);
    expect(intentStillRunning({ host: 'h2', pid: 42 }, here)).toBe(false);
    for (const bad of [null, 'x', { host: 'h1' }, { host: 'h1', pid: -1 }, { host: 'h1', pid: 1.5 }])
      expect(intentStillRunning(bad, here)).toBe(false);
  });

  it('file: a second call while the first runs the effect (another ledger object, same file) is busy; afterwards it replays', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((res) => {
      release = res;
    });
    let runs = 0;
    let reconciles = 0;
    const first = idempotentEffect(createFileEffectLedger(dir), 'k', async () => {
      runs++;
      await gate;
      return 'paid';
    });
    await new Promise((res) => setTimeout(res, 20)); // the first call is inside its effect
    const reconcile = () => {
      reconciles++;
      return 'reconciled';
    };
    const second = await idempotentEffect(createFileEffectLedger(dir), 'k', () => 'again', {
      reconcile,
    }).catch((e: unknown) => e);
    expect(second).toMatchObject({ code: 'busy', details: { key: 'k', intent: { pid: process.pid } } });
    release();
    expect(await first).toMatchObject({ result: 'paid', via: 'ran' });
    expect(
      await idempotentEffect(createFileEffectLedger(dir), 'k', () => 'again', { reconcile }),
    ).toMatchObject({
      result: 'paid',
      via: 'replayed',
    });
    expect([runs, reconciles]).toEqual([1, 0]);
  });

  it('file: an intent of a live process of this host is busy; of a gone one, reconciled', async () => {
    const file = join(dir, 'effects.jsonl');
    const reconcile = () => 'reconciled';
    writeFileSync(
      file,
      `{"intent":{"host":${JSON.stringify(hostname())},"pid":${process.ppid}},"key":"k"}\n`,
    );
    expect(
      await idempotentEffect(createFileEffectLedger(dir), 'k', () => 'ran', { reconcile }).catch((e) => e),
    ).toMatchObject({ code: 'busy', details: { key: 'k' } });
    writeFileSync(file, `{"intent":{"host":${JSON.stringify(hostname())},"pid":999999999},"key":"k"}\n`);
    expect(
      await idempotentEffect(createFileEffectLedger(dir), 'k', () => 'ran', { reconcile }),
    ).toMatchObject({
      result: 'reconciled',
      via: 'reconciled',
    });
  });
});

describe('idempotentEffect: a busy ledger runs nothing', () => {
  it('a stale lock (a killed writer’s) refuses with busy, names the lock, and the effect is not run', async () => {
    const ledger = createFileEffectLedger(dir);
    await idempotentEffect(ledger, 'before', () => 1);
    const lock = join(dir, 'effects.jsonl.lock');
    writeFileSync(lock, `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`);
    const before = readFileSync(join(dir, 'effects.jsonl'));
    let runs = 0;
    for (const l of [ledger, createFileEffectLedger(dir)]) {
      const e = await idempotentEffect(l, 'k', () => ++runs).catch((x: unknown) => x);
      expect(e).toMatchObject({
        code: 'busy',
        details: { lock, holder: { host: hostname(), pid: 999999999 } },
      });
    }
    expect(runs).toBe(0);
    expect(readFileSync(join(dir, 'effects.jsonl')).equals(before)).toBe(true); // no intent either
    expect(existsSync(lock)).toBe(true); // never broken
  });
});

describe('the payroll chain over a busy ledger', () => {
  it('stops at pay with busy and the lock path in its detail, and pays nothing; resumed after the lock is gone, pays once', async () => {
    const lock = join(dir, 'effects.jsonl.lock');
    writeFileSync(lock, `{"host":${JSON.stringify(hostname())},"pid":999999999}\n`);
    const rail = createMemoryPaymentRail();
    const journal = createMemoryChainJournal();
    const data = generatePayrollMonth({ employees: 5 });
    const run = () =>
      runPayroll({ contract: 'release', data, rail, journal, effects: createFileEffectLedger(dir) });
    const r = await run();
    expect(r.outcome).toBe('stopped');
    expect(r.seam_error).toMatchObject({ code: 'stage_failed', stage: 'pay' });
    expect(r.seam_error?.detail).toContain(`HandoffError: busy: the effect ledger's lock ${lock} is held`);
    expect(r.seam_error?.detail).toContain('was not run');
    expect(await rail.payments()).toEqual([]);
    await rm(lock);
    const again = await run();
    expect(again).toMatchObject({ outcome: 'accepted', resumed_from_revision: 3, paid_lines: 5 });
    expect((await rail.payments()).map((p) => p.lines)).toEqual([5]);
  });
});

describe('the first commit into a missing directory is durable', () => {
  /** Index of the first `fsync <d>` (a directory fsync) in a trace. */
  const dirFsyncAt = (trace: readonly string[], d: string) => trace.indexOf(`fsync ${d}`);

  it('effect ledger: the directory is made and its parent fsync’d; an EIO there or on the new file’s directory fsync rejects, and a retry is durable', async () => {
    const parent = join(dir, 'var');
    await mkdir(parent);
    const ledgerDir = join(parent, 'effects');
    // a clean run: which calls the first begin makes
    const probe = faultyFs();
    await createFileEffectLedger(join(dir, 'probe'), { fs: probe }).begin('k');
    expect(dirFsyncAt(probe.trace, dir)).toBeGreaterThanOrEqual(0); // the new directory's parent
    expect(dirFsyncAt(probe.trace, join(dir, 'probe'))).toBeGreaterThanOrEqual(0); // the new file's directory
    for (const target of [parent, ledgerDir]) {
      const f = faultyFs();
      const ledger = createFileEffectLedger(ledgerDir, { fs: f });
      // fail the first fsync of `target` (the parent: mkdir; the ledger dir: the created file)
      const failing = new Proxy(f, {
        get(t, p) {
          if (p !== 'fsync') return Reflect.get(t, p);
          return (fd: number) => {
            const before = t.trace.length;
            t.fsync(fd);
            if (t.trace[before] === `fsync ${target}` && t.failed === null) {
              t.failed = t.trace[before] as string;
              throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
            }
          };
        },
      });
      const viaProxy = createFileEffectLedger(ledgerDir, { fs: failing });
      let runs = 0;
      const e = await idempotentEffect(viaProxy, 'k', () => ++runs).catch((x: unknown) => x);
      expect(e, target).toMatchObject({ code: 'io_error' });
      expect(f.failed, target).toBe(`fsync ${target}`);
      expect(runs, target).toBe(0); // the intent was not acknowledged: nothing ran
      expect(existsSync(join(ledgerDir, 'effects.jsonl.lock')), target).toBe(false);
      // a retry makes what failed again and fsyncs it: the intent and the result are durable
      f.trace.length = 0;
      expect(await idempotentEffect(ledger, 'k', () => ++runs), target).toMatchObject({ via: 'ran' });
      expect(dirFsyncAt(f.trace, target), target).toBeGreaterThanOrEqual(0);
      expect(f.unsyncedContent.has(join(ledgerDir, 'effects.jsonl'))).toBe(false);
      expect(runs).toBe(1);
      await rm(ledgerDir, { recursive: true, force: true });
    }
  });

  it('chain journal (per-commit and held locks): an EIO on the directory fsync of the first commit rejects it; the retry commits durably', async () => {
    const [e0] = await tripEntries();
    const jdir = join(dir, 'journal');
    for (const [target, holdLocks] of [
      [dir, false],
      [jdir, false],
      [dir, true],
      [jdir, true],
    ] as const) {
      const f = faultyFs();
      const failing = new Proxy(f, {
        get(t, p) {
          if (p !== 'fsync') return Reflect.get(t, p);
          return (fd: number) => {
            const before = t.trace.length;
            t.fsync(fd);
            if (t.trace[before] === `fsync ${target}` && t.failed === null) {
              t.failed = t.trace[before] as string;
              throw Object.assign(new Error('injected EIO'), { code: 'EIO' });
            }
          };
        },
      });
      const first = createFileChainJournal(jdir, { fs: failing, holdLocks });
      await expect(first.commit(e0), target).rejects.toMatchObject({ code: 'io_error' });
      await first.close();
      expect(f.failed).toBe(`fsync ${target}`);
      // nothing acknowledged stays behind to pass for a commit
      expect(await createFileChainJournal(jdir).loadLast('trip-1'), target).toBeUndefined();
      f.trace.length = 0;
      const journal = createFileChainJournal(jdir, { fs: f, holdLocks });
      await journal.commit(e0);
      expect(f.trace, target).toContain(`fsync ${target}`);
      expect(f.unsyncedContent.has(chainJournalFile(jdir, 'trip-1'))).toBe(false);
      expect((await journal.loadLast('trip-1'))?.revision).toBe(0);
      await journal.close();
      await rm(jdir, { recursive: true, force: true });
    }
  });
});
