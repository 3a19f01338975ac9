/**
 * The Store contract suite on PostgreSQL (a real server: see test/setup/postgres.ts), one schema
 * per store so every `make()` is a fresh, empty store. A held lock is an advisory lock held by a
 * second session.
 */
import pg from 'pg';
import { afterAll } from 'vitest';
import { createPgStore, type PgStore } from '../../src/pg/index.js';
import { usePostgres } from '../setup/postgres.js';
import { fixedClock } from './fixtures.js';
import { describeStoreContract } from './store-contract.js';

const db = usePostgres();
const stores: PgStore[] = [];
const holders = new Map<string, pg.Client>();
let n = 0;

afterAll(async () => {
  for (const c of holders.values()) await c.end();
  for (const s of stores.splice(0)) await s.close();
});

describeStoreContract('postgres', {
  capabilities: { appendBatch: true, readBatches: true },
  make: async (options) => {
    const s = createPgStore({
      connectionString: db.url(),
      schema: `contract_${n++}`,
      now: fixedClock(),
      ...options,
    });
    stores.push(s);
    return s;
  },
  holdLock: async (store, runId, held) => {
    const key = (store as PgStore).lockKey(runId);
    if (held) {
      const c = new pg.Client({ connectionString: db.url() });
      await c.connect();
      await c.query('SELECT pg_advisory_lock($1::bigint)', [key]);
      holders.set(key, c);
    } else {
      const c = holders.get(key);
      holders.delete(key);
      await c?.end();
    }
  },
});
