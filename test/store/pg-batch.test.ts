/**
 * Group commit on PostgreSQL against a real server: an append or a batch is one round trip when
 * the store's view of the run is current (counted on the wire: one query message), two on the
 * locked path; a batch is all-or-nothing also when the database refuses one of its rows; a lock
 * held by another session makes a batch busy on both paths; batches of two processes never
 * interleave; the trace round-trips through `handoff_batches` (and a plain load never meets it);
 * batch rows equal the fs backend's journal lines and records; an edited batch line is `torn` in
 * `readBatches`; a version-1 schema migrates in place; the server derives the same lock key.
 * Children use dist/ (run `npm run build` first).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgStore, type PgStore } from '../../src/pg/index.js';
import { createFsStore } from '../../src/store/index.js';
import { pgAdvisoryKeySql } from '../../src/store/pg-schema.js';
import type { BatchEntry, TraceStep } from '../../src/store/store.js';
import { type ChildResult, spawnChild } from '../helpers/child.js';
import { usePostgres } from '../setup/postgres.js';
import { batchReview, dispatch, fixedClock, note, replan, stuckHandoff } from './fixtures.js';
import { eventsShape, toVersion1 } from './pg-old-schemas.js';

const CHILD = fileURLToPath(new URL('./pg-child.mjs', import.meta.url));
const db = usePostgres();
const stores: PgStore[] = [];
const clients: pg.Client[] = [];
const pools: pg.Pool[] = [];
const dirs: string[] = [];
let n = 0;

afterEach(async () => {
  for (const c of clients.splice(0)) await c.end().catch(() => {});
  for (const s of stores.splice(0)) await s.close();
  for (const p of pools.splice(0)) await p.end();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const TRACE: TraceStep[] = [
  { machine: 'cycle', from: 'work.dispatch', event: 'DISPATCHED', to: 'work.await_worker' },
  { machine: 'cycle', from: 'work.await_worker', event: 'HANDOFF', to: 'review', guard: 'isStuck' },
  { machine: 'cycle', from: 'review', event: 'REVIEWED', to: 'replan', actor: 'reviewer ⊢ ≤ 😀' },
];

function fresh(extra: Partial<Parameters<typeof createPgStore>[0]> = {}): PgStore {
  const s = createPgStore({ connectionString: db.url(), schema: `b_${n++}`, now: fixedClock(), ...extra });
  stores.push(s);
  return s;
}

/** A store on its own pool whose query messages are counted (each is one round trip). */
function counted(schema?: string): { store: PgStore; messages: () => number } {
  let count = 0;
  const pool = new pg.Pool({ connectionString: db.url(), max: 1 });
  pools.push(pool);
  pool.on('connect', (client) => {
    const query = client.query.bind(client) as (...a: unknown[]) => unknown;
    (client as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
      count++;
      return query(...a);
    };
  });
  const store = createPgStore({ pool, schema: schema ?? `b_${n++}`, now: fixedClock() });
  stores.push(store);
  return { store, messages: () => count };
}

async function sql(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url() });
  c.on('error', () => {});
  await c.connect();
  clients.push(c);
  return c;
}

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'pg-batch-'));
  dirs.push(d);
  return d;
}

const notes = (tag: string, k: number): BatchEntry[] =>
  Array.from({ length: k }, (_, i) => ({ kind: 'note', payload: note(`${tag}-${i}`) }));

const texts = async (store: PgStore, id: string): Promise<string[]> => {
  const l = await store.load(id);
  if (!l.ok) throw new Error(l.detail);
  expect(l.value.damaged).toBe(false);
  return l.value.events.map((e) => (e.payload as { text: string }).text);
};

describe('round trips', () => {
  it('an append and a batch are one query message when the view is current; a new or outrun view takes the locked path', async () => {
    const { store, messages } = counted();
    await store.migrate();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    let before = messages();
    expect(await store.append(id, 'note', note('a'))).toMatchObject({ outcome: 'committed', seq: 1 });
    expect(messages() - before).toBe(1);
    before = messages();
    expect(await store.appendBatch(id, notes('b', 5), { trace: TRACE })).toMatchObject({
      outcome: 'committed',
      first_seq: 2,
      seq: 6,
    });
    expect(messages() - before).toBe(1);
    before = messages();
    expect(await store.setHandoff(id, stuckHandoff())).toMatchObject({ outcome: 'committed', seq: 7 });
    expect(messages() - before).toBe(1);

    // another process's store: its first append reads the run under the lock (2), then 1 each
    const other = counted(store.schema);
    await other.store.migrate();
    before = other.messages();
    expect(await other.store.append(id, 'note', note('c'))).toMatchObject({ seq: 8 });
    expect(other.messages() - before).toBe(2);
    before = other.messages();
    expect(await other.store.appendBatch(id, notes('d', 2))).toMatchObject({ first_seq: 9, seq: 10 });
    expect(other.messages() - before).toBe(1);

    // the first store was outrun: its one-trip try writes nothing, the locked path then commits
    before = messages();
    expect(await store.append(id, 'note', note('e'))).toMatchObject({ outcome: 'committed', seq: 11 });
    expect(messages() - before).toBe(3);
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect([l.value.damaged, l.value.handoff_cache]).toEqual([false, 'current']);
    expect(l.value.events.map((e) => [e.seq, e.kind])).toEqual([
      [1, 'note'],
      ...[2, 3, 4, 5, 6].map((seq) => [seq, 'note']),
      [7, 'handoff'],
      [8, 'note'],
      [9, 'note'],
      [10, 'note'],
      [11, 'note'],
    ]);
  });
});

