/**
 * The setup the PostgreSQL continuation-ledger tests share (test/gate/pg-ledger,
 * test/gate/pg-ledger-trace): on the file's database (test/setup/postgres.ts), ledgers (clock
 * `T0`) and bare logs each on the schema asked for, raw SQL sessions, and scratch directories —
 * all closed or removed after each test or after the file, as the file asks.
 */
import pg from 'pg';
import { afterAll, afterEach } from 'vitest';
import { createPgLedger, type PgLedgerLog, pgLedgerLog } from '../../src/pg/index.js';
import { rm, T0 } from '../gate/fixtures.js';
import type { PgTestDatabase } from '../setup/postgres.js';

/** A PostgreSQL ledger as `createPgLedger` makes it. */
export type PgLedger = ReturnType<typeof createPgLedger>;

/** Options of {@link usePgLedgers}. */
export interface PgLedgerFixtureOptions {
  /** When the fixture closes what it opened and removes its directories: after each test, or after the file. */
  readonly cleanup: 'afterEach' | 'afterAll';
  /** The schema prefix of {@link PgLedgerFixture.ledger} without a schema (default `ledger_`). */
  readonly prefix?: string;
}

/** A test file's ledgers, logs, sessions and directories (see {@link usePgLedgers}). */
export interface PgLedgerFixture {
  /** Directories to remove at cleanup (push scratch directories here, e.g. for `runExampleGate`). */
  readonly dirs: string[];
  /** `${prefix}N`, N counting up across the file (one counter for every prefix). */
  schema(prefix: string): string;
  /** A ledger with clock `T0` on `schema` (default: a fresh one with the fixture's prefix). */
  ledger(schema?: string): PgLedger;
  /** A bare log on `schema`. */
  log(schema: string): PgLedgerLog;
  /** A connected raw session on the file's database. */
  sql(): Promise<pg.Client>;
}

/**
 * Registers the cleanup hook (`afterEach` or `afterAll`) that closes every ledger, log and session
 * the fixture opened, then removes its directories.
 *
 * @example
 * ```ts
 * const db = usePostgres();
 * const pgl = usePgLedgers(db, { cleanup: 'afterEach' });
 * it('…', async () => {
 *   const l = pgl.ledger();
 *   await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
 *   const c = await pgl.sql();
 *   await c.query(`SELECT count(*) FROM "${l.log.schema}".ledger_events`);
 * });
 * ```
 */
export function usePgLedgers(db: PgTestDatabase, options: PgLedgerFixtureOptions): PgLedgerFixture {
  const open: { close(): Promise<unknown> }[] = [];
  const dirs: string[] = [];
  let n = 0;
  const cleanup = async () => {
    for (const o of open.splice(0)) await o.close();
    for (const d of dirs.splice(0)) rm(d);
  };
  if (options.cleanup === 'afterEach') afterEach(cleanup);
  else afterAll(cleanup);
  const schema = (prefix: string) => `${prefix}${n++}`;
  return {
    dirs,
    schema,
    ledger(s = schema(options.prefix ?? 'ledger_')) {
      const l = createPgLedger({ connectionString: db.url(), schema: s }, { now: () => T0 });
      open.push(l);
      return l;
    },
    log(s) {
      const l = pgLedgerLog({ connectionString: db.url(), schema: s });
      open.push(l);
      return l;
    },
    async sql() {
      const c = new pg.Client({ connectionString: db.url() });
      await c.connect();
      open.push({ close: () => c.end() });
      return c;
    },
  };
}
