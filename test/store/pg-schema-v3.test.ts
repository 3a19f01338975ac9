/**
 * Schema version 3 of the PostgreSQL run store against a real server: the database still refuses
 * every gapped, duplicate or orphan event without the foreign key `events → runs` (the trigger
 * `events_dense` probes the predecessor, and the run row for seq 1); a version-2 schema migrates
 * in place (rows kept, the foreign key and the `max(seq)` trigger replaced); a version-2 process
 * (its one-statement `append_events` call and its locked path) keeps writing correctly next to a
 * version-3 store on one run; rows deleted behind the store (the store's view then runs ahead of
 * the journal) make the single-row insert refuse, and nothing is written; an outrun batch and an
 * outrun handoff (the `WITH … INSERT` statement) write nothing on their one-trip try and commit
 * after the new rows.
 */
import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { PgStore } from '../../src/pg/index.js';
import { usePgStores } from '../helpers/pg-store-fixture.js';
import { usePostgres } from '../setup/postgres.js';
import { note, solvedHandoff } from './fixtures.js';
import { eventsShape, toVersion2 } from './pg-old-schemas.js';

const db = usePostgres();
const pgs = usePgStores(db, 'v3_');

const texts = async (store: PgStore, id: string): Promise<string[]> => {
  const l = await store.load(id);
  if (!l.ok) throw new Error(l.detail);
  expect(l.value.damaged).toBe(false);
  return l.value.events.map((e) => (e.payload as { text: string }).text);
};

/** The stored line of `seq` in run `id` (lines carry no run id: one run's line fits another's seq). */
async function lineOf(c: pg.Client, schema: string, id: string, seq: number): Promise<string> {
  const r = await c.query<{ line: string }>(
    `SELECT line FROM "${schema}".events WHERE run_id = $1 AND seq = $2`,
    [id, seq],
  );
  const line = r.rows[0]?.line;
  if (line === undefined) throw new Error(`no seq ${seq}`);
  return line;
}

describe('version 3: density and the run row without a foreign key', () => {
  it('an orphan, gapped or duplicate event is refused by the database; the first event needs its run', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 2);
    const c = await pgs.sql();
    const s = `"${store.schema}"`;
    const line = await lineOf(c, store.schema, id, 1);
    expect(await eventsShape(c, store.schema)).toEqual({
      triggers: ['events_append_only', 'events_dense', 'events_no_truncate'],
      foreignKeys: [],
    });
    const refusals: [string, unknown[], RegExp, string][] = [
      // a well-formed run id that has no run row: refused at seq 1 and at any later seq
      [
        `INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 1, $2)`,
        ['20260101T000000Z-00000000', line],
        /no run/,
        '23503',
      ],
      [
        `INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 2, $2)`,
        ['20260101T000000Z-00000000', line],
        /not dense/,
        '23514',
      ],
      [`INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 4, $2)`, [id, line], /not dense/, '23514'],
      [
        `INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 1, $2)`,
        [id, line],
        /duplicate key/,
        '23505',
      ],
      [
        `INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 2, $2)`,
        [id, line],
        /duplicate key/,
        '23505',
      ],
      // a multi-row insert is checked row by row: seq 3 passes, seq 5 has no seq 4
      [
        `INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 3, $2), ($1, 5, $2)`,
        [id, line],
        /not dense/,
        '23514',
      ],
    ];
    for (const [q, values, message, code] of refusals) {
      const e = await c.query(q, values).then(
        () => null,
        (x: unknown) => x as { message: string; code: string },
      );
      expect(e, q).not.toBeNull();
      expect([e?.code, message.test(e?.message ?? '')], q).toEqual([code, true]);
    }
    // in order, several rows in one statement pass (each sees the one before)
    await c.query(`INSERT INTO ${s}.events (run_id, seq, line) VALUES ($1, 3, $2), ($1, 4, $3)`, [
      id,
      await lineOf(c, store.schema, id, 1),
      await lineOf(c, store.schema, id, 2),
    ]);
    const n3 = await c.query(`SELECT count(*)::int AS n FROM ${s}.events WHERE run_id = $1`, [id]);
    expect(n3.rows[0]).toEqual({ n: 4 });
    const none = await c.query(`SELECT count(*)::int AS n FROM ${s}.events WHERE run_id <> $1`, [id]);
    expect(none.rows[0]).toEqual({ n: 0 });
  });
});

describe('migration from version 2', () => {
  it('a version-2 schema loses its foreign key and max(seq) trigger, gains events_dense; rows stay and take appends', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 2, 'v2-');
    const c = await pgs.sql();
    await toVersion2(c, store.schema);
    expect(await eventsShape(c, store.schema)).toEqual({
      triggers: ['events_append_only', 'events_dense_seq', 'events_no_truncate'],
      foreignKeys: ['events_run_id_fkey'],
    });
    const upgraded = pgs.fresh({ schema: store.schema });
    expect(await upgraded.append(id, 'note', note('v3-0'))).toMatchObject({ outcome: 'committed', seq: 3 });
    // and the steady state (one statement) on the migrated schema
    expect(await upgraded.append(id, 'note', note('v3-1'))).toMatchObject({ outcome: 'committed', seq: 4 });
    expect(await eventsShape(c, store.schema)).toEqual({
      triggers: ['events_append_only', 'events_dense', 'events_no_truncate'],
      foreignKeys: [],
    });
    const fn = await c.query(`SELECT to_regprocedure($1) AS f`, [`"${store.schema}".dense_seq()`]);
    expect(fn.rows[0]).toEqual({ f: null });
    const v = await c.query(`SELECT version FROM "${store.schema}".schema_version ORDER BY version`);
    expect(v.rows).toEqual([{ version: 2 }, { version: 3 }]);
    expect(await texts(upgraded, id)).toEqual(['v2-0', 'v2-1', 'v3-0', 'v3-1']);
    // migrating again changes nothing
    await pgs.fresh({ schema: store.schema }).migrate();
    expect(await texts(upgraded, id)).toEqual(['v2-0', 'v2-1', 'v3-0', 'v3-1']);
  });
});