describe('all-or-nothing', () => {
  it('a row the database refuses in the middle of a batch leaves nothing: no event, no cache, no record', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect(await store.append(id, 'note', note('first'))).toMatchObject({ seq: 1 });
    const c = await sql();
    // a constraint the store knows nothing about refuses the third line only
    await c.query(
      `ALTER TABLE "${store.schema}".events ADD CONSTRAINT no_poison CHECK (position('poison' in line) = 0) NOT VALID`,
    );
    const r = await store.appendBatch(
      id,
      [
        { kind: 'handoff', payload: stuckHandoff() },
        { kind: 'note', payload: note('fine') },
        { kind: 'note', payload: note('poison') },
        { kind: 'note', payload: note('after') },
      ],
      { trace: TRACE },
    );
    expect(r).toMatchObject({ outcome: 'nothing_written', code: 'write_failed' });
    expect(await texts(store, id)).toEqual(['first']);
    const l = await store.load(id);
    expect(l.ok && l.value.handoff_cache).toBe('absent');
    const b = await store.readBatches(id);
    expect(b.ok && b.value.batches).toEqual([]);
    const rows = await c.query(
      `SELECT (SELECT count(*) FROM "${store.schema}".handoff_cache)::int AS cache, (SELECT count(*) FROM "${store.schema}".handoff_batches)::int AS batches`,
    );
    expect(rows.rows[0]).toEqual({ cache: 0, batches: 0 });
    // the store is not stuck: the next batch takes seq 2
    expect(await store.appendBatch(id, notes('ok', 2))).toMatchObject({
      outcome: 'committed',
      first_seq: 2,
      seq: 3,
    });
  });

  it('an entry refused at its real seq refuses the batch on both paths (a cite of a later seq; kind unsupported)', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    const v1 = (await store.createRun({ dispatch: dispatch(), eventSchema: 'v1' })).run_id as string;
    for (const s of [store, fresh({ schema: store.schema })]) {
      expect(
        await s.appendBatch(id, [
          { kind: 'note', payload: note('a') },
          { kind: 'replan', payload: replan([`${id}#2`]) },
        ]),
      ).toMatchObject({
        outcome: 'nothing_written',
        code: 'invalid_payload',
        detail: expect.stringContaining('entries[1]'),
      });
      expect(
        await s.appendBatch(v1, [
          { kind: 'note', payload: note('a') },
          { kind: 'review', payload: batchReview() },
        ]),
      ).toMatchObject({
        outcome: 'nothing_written',
        code: 'kind_unsupported',
        detail: expect.stringContaining('entries[1]'),
      });
    }
    expect(await texts(store, id)).toEqual([]);
    expect(
      await store.appendBatch(id, [
        { kind: 'note', payload: note('a') },
        { kind: 'replan', payload: replan([`${id}#1`]) },
      ]),
    ).toMatchObject({ outcome: 'committed', first_seq: 1, seq: 2 });
  });
});

