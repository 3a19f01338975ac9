/**
 * Pins the writer scaffold's behaviour of the pg store's
 * one-round-trip appends — the held connection between back-to-back appends, `busy` on lock
 * contention (connection kept), a plain server ERROR (`write_failed`, connection returned, not
 * destroyed), a backend that dies mid-statement (`indeterminate`, connection destroyed, the next
 * append on a fresh one), `moved` (another writer) falling through to the locked path.
 */
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { createPgStore, type PgStore } from '../../src/store/pg-store.js';
import { usePostgres } from '../setup/postgres.js';
import { dispatch, fixedClock, note } from './fixtures.js';

const db = usePostgres();
let n = 0;
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const f of cleanup.splice(0).reverse()) await f();
});

interface Spy {
  acquires: number[];
  releases: { destroyed: boolean; pid: number }[];
}

function spiedStore(max = 2): { store: PgStore; pool: pg.Pool; spy: Spy; schema: string } {
  const pool = new pg.Pool({ connectionString: db.url(), max });
  pool.on('error', () => {});
  const spy: Spy = { acquires: [], releases: [] };
  pool.on('acquire', (c) => spy.acquires.push((c as unknown as { processID: number }).processID));
  pool.on('release', (err, c) =>
    spy.releases.push({
      destroyed: Boolean(err), // the store passes its destroy flag to release()
      pid: (c as unknown as { processID: number }).processID,
    }),
  );
  const schema = `w_${n++}`;
  const store = createPgStore({ pool, schema, now: fixedClock() });
  cleanup.push(async () => {
    await store.close();
    await pool.end();
  });
  return { store, pool, spy, schema };
}

async function sql(): Promise<pg.Client> {
  const c = new pg.Client({ connectionString: db.url() });
  c.on('error', () => {});
  await c.connect();
  cleanup.push(() => c.end().catch(() => {}));
  return c;
}

const turn = (): Promise<void> => new Promise((r) => setImmediate(r));

async function seqs(store: PgStore, id: string): Promise<number[]> {
  const l = await store.load(id);
  if (!l.ok) throw new Error(l.detail);
  return l.value.events.map((e) => e.seq);
}

/** A store on a one-connection pool with one run holding one committed note, the writer released, and an admin session. */
async function oneNoteRun() {
  const { store, spy, schema } = spiedStore(1);
  const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
  expect((await store.append(id, 'note', note('one'))).outcome).toBe('committed');
  await turn();
  return { store, spy, schema, id, admin: await sql() };
}

