/**
 * PostgreSQL for tests. `usePostgres()` (call at the top of a test file) gives the file its own
 * database, created in `beforeAll` and dropped in `afterAll`, on:
 * 1. the server named by HANDOFF_TEST_PG_URL (a superuser-ish URL: the helper creates databases), else
 * 2. the cluster started once per vitest run by the globalSetup ./postgres-global.ts, else
 * 3. a throwaway cluster started for this file alone (when the globalSetup is not configured).
 * Without PostgreSQL binaries the hook fails with a clear message: the tests fail, never skip.
 */

import pg from 'pg';
import { afterAll, beforeAll, inject } from 'vitest';
import { randomHex } from '../../src/ids/index.js';
import { type PgCluster, startPgCluster } from './postgres-cluster.js';

/** A test file's database. */
export interface PgTestDatabase {
  /** Connection string of the file's own database. */
  url(): string;
  /** Connection string of the server's maintenance database (to create more databases). */
  adminUrl(): string;
}

function withDatabase(url: string, database: string): string {
  const u = new URL(url);
  u.pathname = `/${database}`;
  return u.toString();
}

function injected(): string | undefined {
  try {
    return inject('handoffPgAdminUrl');
  } catch {
    return undefined;
  }
}

/**
 * Registers beforeAll/afterAll hooks that create and drop a database for this test file.
 *
 * @example
 * ```ts
 * const db = usePostgres();
 * it('…', async () => { const store = createPgStore({ connectionString: db.url() }); … });
 * ```
 */
export function usePostgres(): PgTestDatabase {
  let cluster: PgCluster | null = null;
  let admin: string | null = null;
  let url: string | null = null;
  const name = `handoff_t_${randomHex(12)}`;
  beforeAll(async () => {
    const fromEnv = process.env.HANDOFF_TEST_PG_URL;
    if (fromEnv !== undefined && fromEnv !== '') admin = fromEnv;
    else {
      admin = injected() ?? null;
      if (admin === null) {
        cluster = await startPgCluster();
        admin = cluster.adminUrl;
      }
    }
    const c = new pg.Client({ connectionString: admin });
    await c.connect();
    try {
      await c.query(`CREATE DATABASE "${name}"`);
    } finally {
      await c.end();
    }
    url = withDatabase(admin, name);
  }, 60_000);
  afterAll(async () => {
    if (admin !== null && url !== null) {
      const c = new pg.Client({ connectionString: admin });
      await c.connect();
      try {
        await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await c.end();
      }
    }
    if (cluster !== null) await (cluster as PgCluster).stop();
  }, 60_000);
  return {
    url: () => {
      if (url === null) throw new Error('usePostgres: the database is created in beforeAll');
      return url;
    },
    adminUrl: () => {
      if (admin === null) throw new Error('usePostgres: the server is chosen in beforeAll');
      return admin;
    },
  };
}
