/**
 * The PostgreSQL run store's schema (DDL as data, pure): tables `runs`, `events`, `handoff_cache`
 * and `schema_version` in one PostgreSQL schema, append-only triggers that raise on UPDATE,
 * DELETE and TRUNCATE, a trigger that refuses any event whose seq is not the run's last seq + 1,
 * and the advisory-lock key of a run. Applying the statements is idempotent
 * (`CREATE … IF NOT EXISTS`, `CREATE OR REPLACE`); `pg-store.ts` runs them.
 */
import { sha256Hex } from '../canonical/index.js';

/** Version recorded in `schema_version` by {@link pgStoreDdl}. */
export const PG_STORE_SCHEMA_VERSION = 1;

/** Default PostgreSQL schema of the run store. */
export const PG_STORE_DEFAULT_SCHEMA = 'handoff_store';

/** Names accepted as a PostgreSQL schema (lower-case identifiers, never quoted-escaped). */
export const PG_SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * True when `name` is usable as the store's PostgreSQL schema.
 *
 * @example
 * ```ts
 * isPgSchemaName('handoff_store'); // true
 * isPgSchemaName('x"; DROP'); // false
 * ```
 */
export function isPgSchemaName(name: string): boolean {
  return PG_SCHEMA_NAME.test(name);
}

/**
 * The DDL statements of the store in `schema`, in order. Every statement is idempotent.
 *
 * @example
 * ```ts
 * for (const sql of pgStoreDdl('handoff_store')) await client.query(sql);
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function pgStoreDdl(schema: string): readonly string[] {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.schema_version (
       version integer PRIMARY KEY,
       applied timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE IF NOT EXISTS ${s}.runs (
       run_id text PRIMARY KEY CHECK (run_id ~ '^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}$'),
       kind text NOT NULL CHECK (kind IN ('contract', 'chain')),
       manifest text NOT NULL,
       created timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE IF NOT EXISTS ${s}.events (
       run_id text NOT NULL REFERENCES ${s}.runs (run_id),
       seq integer NOT NULL CHECK (seq >= 1),
       line text NOT NULL,
       PRIMARY KEY (run_id, seq))`,
    `CREATE TABLE IF NOT EXISTS ${s}.handoff_cache (
       run_id text NOT NULL REFERENCES ${s}.runs (run_id),
       seq integer NOT NULL CHECK (seq >= 1),
       body text NOT NULL,
       PRIMARY KEY (run_id, seq))`,
    `CREATE OR REPLACE FUNCTION ${s}.refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       RAISE EXCEPTION 'handoff run store is append-only: % on %.% refused', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME
         USING ERRCODE = 'P0001';
     END
     $fn$`,
    `CREATE OR REPLACE FUNCTION ${s}.dense_seq() RETURNS trigger LANGUAGE plpgsql AS $fn$
     DECLARE last integer;
     BEGIN
       SELECT max(seq) INTO last FROM ${s}.events WHERE run_id = NEW.run_id;
       IF NEW.seq <> COALESCE(last, 0) + 1 THEN
         RAISE EXCEPTION 'handoff run store: seq % of run % is not dense (last %)', NEW.seq, NEW.run_id, COALESCE(last, 0)
           USING ERRCODE = '23514';
       END IF;
       RETURN NEW;
     END
     $fn$`,
    ...['runs', 'events', 'handoff_cache'].flatMap((t) => [
      `CREATE OR REPLACE TRIGGER ${t}_append_only BEFORE UPDATE OR DELETE ON ${s}.${t}
         FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_mutation()`,
      `CREATE OR REPLACE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${s}.${t}
         FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_mutation()`,
    ]),
    `CREATE OR REPLACE TRIGGER events_dense_seq BEFORE INSERT ON ${s}.events
       FOR EACH ROW EXECUTE FUNCTION ${s}.dense_seq()`,
    `INSERT INTO ${s}.schema_version (version) VALUES (${PG_STORE_SCHEMA_VERSION}) ON CONFLICT DO NOTHING`,
  ];
}

/**
 * A signed 64-bit advisory-lock key (decimal string) derived from a namespace and a name: the
 * first 8 bytes of sha256(`handoff|<namespace>|<name>`). Used with `pg_try_advisory_xact_lock`.
 *
 * @example
 * ```ts
 * pgAdvisoryKey('store:handoff_store', '20261130T100000Z-0123abcd'); // '-4233…'
 * ```
 */
export function pgAdvisoryKey(namespace: string, name: string): string {
  // the first 8 bytes (16 hex digits) read as a big-endian integer, signed like PostgreSQL's bigint
  return BigInt.asIntN(64, BigInt(`0x${sha256Hex(`handoff|${namespace}|${name}`).slice(0, 16)}`)).toString();
}

/**
 * SQL (one parameter: the bigint key) that is true while any session holds the advisory lock
 * `key` in the current database. Reads `pg_locks`; takes no lock.
 *
 * @example
 * ```ts
 * const { rows } = await pool.query(ADVISORY_HELD_SQL, [key]); rows[0].held;
 * ```
 */
export const ADVISORY_HELD_SQL = `SELECT EXISTS (
  SELECT 1 FROM pg_locks
   WHERE locktype = 'advisory' AND granted AND objsubid = 1
     AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
     AND ((classid::bigint << 32) | objid::bigint) = $1::bigint) AS held`;
