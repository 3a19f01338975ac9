/**
 * Group commit in the fs store: the sidecar layout and what a plain reader sees, fsync counts,
 * torn / aborted / superseded batches and damaged record lines on load and under the lock, fault
 * injection at every fs call of a batch, and a property: any cut of a batched journal (with a
 * sidecar as a crash can leave it) loads as a valid prefix ending at a batch boundary.
 */
import { appendFileSync, existsSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/index.js';
import { createFsStore, parseJournal, type StoreResult, type TraceStep } from '../../src/store/index.js';
import { type FaultMode, faultyFs } from './faulty-fs.js';
import { dispatch, fixedClock, note, solvedHandoff, stuckHandoff } from './fixtures.js';
import { tempDir } from './tmp.js';

const TRACE: TraceStep[] = [
  {
    machine: 'cycle',
    from: 'work.dispatch',
    event: 'DISPATCHED',
    to: 'work.await_worker',
    actor: 'dispatch',
  },
  { machine: 'cycle', from: 'work.await_worker', event: 'HANDOFF', to: 'review', guard: 'isStuck' },
];
const notes = (...texts: string[]) => texts.map((t) => ({ kind: 'note' as const, payload: note(t) }));

async function newRun(project = tempDir('batch-')) {
  const store = createFsStore({ projectRoot: project, env: {}, now: fixedClock() });
  const c = await store.createRun({ dispatch: dispatch() });
  const id = c.run_id as string;
  const dir = c.run_directory as string;
  return { project, store, id, dir, journal: join(dir, 'events.jsonl'), sidecar: join(dir, 'batches.jsonl') };
}

const fresh = (project: string) => createFsStore({ projectRoot: project, env: {}, now: fixedClock() });

describe('fs group commit: layout and the plain reader', () => {
  it('writes the lines as appends do and one canonical record per recorded batch; a plain reader reads every event', async () => {
    const { store, id, journal, sidecar } = await newRun();
    expect(await store.appendBatch(id, notes('one'))).toMatchObject({
      outcome: 'committed',
      first_seq: 1,
      seq: 1,
    });
    expect(existsSync(sidecar)).toBe(false); // a one-event batch without trace is a plain append
    const before = readFileSync(journal).length;
    expect(await store.appendBatch(id, notes('two', 'three ⊢'), { trace: TRACE })).toMatchObject({
      outcome: 'committed',
      first_seq: 2,
      seq: 3,
    });
    const bytes = readFileSync(journal);
    const batchBytes = bytes.subarray(before);
    const record = readFileSync(sidecar, 'utf8');
    expect(record).toBe(
      `{"count":2,"first_seq":2,"last_seq":3,"schema":"run-store-batch/v1","sha256":"${sha256Hex(batchBytes)}","trace":[{"actor":"dispatch","event":"DISPATCHED","from":"work.dispatch","machine":"cycle","to":"work.await_worker"},{"event":"HANDOFF","from":"work.await_worker","guard":"isStuck","machine":"cycle","to":"review"}]}\n`,
    );
    // the journal is plain run-store/v1: the plain parser sees every event, no damage
    const plain = parseJournal(bytes, id, 'run-store-event/v2');
    expect([plain.events.map((e) => e.seq), plain.damage]).toEqual([[1, 2, 3], null]);
    // the same events as three single appends in another run
    const other = await newRun();
    for (const t of ['one', 'two', 'three ⊢']) await other.store.append(other.id, 'note', note(t));
    expect(readFileSync(other.journal, 'utf8').replaceAll(other.id, id)).toBe(bytes.toString('utf8'));
    const b = await fresh(join(journal, '../../../..')).readBatches(id);
    expect(b.ok && b.value.batches).toEqual([
      {
        line: 1,
        first_seq: 2,
        last_seq: 3,
        count: 2,
        sha256: sha256Hex(batchBytes),
        trace: TRACE,
        status: 'complete',
      },
    ]);
  });

  it('fsyncs: 1 for a one-event batch (also with a trace: its record rides on the journal sync), 2 for a recorded batch (+1 directory fsync when the sidecar is created), +2 for the cache of a handoff', async () => {
    const { project, id } = await newRun();
    const count = async (entries: Parameters<typeof store.appendBatch>[1], trace?: TraceStep[]) => {
      const f = faultyFs();
      const s = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), fs: f });
      const r = await s.appendBatch(id, entries, trace === undefined ? {} : { trace });
      expect(r.outcome).toBe('committed');
      return f.trace.filter((c) => c.startsWith('fsync ')).map((c) => c.slice(c.lastIndexOf('/') + 1));
    };
    const store = fresh(project);
    expect(await count(notes('a'))).toEqual(['events.jsonl']);
    expect(await count(notes('b', 'c'))).toEqual(['batches.jsonl', id, 'events.jsonl']);
    expect(await count(notes('d', 'e', 'f', 'g', 'h'))).toEqual(['batches.jsonl', 'events.jsonl']);
    expect(await count(notes('i'), TRACE)).toEqual(['events.jsonl']);
    expect(await count([...notes('j'), { kind: 'handoff', payload: stuckHandoff() }])).toEqual([
      'batches.jsonl',
      'events.jsonl',
      'handoff.json.tmp',
      id,
    ]);
    const l = await store.load(id);
    expect(l.ok && [l.value.events.length, l.value.damaged, l.value.handoff_cache]).toEqual([
      11,
      false,
      'current',
    ]);
  });
});

