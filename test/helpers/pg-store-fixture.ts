/**
 * The setup the PostgreSQL run-store tests share (test/store/pg-guarantees, test/store/pg-schema-v3):
 * on the file's database (test/setup/postgres.ts), stores each in a schema of its own with a fixed
 * clock, raw SQL sessions whose connection errors are ignored (tests cut and terminate sessions on
 * purpose), both closed after every test, and a run holding a number of committed notes.
 */
import pg from 'pg';
import { afterEach, expect } from 'vitest';
import { createPgStore, type PgStore } from '../../src/pg/index.js';
import type { PgTestDatabase } from '../setup/postgres.js';
import { dispatch, fixedClock, note } from '../store/fixtures.js';

/** The options of a fixture store, as `createPgStore` takes them. */
export type PgStoreOptions = Parameters<typeof createPgStore>[0];

/** A test file's stores and sessions (see {@link usePgStores}). */
export interface PgStoreFixture {
  /** A fresh schema name: `prefix` and a counter. */
  nextSchema(): string;
  /** A store on a fresh schema with the fixed clock; `extra` overrides (e.g. `schema`). Closed after the test. */
  fresh(extra?: Partial<PgStoreOptions>): PgStore;
  /** Closes `store` after the test, like the fresh ones; returns it. */
  track(store: PgStore): PgStore;
  /** A connected raw session on the file's database, its error events ignored; ended after the test. */
  sql(): Promise<pg.Client>;
  /** Creates a run on `store` and appends `count` notes `${tag}0`, `${tag}1`…, each asserted `committed`; its id. */
  runWithNotes(store: PgStore, count: number, tag?: string): Promise<string>;
}

/**
 * Registers the `afterEach` hook that ends the test's sessions and then closes its stores.
 *
 * @example
 * ```ts
 * const db = usePostgres();
 * const pgs = usePgStores(db, 'g_');
 * it('…', async () => {
 *   const store = pgs.fresh();
 *   const id = await pgs.runWithNotes(store, 2);
 *   const c = await pgs.sql();
 *   await c.query(`SELECT count(*) FROM "${store.schema}".events WHERE run_id = $1`, [id]);
 * });
 * ```
 */
export function usePgStores(db: PgTestDatabase, prefix: string): PgStoreFixture {
  const stores: PgStore[] = [];
  const clients: pg.Client[] = [];
  let n = 0;
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.end().catch(() => {});
    for (const s of stores.splice(0)) await s.close();
  });
  const nextSchema = () => `${prefix}${n++}`;
  const track = (s: PgStore) => {
    stores.push(s);
    return s;
  };
  return {
    nextSchema,
    track,
    fresh: (extra = {}) =>
      track(createPgStore({ connectionString: db.url(), schema: nextSchema(), now: fixedClock(), ...extra })),
    async sql() {
      const c = new pg.Client({ connectionString: db.url() });
      c.on('error', () => {});
      await c.connect();
      clients.push(c);
      return c;
    },
    async runWithNotes(store, count, tag = 'n') {
      const id = (await store.createRun({ dispatch: dispatch() })).run_id as string;
      for (let i = 0; i < count; i++)
        expect(await store.append(id, 'note', note(`${tag}${i}`))).toMatchObject({ outcome: 'committed' });
      return id;
    },
  };
}