describe('writer scaffold', () => {
  it('back-to-back appends, batches and handoffs share one checkout; it is released one turn later', async () => {
    const { store, spy } = spiedStore();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    spy.acquires.length = 0;
    spy.releases.length = 0;
    for (let i = 0; i < 10; i++)
      expect(await store.append(id, 'note', note(`n${i}`))).toMatchObject({
        outcome: 'committed',
        seq: i + 1,
      });
    expect(
      await store.appendBatch(id, [
        { kind: 'note', payload: note('b1') },
        { kind: 'note', payload: note('b2') },
      ]),
    ).toMatchObject({ outcome: 'committed', first_seq: 11, seq: 12 });
    expect(await store.append(id, 'note', note('after'))).toMatchObject({ outcome: 'committed', seq: 13 });
    expect(spy.acquires).toHaveLength(1);
    expect(spy.releases).toHaveLength(0);
    await turn();
    await turn();
    expect(spy.releases).toEqual([{ destroyed: false, pid: spy.acquires[0] }]);
    expect(await seqs(store, id)).toEqual(Array.from({ length: 13 }, (_, i) => i + 1));
  });

  it('a lock held by another session: append and batch are busy, the connection kept, nothing written', async () => {
    const { store, spy } = spiedStore();
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect((await store.append(id, 'note', note('one'))).outcome).toBe('committed');
    await turn();
    const holder = await sql();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [store.lockKey(id)]);
    spy.acquires.length = 0;
    spy.releases.length = 0;
    expect(await store.append(id, 'note', note('x'))).toMatchObject({
      outcome: 'nothing_written',
      code: 'busy',
    });
    expect(
      await store.appendBatch(id, [
        { kind: 'note', payload: note('y1') },
        { kind: 'note', payload: note('y2') },
      ]),
    ).toMatchObject({ outcome: 'nothing_written', code: 'busy' });
    expect(spy.acquires).toHaveLength(1); // held across the busy answers
    expect(spy.releases).toHaveLength(0);
    await holder.query('SELECT pg_advisory_unlock($1::bigint)', [store.lockKey(id)]);
    expect(await store.append(id, 'note', note('two'))).toMatchObject({ outcome: 'committed', seq: 2 });
    await turn();
    // released during the unlock's round trip, then checked out again: the same backend, never destroyed
    expect(new Set(spy.acquires).size).toBe(1);
    expect(spy.releases.map((r) => r.destroyed)).toEqual(spy.acquires.map(() => false));
    expect(await seqs(store, id)).toEqual([1, 2]);
  });

  it('a plain server ERROR is write_failed; the connection goes back at once, not destroyed', async () => {
    const { store, spy, schema, id, admin } = await oneNoteRun();
    await admin.query(
      `CREATE FUNCTION "${schema}".boom() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'boom' USING ERRCODE = 'P0001'; END $$`,
    );
    await admin.query(
      `CREATE TRIGGER boom BEFORE INSERT ON "${schema}".events FOR EACH ROW EXECUTE FUNCTION "${schema}".boom()`,
    );
    spy.acquires.length = 0;
    spy.releases.length = 0;
    const r = await store.append(id, 'note', note('x'));
    expect(r).toMatchObject({ outcome: 'nothing_written', code: 'write_failed' });
    expect(r.detail).toMatch(/boom/);
    expect(spy.acquires).toHaveLength(1);
    expect(spy.releases).toHaveLength(1);
    expect(spy.releases[0]?.destroyed).toBe(false);
    const rb = await store.appendBatch(id, [
      { kind: 'note', payload: note('y1') },
      { kind: 'note', payload: note('y2') },
    ]);
    // the view was forgotten: the locked path (transact) runs append_events, which the trigger also refuses
    expect(rb).toMatchObject({ outcome: 'nothing_written', code: 'write_failed' });
    await admin.query(`DROP TRIGGER boom ON "${schema}".events`);
    expect(await store.append(id, 'note', note('two'))).toMatchObject({ outcome: 'committed', seq: 2 });
    expect(await seqs(store, id)).toEqual([1, 2]);
  });

  for (const which of ['append', 'batch'] as const) {
    it(`a backend that dies mid-statement (${which}): indeterminate, the connection destroyed, the next append on a fresh one`, async () => {
      const { store, spy, schema, id, admin } = await oneNoteRun();
      await admin.query(
        `CREATE FUNCTION "${schema}".die() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_terminate_backend(pg_backend_pid()); PERFORM pg_sleep(5); RETURN NEW; END $$`,
      );
      await admin.query(
        `CREATE TRIGGER die BEFORE INSERT ON "${schema}".events FOR EACH ROW EXECUTE FUNCTION "${schema}".die()`,
      );
      spy.acquires.length = 0;
      spy.releases.length = 0;
      const r =
        which === 'append'
          ? await store.append(id, 'note', note('x'))
          : await store.appendBatch(id, [
              { kind: 'note', payload: note('y1') },
              { kind: 'note', payload: note('y2') },
            ]);
      expect(r).toMatchObject({ outcome: 'indeterminate', step: 'commit', seq: which === 'append' ? 2 : 3 });
      expect(spy.acquires).toHaveLength(1);
      expect(spy.releases).toEqual([{ destroyed: true, pid: spy.acquires[0] }]);
      await admin.query(`DROP TRIGGER die ON "${schema}".events`);
      expect(await store.append(id, 'note', note('two'))).toMatchObject({ outcome: 'committed', seq: 2 });
      expect(spy.acquires).toHaveLength(2);
      expect(spy.acquires[1]).not.toBe(spy.acquires[0]);
      expect(await seqs(store, id)).toEqual([1, 2]);
    });
  }

  it('another writer moved the run: the one-trip try writes nothing, the locked path commits after; hostile text kept', async () => {
    const { store, spy, schema } = spiedStore();
    const other = createPgStore({ connectionString: db.url(), schema, now: fixedClock() });
    cleanup.push(() => other.close());
    const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
    expect((await store.append(id, 'note', note('one'))).outcome).toBe('committed');
    await turn();
    expect((await other.append(id, 'note', note('by other'))).outcome).toBe('committed');
    spy.acquires.length = 0;
    spy.releases.length = 0;
    const hostile = `'); DELETE FROM "${schema}".events; -- $1 $h00$ {"a","b"} \\ handoff_append_v3_one_`;
    expect(await store.append(id, 'note', note(hostile))).toMatchObject({ outcome: 'committed', seq: 3 });
    // the one-trip try's connection went back at once (not destroyed), then the locked path's
    expect(spy.releases.every((x) => !x.destroyed)).toBe(true);
    expect(spy.releases.length).toBeGreaterThanOrEqual(2);
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect((l.value.events[2]?.payload as { text: string } | undefined)?.text).toBe(hostile);
  });
});

describe('reader scaffold', () => {
  it('a plain server ERROR while reading is journal_unreadable with its detail; the connection is kept; reads work after', async () => {
    const { store, spy, schema, id, admin } = await oneNoteRun();
    await admin.query(`ALTER TABLE "${schema}".handoff_batches RENAME TO hb_away`);
    spy.releases.length = 0;
    const b = await store.readBatches(id);
    expect(b).toEqual({
      ok: false,
      code: 'journal_unreadable',
      run_id: id,
      detail: expect.stringMatching(/^cannot read the run's batches: .*handoff_batches.* does not exist$/),
    });
    expect((await store.load(id)).ok).toBe(true);
    await admin.query(`ALTER TABLE "${schema}".handoff_cache RENAME TO hc_away`);
    const l = await store.load(id);
    expect(l).toEqual({
      ok: false,
      code: 'journal_unreadable',
      run_id: id,
      detail: expect.stringMatching(/^cannot read the run: .*handoff_cache.* does not exist$/),
    });
    expect(spy.releases.map((r) => r.destroyed)).toEqual([false, false, false]);
    await admin.query(`ALTER TABLE "${schema}".hb_away RENAME TO handoff_batches`);
    await admin.query(`ALTER TABLE "${schema}".hc_away RENAME TO handoff_cache`);
    const b2 = await store.readBatches(id);
    expect(b2.ok).toBe(true);
    expect(await seqs(store, id)).toEqual([1]);
  });

  it('an unreachable database is journal_unreadable: cannot reach the database', async () => {
    const store = createPgStore({
      connectionString: 'postgresql://nobody@/nodb?host=/nonexistent-dir-a',
      schema: 'x',
    });
    cleanup.push(() => store.close());
    const id = '20261130T100000Z-0123abcd';
    for (const r of [await store.load(id), await store.readBatches(id), await store.loadRun(id)])
      expect(r).toMatchObject({
        ok: false,
        code: 'journal_unreadable',
        run_id: id,
        detail: expect.stringMatching(/^cannot reach the database: /),
      });
  });
});
