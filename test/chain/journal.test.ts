import { appendFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  chainJournalFile,
  createFileChainJournal,
  createFileEffectLedger,
  createMemoryChainJournal,
  createMemoryEffectLedger,
  idempotentEffect,
  isSeamError,
} from '../../src/chain/index.js';
import { goodStages, tripBaton, tripChain } from './trip-fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'chain-journal-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('chain journals', () => {
  for (const kind of ['memory', 'file'] as const) {
    const open = () => (kind === 'memory' ? createMemoryChainJournal() : createFileChainJournal(dir));

    it(`${kind}: run commits every revision; resume continues from the last committed baton`, async () => {
      const journal = open();
      const s = goodStages();
      let routeFails = true;
      const calls: string[] = [];
      const chain = tripChain({
        intent: (v, c) => {
          calls.push(`intent:${v.stage_run_id}`);
          return s.intent(v, c);
        },
        route: (v, c) => {
          calls.push(`route:${v.stage_run_id}`);
          if (routeFails) throw new Error('down');
          return s.route(v, c);
        },
        pay: s.pay,
      });
      const err = await chain.run(tripBaton(chain), { journal }).catch((e: unknown) => e);
      expect(isSeamError(err)).toBe(true);
      const last = await journal.loadLast('trip-1');
      expect(last?.revision).toBe(1);
      routeFails = false;
      // a fresh journal object over the same storage behaves the same
      const again = kind === 'file' ? createFileChainJournal(dir) : journal;
      const r = await chain.resume(again, 'trip-1');
      expect(r.baton.revision).toBe(3);
      expect(calls.filter((c) => c.startsWith('intent'))).toHaveLength(1);
      expect(calls.filter((c) => c.startsWith('route'))).toHaveLength(2);
      expect(new Set(calls.filter((c) => c.startsWith('route'))).size).toBe(1);
      expect((await again.loadLast('trip-1'))?.fingerprint).toBe(r.baton.fingerprint);
    });

    it(`${kind}: refuses out-of-sequence commits and accepts a repeated last entry`, async () => {
      const journal = open();
      const chain = tripChain();
      const b0 = tripBaton(chain);
      const c1 = await chain.advance(b0);
      const c2 = await chain.advance(c1.baton);
      await journal.commit({ baton: b0, receipt: null });
      await expect(journal.commit({ baton: c2.baton, receipt: c2.receipt })).rejects.toMatchObject({
        code: 'journal_conflict',
      });
      await journal.commit({ baton: c1.baton, receipt: c1.receipt });
      await journal.commit({ baton: c1.baton, receipt: c1.receipt });
      await expect(journal.commit({ baton: c1.baton, receipt: null })).rejects.toMatchObject({
        code: 'journal_conflict',
      });
      expect((await journal.loadLast('trip-1'))?.revision).toBe(1);
      await expect(chain.run(b0, { journal })).rejects.toMatchObject({ code: 'journal_conflict' });
    });
  }

  it('file: one fsync’d canonical JSON line per commit; loaded batons are frozen and verified', async () => {
    const journal = createFileChainJournal(dir);
    const chain = tripChain();
    await chain.run(tripBaton(chain), { journal });
    const lines = (await readFile(chainJournalFile(dir, 'trip-1'), 'utf8')).trimEnd().split('\n');
    expect(lines).toHaveLength(4);
    expect(lines.map((l) => JSON.parse(l).revision)).toEqual([0, 1, 2, 3]);
    const loaded = await createFileChainJournal(dir).loadLast('trip-1');
    expect(Object.isFrozen(loaded?.records)).toBe(true);
  });

  it('file: a torn last line is ignored and cut before the next append', async () => {
    const chain = tripChain();
    const b0 = tripBaton(chain);
    const c1 = await chain.advance(b0);
    const j1 = createFileChainJournal(dir);
    await j1.commit({ baton: b0, receipt: null });
    await appendFile(chainJournalFile(dir, 'trip-1'), '{"v":1,"baton_id":"trip-1","rev');
    const j2 = createFileChainJournal(dir);
    expect((await j2.loadLast('trip-1'))?.revision).toBe(0);
    await j2.commit({ baton: c1.baton, receipt: c1.receipt });
    expect((await createFileChainJournal(dir).loadLast('trip-1'))?.revision).toBe(1);
  });

  it('file: a damaged middle line or a forged fingerprint is journal_damaged', async () => {
    const chain = tripChain();
    await chain.run(tripBaton(chain), { journal: createFileChainJournal(dir) });
    const path = chainJournalFile(dir, 'trip-1');
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    await writeFile(path, `${[lines[0], 'garbage', ...lines.slice(2)].join('\n')}\n`);
    await expect(createFileChainJournal(dir).loadLast('trip-1')).rejects.toMatchObject({
      code: 'journal_damaged',
    });
    const forged = JSON.parse(lines[1] as string);
    forged.baton.records[1].value = 'Beijing';
    await writeFile(path, `${[lines[0], JSON.stringify(forged)].join('\n')}\n`);
    await expect(createFileChainJournal(dir).loadLast('trip-1')).rejects.toMatchObject({
      code: 'journal_damaged',
    });
  });

  it('resume with nothing journaled is no_such_run', async () => {
    await expect(tripChain().resume(createMemoryChainJournal(), 'nope')).rejects.toMatchObject({
      code: 'no_such_run',
    });
  });
});

describe('idempotent effects', () => {
  for (const kind of ['memory', 'file'] as const) {
    it(`${kind}: runs once per key, persists before returning, replays afterwards`, async () => {
      const ledger = kind === 'memory' ? createMemoryEffectLedger() : createFileEffectLedger(dir);
      let runs = 0;
      const effect = async () => {
        runs++;
        return { paid: 100, n: runs };
      };
      const a = await idempotentEffect(ledger, 'k1', effect);
      const b = await idempotentEffect(kind === 'file' ? createFileEffectLedger(dir) : ledger, 'k1', effect);
      const c = await idempotentEffect(ledger, 'k2', effect);
      expect(a).toEqual({ result: { paid: 100, n: 1 }, replayed: false, via: 'ran' });
      expect(b).toEqual({ result: { paid: 100, n: 1 }, replayed: true, via: 'replayed' });
      expect(c.result.n).toBe(2);
      expect(runs).toBe(2);
      expect((await ledger.put({ key: 'k1', result: 'other' })).result).toEqual({ paid: 100, n: 1 });
    });
  }

  it('refuses results JSON cannot represent (no result recorded: the effect ran, so the key is in doubt)', async () => {
    const ledger = createMemoryEffectLedger();
    await expect(idempotentEffect(ledger, 'k', () => ({ at: new Date(0) }))).rejects.toMatchObject({
      code: 'canonical_unsupported',
    });
    expect(ledger.keys()).toEqual([]);
    expect(ledger.inDoubt()).toEqual(['k']);
  });
});