describe('a version-2 process next to a version-3 store', () => {
  it("the v2 one-statement call and the v2 locked path interleave with the v3 store's single-row inserts; seqs dense, busy kept", async () => {
    const store = pgs.fresh();
    // lines carry no run id: a donor run provides valid lines for seqs 1 … 6
    const donor = await pgs.runWithNotes(store, 6, 'd');
    const id = await pgs.runWithNotes(store, 1, 'v3-');
    const c = await pgs.sql();
    const s = `"${store.schema}"`;
    const v2call = (seq: number, line: string) =>
      c.query<{ r: number }>(`SELECT ${s}.append_events($1, $2, $3, NULL, NULL, NULL, NULL) AS r`, [
        id,
        seq,
        [line],
      ]);
    // the v2 fast path: append_events alone (its own transaction)
    expect((await v2call(2, await lineOf(c, store.schema, donor, 2))).rows[0]).toEqual({ r: 1 });
    // the v3 store was outrun: its single-row insert is refused (seq 2 exists), the locked path commits
    const after = await store.append(id, 'note', note('v3-after'));
    expect(after, JSON.stringify(after)).toMatchObject({ outcome: 'committed', seq: 3 });
    // the v2 locked path: BEGIN, the lock by its client-side key, the call, COMMIT
    await c.query('BEGIN');
    await c.query('SELECT pg_try_advisory_xact_lock($1::bigint)', [store.lockKey(id)]);
    // while the v2 writer holds the lock, the v3 store is busy and writes nothing
    expect(await store.append(id, 'note', note('blocked'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    expect((await v2call(4, await lineOf(c, store.schema, donor, 4))).rows[0]).toEqual({ r: 3 });
    await c.query('COMMIT');
    // a v2 call planned on a stale view writes nothing (its function answers the real last seq)
    expect((await v2call(4, await lineOf(c, store.schema, donor, 4))).rows[0]).toEqual({ r: 4 });
    expect(await store.append(id, 'note', note('v3-last'))).toMatchObject({ outcome: 'committed', seq: 5 });
    expect(await texts(store, id)).toEqual(['v3-0', 'd1', 'v3-after', 'd3', 'v3-last']);
  });
});

describe('hostile: rows removed behind the store', () => {
  it('a view ahead of the journal (rows deleted with triggers disabled) makes the single-row insert refuse; nothing is written', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 3);
    const c = await pgs.sql();
    const s = `"${store.schema}"`;
    await c.query(`ALTER TABLE ${s}.events DISABLE TRIGGER USER`);
    await c.query(`DELETE FROM ${s}.events WHERE run_id = $1 AND seq >= 2`, [id]);
    await c.query(`ALTER TABLE ${s}.events ENABLE TRIGGER USER`);
    // the store's view says seq 3 is the last: its seq-4 insert has no seq 3 (refused by
    // events_dense), the locked path finds the journal shorter than the view under the lock
    expect(await store.append(id, 'note', note('x'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'write_failed',
    });
    expect(await texts(store, id)).toEqual(['n0']);
  });
});

describe('the batch statement when the run moved on', () => {
  it('an outrun batch and an outrun handoff write nothing on the one-trip try, then commit after the new rows; records complete, cache current', async () => {
    const a = pgs.fresh();
    const id = await pgs.runWithNotes(a, 1, 'a');
    const b = pgs.fresh({ schema: a.schema });
    // b's first write reads the run under the lock; a's view stays at seq 1
    expect(
      await b.appendBatch(id, [
        { kind: 'note', payload: note('b0') },
        { kind: 'note', payload: note('b1') },
      ]),
    ).toMatchObject({
      outcome: 'committed',
      first_seq: 2,
      seq: 3,
    });
    // a plans seqs 2–3: seq 2 is taken (23505), nothing written, the locked path commits 4–5
    expect(
      await a.appendBatch(
        id,
        [
          { kind: 'note', payload: note('a1') },
          { kind: 'note', payload: note('a2') },
        ],
        {
          trace: [{ machine: 'm', from: 'x', event: 'GO', to: 'y' }],
        },
      ),
    ).toMatchObject({ outcome: 'committed', first_seq: 4, seq: 5 });
    expect(await b.append(id, 'note', note('b2'))).toMatchObject({ outcome: 'committed', seq: 6 });
    expect(await a.setHandoff(id, solvedHandoff())).toMatchObject({ outcome: 'committed', seq: 7 });
    const l = await a.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect([l.value.damaged, l.value.handoff_cache]).toEqual([false, 'current']);
    expect(l.value.events.map((e) => e.kind)).toEqual([
      'note',
      'note',
      'note',
      'note',
      'note',
      'note',
      'handoff',
    ]);
    const r = await a.readBatches(id);
    if (!r.ok) throw new Error(r.detail);
    expect(r.value.batches.map((x) => [x.first_seq, x.last_seq, x.status])).toEqual([
      [2, 3, 'complete'],
      [4, 5, 'complete'],
    ]);
  });
});