describe('locks', () => {
  it('a batch is busy while another session holds the run lock, on the one-trip and the locked path; nothing is written', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    const holder = await sql();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [store.lockKey(id)]);
    const newcomer = fresh({ schema: store.schema });
    for (const s of [store, newcomer])
      expect(await s.appendBatch(id, notes('x', 3), { trace: TRACE })).toMatchObject({
        outcome: 'nothing_written',
        code: 'busy',
      });
    expect(await store.isLocked(id)).toBe(true);
    expect(await texts(store, id)).toEqual([]);
    await holder.query('SELECT pg_advisory_unlock($1::bigint)', [store.lockKey(id)]);
    expect(await newcomer.appendBatch(id, notes('y', 2))).toMatchObject({
      outcome: 'committed',
      first_seq: 1,
      seq: 2,
    });
    expect(await store.appendBatch(id, notes('z', 2))).toMatchObject({
      outcome: 'committed',
      first_seq: 3,
      seq: 4,
    });
  });

  it('inside the one-trip transaction (the beforeCommit seam) the lock is held and the rows are invisible until COMMIT', async () => {
    const seen: unknown[] = [];
    let other: PgStore | null = null;
    let runId = '';
    const store = fresh({
      beforeCommit: async ({ seq }) => {
        if (seq === undefined || other === null) return; // createRun
        const l = await other.load(runId);
        seen.push([
          seq,
          await other.isLocked(runId),
          (await other.append(runId, 'note', note('intruder'))).code,
          l.ok && l.value.events.length,
        ]);
      },
    });
    runId = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    other = fresh({ schema: store.schema });
    expect(await store.appendBatch(runId, notes('a', 3), { trace: TRACE })).toMatchObject({
      outcome: 'committed',
      first_seq: 1,
      seq: 3,
    });
    expect(await store.append(runId, 'note', note('b'))).toMatchObject({ outcome: 'committed', seq: 4 });
    expect(seen).toEqual([
      [3, true, 'busy', 0],
      [4, true, 'busy', 3],
    ]);
    expect(await texts(store, runId)).toEqual(['a-0', 'a-1', 'a-2', 'b']);
  });

  it('the server derives the same advisory-lock key as the store', async () => {
    const store = fresh();
    const c = await sql();
    for (const id of ['20261130T100000Z-0123abcd', '20991231T235959Z-ffffffff']) {
      const r = await c.query<{ key: string }>(
        `SELECT ${pgAdvisoryKeySql(store.schema, '$1::text')}::text AS key`,
        [id],
      );
      expect(r.rows[0]?.key).toBe(store.lockKey(id));
    }
  });

  it('two processes committing batches on one run: every batch committed or busy, never interleaved, seqs dense, records complete', async () => {
    const store = fresh();
    await store.migrate();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    const sync = tmp();
    const COUNT = 15;
    const procs = ['p', 'q'].map((tag) =>
      spawnChild(CHILD, ['batchloop', db.url(), store.schema, id, sync, tag, String(COUNT)]),
    );
    await new Promise((r) => setTimeout(r, 300)); // both children loaded before the start signal
    writeFileSync(join(sync, 'start'), '');
    const results: ChildResult[] = await Promise.all(procs);
    const lines = results.flatMap((r) => {
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x) as { outcome: string; code?: string; first_seq?: number; seq?: number });
    });
    expect(lines).toHaveLength(2 * COUNT);
    for (const l of lines)
      expect(l.outcome === 'committed' || l.code === 'busy', JSON.stringify(l)).toBe(true);
    const committed = lines
      .filter((l) => l.outcome === 'committed')
      .map((l) => [l.first_seq as number, l.seq as number] as const)
      .sort((a, b) => a[0] - b[0]);
    expect(committed.length).toBeGreaterThan(0);
    expect(committed).toEqual(committed.map((_, i) => [5 * i + 1, 5 * i + 5]));
    const all = await texts(store, id);
    expect(all).toHaveLength(5 * committed.length);
    for (let b = 0; b < committed.length; b++) {
      const group = all.slice(5 * b, 5 * b + 5);
      const m = /^([pq])-(\d+)-0$/.exec(group[0] as string);
      expect(m, group.join(',')).not.toBeNull();
      expect(group).toEqual([0, 1, 2, 3, 4].map((j) => `${m?.[1]}-${m?.[2]}-${j}`));
    }
    const recs = await store.readBatches(id);
    if (!recs.ok) throw new Error(recs.detail);
    expect(recs.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual(
      committed.map(([f, l]) => [f, l, 'complete']),
    );
  }, 60_000);
});