describe('fs group commit without all-or-nothing (atomic: false)', () => {
  it('several events share one write and one fsync, with no record; with a trace the record rides unsynced', async () => {
    const { project, id } = await newRun();
    const syncs = async (entries: Parameters<typeof store.appendBatch>[1], trace?: TraceStep[]) => {
      const f = faultyFs();
      const s = createFsStore({ projectRoot: project, env: {}, now: fixedClock(), fs: f });
      const r = await s.appendBatch(id, entries, {
        atomic: false,
        ...(trace === undefined ? {} : { trace }),
      });
      expect(r).toMatchObject({ outcome: 'committed' });
      return f.trace.filter((c) => c.startsWith('fsync ')).map((c) => c.slice(c.lastIndexOf('/') + 1));
    };
    const store = fresh(project);
    expect(await syncs(notes('a', 'b', 'c'))).toEqual(['events.jsonl']);
    expect((await store.readBatches(id)).ok && (await store.readBatches(id))).toMatchObject({
      value: { batches: [] },
    });
    // the first record creates the sidecar: its directory entry is synced once
    expect(await syncs(notes('d', 'e'), TRACE)).toEqual([id, 'events.jsonl']);
    expect(await syncs(notes('f', 'g'), TRACE)).toEqual(['events.jsonl']);
    const l = await store.load(id);
    expect(l.ok && [l.value.events.length, l.value.damaged]).toEqual([7, false]);
    const b = await store.readBatches(id);
    expect(b.ok && b.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual([
      [4, 5, 'complete'],
      [6, 7, 'complete'],
    ]);
  });
});

describe('fs group commit: torn, aborted and superseded batches', () => {
  it('a batch cut between its lines is a torn tail: the prefix ends before it, appends are refused', async () => {
    const { project, store, id, journal } = await newRun();
    await store.append(id, 'note', note('a'));
    await store.appendBatch(id, notes('b', 'c', 'd'));
    const whole = readFileSync(journal);
    const lines = whole.toString('utf8').split('\n');
    const cutAt = Buffer.byteLength(`${lines.slice(0, 2).join('\n')}\n`); // seqs 1, 2 whole; 3, 4 gone
    truncateSync(journal, cutAt);
    const l = await fresh(project).load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.seq)).toEqual([1]);
    expect(l.value.damaged).toBe(true);
    expect(l.value.damage).toMatchObject({
      code: 'truncated_tail',
      line: 2,
      bytes: cutAt - Buffer.byteLength(`${lines[0]}\n`),
      detail: expect.stringContaining(
        'batch of seqs 2..4 (batches.jsonl line 1) is torn: 1 of 3 events present',
      ),
    });
    expect(l.value.warnings[0]).toMatchObject({ code: 'truncated_tail', line: 2 });
    const b = await fresh(project).readBatches(id);
    expect(b.ok && b.value.batches.map((x) => x.status)).toEqual(['torn']);
    const before = readFileSync(journal);
    for (const s of [fresh(project), store]) {
      expect(await s.append(id, 'note', note('x'))).toMatchObject({
        outcome: 'nothing_written',
        code: 'journal_damaged',
      });
      expect(await s.appendBatch(id, notes('x', 'y'))).toMatchObject({ code: 'journal_damaged' });
    }
    expect(readFileSync(journal).equals(before)).toBe(true);
    // a cut inside a line of the batch: the same prefix, the damage names the batch too
    truncateSync(journal, cutAt - 5);
    const l2 = await fresh(project).load(id);
    expect(l2.ok && [l2.value.events.length, l2.value.damage?.code, l2.value.damage?.line]).toEqual([
      1,
      'truncated_tail',
      2,
    ]);
  });

  it('complete lines that differ from their record are corrupt (an edit), never a torn tail', async () => {
    const { project, store, id, journal } = await newRun();
    await store.appendBatch(id, notes('b', 'c'));
    writeFileSync(journal, readFileSync(journal, 'utf8').replace('"text":"c"', '"text":"C"'));
    const l = await fresh(project).load(id);
    expect(l.ok && [l.value.events.length, l.value.damage?.code, l.value.damage?.line]).toEqual([
      0,
      'corrupt',
      1,
    ]);
  });

  it('a record whose events were never written is an aborted batch: no damage; the next write supersedes it', async () => {
    const { project, store, id, journal, sidecar } = await newRun();
    await store.appendBatch(id, notes('a', 'b')); // 1..2, record line 1
    // a writer published the record of 3..5 and failed before its lines (as a crash would leave it)
    appendFileSync(
      sidecar,
      `{"count":3,"first_seq":3,"last_seq":5,"schema":"run-store-batch/v1","sha256":"${'0'.repeat(64)}","trace":[]}\n`,
    );
    const l = await fresh(project).load(id);
    expect(l.ok && [l.value.events.length, l.value.damaged, l.value.warnings]).toEqual([2, false, []]);
    // this instance holds the journal open and sees the sidecar change: its plain append at seq 3
    // must supersede the aborted record, or a load would take seq 3 for a torn 3..5
    expect(await store.append(id, 'note', note('c'))).toMatchObject({ outcome: 'committed', seq: 3 });
    expect(readFileSync(sidecar, 'utf8').split('\n')[2]).toMatch(/^\{"count":1,"first_seq":3,"last_seq":3,/);
    expect(await store.appendBatch(id, notes('d', 'e'))).toMatchObject({ first_seq: 4, seq: 5 });
    const l2 = await fresh(project).load(id);
    if (!l2.ok) throw new Error(l2.detail);
    expect([l2.value.events.length, l2.value.damaged]).toEqual([5, false]);
    const b = await fresh(project).readBatches(id);
    expect(b.ok && b.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual([
      [1, 2, 'complete'],
      [3, 5, 'aborted'],
      [3, 3, 'complete'],
      [4, 5, 'complete'],
    ]);
    expect(parseJournal(readFileSync(journal), id, 'run-store-event/v2').events).toHaveLength(5);
  });

  it('a damaged record line is a warning that never invalidates events; the next record starts on a new line', async () => {
    const { project, store, id, sidecar } = await newRun();
    await store.appendBatch(id, notes('a', 'b'));
    appendFileSync(sidecar, '{"count":2,"first_se'); // a record torn by a crash
    const l = await fresh(project).load(id);
    if (!l.ok) throw new Error(l.detail);
    expect([l.value.events.length, l.value.damaged]).toEqual([2, false]);
    expect(l.value.warnings).toEqual([
      { code: 'batch_record_damaged', line: 2, detail: expect.stringContaining('not newline-terminated') },
    ]);
    expect(await fresh(project).appendBatch(id, notes('c', 'd'))).toMatchObject({
      outcome: 'committed',
      seq: 4,
    });
    expect(
      readFileSync(sidecar, 'utf8')
        .split('\n')
        .map((x) => x.slice(0, 21)),
    ).toEqual(['{"count":2,"first_seq', '{"count":2,"first_se', '{"count":2,"first_seq', '']);
    const l2 = await fresh(project).load(id);
    expect(l2.ok && [l2.value.events.length, l2.value.damaged, l2.value.warnings.length]).toEqual([
      4,
      false,
      1,
    ]);
    const b = await fresh(project).readBatches(id);
    expect(b.ok && b.value.batches.map((x) => [x.line, x.status])).toEqual([
      [1, 'complete'],
      [3, 'complete'],
    ]);
  });

  it('a symlinked sidecar is containment for loads and writes', async () => {
    const { project, store, id, sidecar } = await newRun();
    await store.append(id, 'note', note('a'));
    const { symlinkSync } = await import('node:fs');
    symlinkSync('/etc/hostname', sidecar);
    expect(await fresh(project).load(id)).toMatchObject({ ok: false, code: 'containment' });
    expect(await fresh(project).appendBatch(id, notes('b', 'c'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'containment',
    });
  });
});

type Setup = 'fresh' | 'existing';
const BATCH = [...notes('c', 'd'), { kind: 'handoff' as const, payload: solvedHandoff() }, ...notes('e')];

async function setupRun(setup: Setup) {
  const r = await newRun(tempDir('batch-fault-'));
  await r.store.append(r.id, 'note', note('a'));
  if (setup === 'existing') await r.store.appendBatch(r.id, notes('b1', 'b2'));
  else await r.store.append(r.id, 'note', note('b'));
  return r;
}

async function faultedBatch(setup: Setup, failAt: number, mode: FaultMode) {
  const run = await setupRun(setup);
  const before = readFileSync(run.journal);
  const f = faultyFs();
  f.failAt = failAt;
  f.mode = mode;
  const store = createFsStore({ projectRoot: run.project, env: {}, now: fixedClock(), fs: f });
  const result: StoreResult = await store.appendBatch(run.id, BATCH, { trace: TRACE });
  const reloaded = await fresh(run.project).load(run.id);
  return { ...run, before, f, result, reloaded };
}

describe('fault injection: appendBatch', () => {
  for (const setup of ['fresh', 'existing'] as const) {
    it(`${setup} sidecar: every failing fs call gives a truthful outcome; nothing acknowledged unless written and synced, never a partial batch`, async () => {
      const clean = await faultedBatch(setup, -1, 'eio');
      expect(clean.result).toMatchObject({ outcome: 'committed' });
      const base = setup === 'existing' ? 3 : 2;
      const n = clean.f.trace.length;
      const seen = new Map<string, string>();
      for (let i = 0; i < n; i++) {
        const modes: FaultMode[] = clean.f.trace[i]?.startsWith('write ')
          ? ['eio', 'partial', 'enospc-nothing']
          : ['eio'];
        for (const mode of modes) {
          const r = await faultedBatch(setup, i, mode);
          const ctx = `${setup}: ${mode} ${r.f.failed} → ${JSON.stringify(r.result)}`;
          expect(r.f.failed, ctx).not.toBeNull();
          if (!r.reloaded.ok) throw new Error(`${ctx}: reload failed ${r.reloaded.code}`);
          const events = r.reloaded.value.events;
          const after = readFileSync(r.journal);
          seen.set(`${mode} ${(r.f.failed as string).replace(r.project, '')}`, r.result.outcome);
          // never a partial batch: all of it or none of it in the valid prefix
          expect([base, base + BATCH.length], ctx).toContain(events.length);
          switch (r.result.outcome) {
            case 'committed':
            case 'journal_only':
              expect(r.result, ctx).toMatchObject({ first_seq: base + 1, seq: base + BATCH.length });
              expect(events.length, ctx).toBe(base + BATCH.length);
              for (const p of [r.journal, r.sidecar])
                expect(
                  r.f.unsyncedContent.has(p) || r.f.unsyncedEntries.has(p),
                  `${ctx}: ${p} not durable`,
                ).toBe(false);
              expect(r.reloaded.value.damaged, ctx).toBe(false);
              if (r.result.outcome === 'committed')
                expect(r.reloaded.value.handoff_cache, ctx).toBe('current');
              break;
            case 'nothing_written':
              expect(r.result.code, ctx).toBeDefined();
              expect(after.equals(r.before), `${ctx}: journal changed`).toBe(true);
              expect([events.length, r.reloaded.value.damaged], ctx).toEqual([base, false]);
              break;
            case 'indeterminate':
              expect(r.result.step, ctx).toBeDefined();
              if (after.length !== r.before.length && events.length === base)
                expect(r.reloaded.value.damaged, `${ctx}: silent partial batch`).toBe(true);
              break;
          }
          if (!(r.f.failed ?? '').startsWith(`unlink ${join(r.dir, '.lock')}`))
            expect(existsSync(join(r.dir, '.lock')), `${ctx}: lock left behind`).toBe(false);
        }
      }
      const values = [...seen.values()];
      for (const o of ['nothing_written', 'indeterminate', 'committed', 'journal_only'])
        expect(values).toContain(o);
      for (const [k, v] of seen) {
        if (/^eio fsync .*batches\.jsonl$/.test(k)) expect(v, k).toBe('nothing_written');
        if (/^partial write .*batches\.jsonl$/.test(k)) expect(v, k).toBe('nothing_written');
        if (/^eio fsync .*events\.jsonl$/.test(k)) expect(v, k).toBe('indeterminate');
        if (/^partial write .*events\.jsonl$/.test(k)) expect(v, k).toBe('indeterminate');
      }
    }, 120_000);
  }
});

describe('property: any cut of a batched journal is a valid prefix ending at a batch boundary', () => {
  it('journal cut anywhere, sidecar as a crash leaves it (every record of a begun batch present, any tail after)', async () => {
    const { project, store, id, journal, sidecar } = await newRun();
    // units: a plain append or a batch; byte ranges in the journal, record ends in the sidecar
    const units: { start: number; end: number; seqs: number; recordEnd: number }[] = [];
    const plan: (string[] | string)[] = [
      ['p1'],
      ['b1', 'b2', 'b3'],
      'p2',
      ['c1', 'c2'],
      ['d1'],
      ['e1', 'e2', 'e3', 'e4'],
      'p3',
    ];
    for (const [i, u] of plan.entries()) {
      const start = existsSync(journal) ? readFileSync(journal).length : 0;
      if (typeof u === 'string') expect((await store.append(id, 'note', note(u))).outcome).toBe('committed');
      else
        expect((await store.appendBatch(id, notes(...u), i === 4 ? { trace: TRACE } : {})).outcome).toBe(
          'committed',
        );
      const recordEnd = existsSync(sidecar) ? readFileSync(sidecar).length : 0;
      units.push({
        start,
        end: readFileSync(journal).length,
        seqs: typeof u === 'string' ? 1 : u.length,
        recordEnd,
      });
    }
    const J = readFileSync(journal);
    const S = readFileSync(sidecar);
    const all = parseJournal(J, id, 'run-store-event/v2').events;
    const loader = fresh(project);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: J.length }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        async (cut, frac) => {
          // the records of every unit begun before the cut are durable (published before its lines)
          const begun = units.filter((u) => u.start < cut);
          const minS = begun.length === 0 ? 0 : (begun[begun.length - 1] as (typeof units)[number]).recordEnd;
          const sCut = minS + Math.floor((S.length - minS) * frac);
          writeFileSync(journal, J.subarray(0, cut));
          writeFileSync(sidecar, S.subarray(0, sCut));
          const l = await loader.load(id);
          if (!l.ok) throw new Error(l.detail);
          const whole = units.filter((u) => u.end <= cut);
          const seqs = whole.reduce((a, u) => a + u.seqs, 0);
          const atBoundary = cut === 0 || units.some((u) => u.end === cut);
          expect(l.value.events, `cut ${cut}, sidecar ${sCut}`).toEqual(all.slice(0, seqs));
          expect(l.value.damaged, `cut ${cut}, sidecar ${sCut}`).toBe(!atBoundary);
          if (!atBoundary) expect(l.value.damage?.line).toBe(seqs + 1);
        },
      ),
      { numRuns: 400, seed: 1507 },
    );
  }, 120_000);

  it('any sidecar cut with any journal cut: the load never throws and never shows more than the journal holds', async () => {
    const { project, store, id, journal, sidecar } = await newRun();
    await store.appendBatch(id, notes('a', 'b'));
    await store.append(id, 'note', note('c'));
    await store.appendBatch(id, notes('d', 'e', 'f'), { trace: TRACE });
    const J = readFileSync(journal);
    const S = readFileSync(sidecar);
    const all = parseJournal(J, id, 'run-store-event/v2').events;
    const loader = fresh(project);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: J.length }),
        fc.integer({ min: 0, max: S.length }),
        async (cut, sCut) => {
          writeFileSync(journal, J.subarray(0, cut));
          writeFileSync(sidecar, S.subarray(0, sCut));
          const l = await loader.load(id);
          if (!l.ok) throw new Error(l.detail);
          const plain = parseJournal(J.subarray(0, cut), id, 'run-store-event/v2');
          expect(l.value.events).toEqual(all.slice(0, l.value.events.length));
          expect(l.value.events.length).toBeLessThanOrEqual(plain.events.length);
          if (l.value.events.length < plain.events.length || plain.damage !== null)
            expect(l.value.damaged).toBe(true);
        },
      ),
      { numRuns: 300, seed: 1508 },
    );
  }, 120_000);
});