describe('the trace and the records', () => {
  it('the trace round-trips through handoff_batches; load never shows it; a U+0000 or malformed trace is refused', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect(await store.appendBatch(id, notes('t', 2), { trace: TRACE })).toMatchObject({
      first_seq: 1,
      seq: 2,
    });
    expect(await store.appendBatch(id, notes('u', 1), { trace: [] })).toMatchObject({ first_seq: 3, seq: 3 });
    expect(await store.appendBatch(id, notes('v', 1))).toMatchObject({ first_seq: 4, seq: 4 }); // no record
    for (const reader of [store, fresh({ schema: store.schema })]) {
      const b = await reader.readBatches(id);
      if (!b.ok) throw new Error(b.detail);
      expect(b.value.warnings).toEqual([]);
      expect(
        b.value.batches.map((x) => [x.line, x.first_seq, x.last_seq, x.count, x.trace, x.status]),
      ).toEqual([
        [1, 1, 2, 2, TRACE, 'complete'],
        [2, 3, 3, 1, [], 'complete'],
      ]);
    }
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(JSON.stringify(l.value)).not.toContain('DISPATCHED');
    for (const trace of [
      [{ ...TRACE[0], to: 'a\u0000b' }],
      [{ machine: 'cycle', from: 'a', event: 'GO' }],
      [{ ...TRACE[0], extra: 'x' }],
      'not an array',
    ])
      expect(await store.appendBatch(id, notes('w', 2), { trace: trace as never })).toMatchObject({
        outcome: 'nothing_written',
        code: 'invalid_payload',
      });
    expect(await texts(store, id)).toEqual(['t-0', 't-1', 'u-0', 'v-0']);
    expect(await store.readBatches('20261130T100000Z-00000000')).toMatchObject({
      ok: false,
      code: 'no_such_run',
    });
  });

  it('batch rows and records equal the fs backend journal lines and batch records, byte for byte', async () => {
    const suffix = () => '7484bfa8';
    const pgStore = fresh({ runIdSuffix: suffix, root: '/same/root' });
    const fsRoot = join(tmp(), 'store');
    const fsStore = createFsStore({
      root: fsRoot,
      env: {},
      now: fixedClock(),
      runIdSuffix: suffix,
      gitTracked: () => [],
    });
    const id = (await pgStore.createRun({ dispatch: dispatch() })).run_id as string;
    expect((await fsStore.createRun({ dispatch: dispatch() })).run_id).toBe(id);
    const batch: BatchEntry[] = [
      { kind: 'note', payload: note('closes ⊢ a ≤ b; 😀 \u2028') },
      { kind: 'handoff', payload: stuckHandoff() },
      { kind: 'replan', payload: replan([`${id}#1`]) },
    ];
    for (const s of [pgStore, fsStore]) {
      expect(await s.append(id, 'note', note('single'))).toMatchObject({ seq: 1 });
      expect(await s.appendBatch(id, batch, { trace: TRACE })).toMatchObject({ first_seq: 2, seq: 4 });
    }
    const c = await sql();
    const rows = await c.query<{ line: string }>(
      `SELECT line FROM "${pgStore.schema}".events WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
    const dir = join(fsRoot, 'runs', id);
    expect(`${rows.rows.map((r) => r.line).join('\n')}\n`).toBe(
      readFileSync(join(dir, 'events.jsonl'), 'utf8'),
    );
    const cache = await c.query<{ body: string }>(
      `SELECT body FROM "${pgStore.schema}".handoff_cache WHERE run_id = $1`,
      [id],
    );
    expect(`${cache.rows[0]?.body}\n`).toBe(readFileSync(join(dir, 'handoff.json'), 'utf8'));
    const [pb, fb] = [await pgStore.readBatches(id), await fsStore.readBatches(id)];
    if (!pb.ok || !fb.ok) throw new Error('readBatches failed');
    expect(pb.value).toEqual(fb.value);
    expect(existsSync(join(dir, 'batches.jsonl'))).toBe(true);
  });

  it('a batch line edited behind the store (still canonical) is torn in readBatches; later records unreached', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    await store.appendBatch(id, notes('a', 2));
    await store.appendBatch(id, notes('b', 2));
    const c = await sql();
    const s = `"${store.schema}"`;
    await c.query(`ALTER TABLE ${s}.events DISABLE TRIGGER USER`);
    await c.query(`UPDATE ${s}.events SET line = replace(line, 'a-1', 'a-X') WHERE run_id = $1 AND seq = 2`, [
      id,
    ]);
    await c.query(`ALTER TABLE ${s}.events ENABLE TRIGGER USER`);
    const b = await store.readBatches(id);
    if (!b.ok) throw new Error(b.detail);
    expect(b.value.batches.map((x) => x.status)).toEqual(['torn', 'unreached']);
  });
});

describe('migration', () => {
  it('a version-1 schema gains handoff_batches, append_events and the version-3 trigger in place; its rows stay and take batches', async () => {
    const store = fresh();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect(await store.append(id, 'note', note('v1 era'))).toMatchObject({ seq: 1 });
    const c = await sql();
    const s = `"${store.schema}"`;
    // the version-1 shape: the v2 DDL without handoff_batches and append_events
    await toVersion1(c, store.schema);
    const upgraded = fresh({ schema: store.schema });
    expect(await upgraded.appendBatch(id, notes('v2', 2), { trace: TRACE })).toMatchObject({
      outcome: 'committed',
      first_seq: 2,
      seq: 3,
    });
    const v = await c.query(`SELECT version FROM ${s}.schema_version ORDER BY version`);
    expect(v.rows).toEqual([{ version: 1 }, { version: 2 }, { version: 3 }]);
    expect(await texts(upgraded, id)).toEqual(['v1 era', 'v2-0', 'v2-1']);
    const b = await upgraded.readBatches(id);
    expect(b.ok && b.value.batches.map((x) => x.trace)).toEqual([TRACE]);
    expect(await eventsShape(c, store.schema)).toEqual({
      triggers: ['events_append_only', 'events_dense', 'events_no_truncate'],
      foreignKeys: [],
    });
  });
});
