/**
 * The PostgreSQL run store's schema (DDL as data, pure): tables `runs`, `events`, `handoff_cache`,
 * `handoff_batches` (one row per group commit: its seq range and machine trace) and
 * `schema_version` in one PostgreSQL schema, append-only triggers that raise on UPDATE, DELETE and
 * TRUNCATE, the trigger `events_dense` that refuses any event whose predecessor (seq − 1) is
 * missing, or whose run is missing when it is seq 1, the function `append_events` (one statement:
 * the run's advisory lock, the continuity check, the inserts), the single-event insert statement
 * of the store's steady state, and the advisory-lock key of a run. Applying the statements is
 * idempotent (`CREATE … IF NOT EXISTS`, `CREATE OR REPLACE`, `DROP … IF EXISTS`), and applying
 * them to a version-1 or version-2 schema migrates it to version 3; `pg-store.ts` runs them.
 */
import { sha256Hex } from '../canonical/index.js';

/**
 * Version recorded in `schema_version` by {@link pgStoreDdl}. Version 2 added `handoff_batches`
 * and `append_events`; version 3 replaced the foreign key `events → runs` and the `max(seq)`
 * trigger `events_dense_seq` with the trigger `events_dense` (a predecessor probe; the run row
 * checked for seq 1) and added the single-event insert ({@link appendOneStatement}). A migrated
 * schema keeps its older rows; every version-3 schema also holds row 2 (version-2 processes find
 * everything they use and run no DDL).
 */
export const PG_STORE_SCHEMA_VERSION = 3;

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
    // no foreign key to runs since version 3: `events_dense` checks the run of seq 1, and every
    // later seq needs its predecessor (runs are never deleted: the append-only triggers)
    `CREATE TABLE IF NOT EXISTS ${s}.events (
       run_id text NOT NULL,
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
    // version 3: one predecessor probe per row instead of max(seq); seq 1 needs its run row
    `CREATE OR REPLACE FUNCTION ${s}.events_dense() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       IF NEW.seq = 1 THEN
         IF NOT EXISTS (SELECT 1 FROM ${s}.runs WHERE run_id = NEW.run_id) THEN
           RAISE EXCEPTION 'handoff run store: no run % for its event seq 1', NEW.run_id
             USING ERRCODE = '23503';
         END IF;
       ELSIF NOT EXISTS (SELECT 1 FROM ${s}.events WHERE run_id = NEW.run_id AND seq = NEW.seq - 1) THEN
         RAISE EXCEPTION 'handoff run store: seq % of run % is not dense (no seq %)', NEW.seq, NEW.run_id, NEW.seq - 1
           USING ERRCODE = '23514';
       END IF;
       RETURN NEW;
     END
     $fn$`,
    // version 2: one row per recorded group commit (`appendBatch` of ≥ 2 events or with a trace):
    // its seq range, the sha256 of its journal bytes and the machine trace, kept apart from
    // `events` so that a reader of the reference's rows never meets it
    `CREATE TABLE IF NOT EXISTS ${s}.handoff_batches (
       run_id text NOT NULL REFERENCES ${s}.runs (run_id),
       first_seq integer NOT NULL CHECK (first_seq >= 1),
       last_seq integer NOT NULL,
       sha256 text NOT NULL CHECK (sha256 ~ '^[0-9a-f]{64}$'),
       trace jsonb NOT NULL CHECK (jsonb_typeof(trace) = 'array'),
       CHECK (last_seq >= first_seq),
       PRIMARY KEY (run_id, first_seq),
       FOREIGN KEY (run_id, last_seq) REFERENCES ${s}.events (run_id, seq))`,
    ...['runs', 'events', 'handoff_cache', 'handoff_batches'].flatMap((t) => [
      `CREATE OR REPLACE TRIGGER ${t}_append_only BEFORE UPDATE OR DELETE ON ${s}.${t}
         FOR EACH ROW EXECUTE FUNCTION ${s}.refuse_mutation()`,
      `CREATE OR REPLACE TRIGGER ${t}_no_truncate BEFORE TRUNCATE ON ${s}.${t}
         FOR EACH STATEMENT EXECUTE FUNCTION ${s}.refuse_mutation()`,
    ]),
    `CREATE OR REPLACE TRIGGER events_dense BEFORE INSERT ON ${s}.events
       FOR EACH ROW EXECUTE FUNCTION ${s}.events_dense()`,
    // migration from versions 1 and 2: the foreign key and the max(seq) trigger go (the new
    // trigger is in place above, in the same transaction)
    `ALTER TABLE ${s}.events DROP CONSTRAINT IF EXISTS events_run_id_fkey`,
    `DROP TRIGGER IF EXISTS events_dense_seq ON ${s}.events`,
    `DROP FUNCTION IF EXISTS ${s}.dense_seq()`,
    appendEventsFunction(schema),
    // row 2 too: a version-2 process needs nothing this schema lacks, so it runs no DDL here
    `INSERT INTO ${s}.schema_version (version) VALUES (2), (${PG_STORE_SCHEMA_VERSION}) ON CONFLICT DO NOTHING`,
  ];
}

/**
 * The SQL expression of a run's advisory-lock key computed by the server from `runIdExpr` (an SQL
 * text expression): the same value as {@link pgAdvisoryKey}(`store:<schema>`, run id).
 *
 * @example
 * ```ts
 * `SELECT ${pgAdvisoryKeySql('handoff_store', '$1')} AS key`; // = pgAdvisoryKey('store:handoff_store', runId)
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function pgAdvisoryKeySql(schema: string, runIdExpr: string): string {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  // the first 16 hex digits of sha256, as a signed 64-bit integer (two's complement), like pgAdvisoryKey
  return `('x' || left(encode(sha256(convert_to('handoff|store:${schema}|' || ${runIdExpr}, 'UTF8')), 'hex'), 16))::bit(64)::bigint`;
}

/**
 * The `append_events` function of `schema`: one call is one statement that takes the run's
 * advisory lock with `pg_try_advisory_xact_lock` (the key derived by the server, as
 * {@link pgAdvisoryKey}), reads the run's last seq under it, and — only when that is
 * `p_first - 1` — inserts `p_lines` as seqs `p_first …` (the dense-seq trigger still checks each
 * row — see `events_dense`), the handoff cache row (`p_cache` at `p_cache_seq`, when not null) and the batch row
 * (`p_sha256`, the sha256 of the lines' journal bytes, and `p_trace`, when `p_trace` is not null). Returns `-1` when another session holds the lock (nothing done),
 * else the last seq it found: the rows were inserted exactly when that equals `p_first - 1`.
 *
 * @example
 * ```ts
 * appendEventsFunction('handoff_store'); // 'CREATE OR REPLACE FUNCTION "handoff_store".append_events(…'
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function appendEventsFunction(schema: string): string {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  const s = `"${schema}"`;
  return `CREATE OR REPLACE FUNCTION ${s}.append_events(
       p_run text, p_first integer, p_lines text[], p_cache text, p_cache_seq integer,
       p_sha256 text, p_trace jsonb)
     RETURNS integer LANGUAGE plpgsql VOLATILE AS $fn$
     DECLARE last integer;
     BEGIN
       IF p_first IS NULL OR p_first < 1 OR p_lines IS NULL OR cardinality(p_lines) = 0 THEN
         RAISE EXCEPTION 'handoff run store: append_events needs p_first >= 1 and at least one line'
           USING ERRCODE = '22023';
       END IF;
       IF NOT pg_try_advisory_xact_lock(${pgAdvisoryKeySql(schema, 'p_run')}) THEN
         RETURN -1;
       END IF;
       -- a new snapshot, taken under the lock: every row committed before it was granted
       SELECT COALESCE(max(seq), 0) INTO last FROM ${s}.events WHERE run_id = p_run;
       IF last <> p_first - 1 THEN
         RETURN last;
       END IF;
       INSERT INTO ${s}.events (run_id, seq, line)
         SELECT p_run, p_first + (u.o - 1)::integer, u.l
           FROM unnest(p_lines) WITH ORDINALITY AS u(l, o) ORDER BY u.o;
       IF p_cache IS NOT NULL THEN
         INSERT INTO ${s}.handoff_cache (run_id, seq, body) VALUES (p_run, p_cache_seq, p_cache);
       END IF;
       IF p_trace IS NOT NULL THEN
         INSERT INTO ${s}.handoff_batches (run_id, first_seq, last_seq, sha256, trace)
           VALUES (p_run, p_first, p_first + cardinality(p_lines) - 1, p_sha256, p_trace);
       END IF;
       RETURN last;
     END
     $fn$`;
}

/**
 * The parameterised call of `append_events` in `schema` (parameters, in order: run id, first seq,
 * lines `text[]`, cache text, cache seq, sha256, trace `jsonb` text) and the name the store
 * prepares it under on each connection, so the server parses and plans it once per connection.
 * Sent alone, outside an explicit transaction, the call is one statement and so its own
 * transaction: the advisory lock it takes is released when it commits, and a statement that
 * fails commits nothing.
 *
 * @example
 * ```ts
 * const { name, text } = appendEventsStatement('handoff_store');
 * await client.query({ name, text, values: [runId, 1, [line], null, null, null, null] });
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function appendEventsStatement(schema: string): { readonly name: string; readonly text: string } {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  return {
    // a schema name may be 63 characters: the statement name (≤ 63) carries a digest of it
    name: `handoff_append_v${PG_STORE_SCHEMA_VERSION}_${sha256Hex(schema).slice(0, 16)}`,
    text: `SELECT "${schema}".append_events($1, $2, $3, $4, $5, $6, $7) AS r`,
  };
}

/**
 * The store's steady-state statement for one event without a cache row or a batch record: a
 * single-row `INSERT … SELECT … WHERE pg_try_advisory_xact_lock($4)` into `events` (parameters,
 * in order: run id, seq, the canonical line, the run's advisory-lock key {@link pgAdvisoryKey} as
 * a decimal bigint), and the name the store prepares it under on each connection. Sent alone,
 * outside an explicit transaction, it is its own transaction: the lock is taken by the statement
 * and released when it commits. One row inserted: committed. No row: another session holds the
 * lock (`busy`; nothing written, never waited for). The continuity check is the database's: seq
 * `s` already present fails the primary key (SQLSTATE 23505), a missing `s − 1` fails
 * `events_dense` (23514) — both mean the run moved past the caller's view; the statement wrote
 * nothing. No PL/pgSQL function call, no `max(seq)` read, no array parameter: the server work of
 * a plain insert plus the one trigger.
 *
 * @example
 * ```ts
 * const { name, text } = appendOneStatement('handoff_store');
 * const r = await client.query({ name, text, values: [runId, seq, line, pgAdvisoryKey(`store:handoff_store`, runId)] });
 * r.rowCount; // 1 committed, 0 busy
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function appendOneStatement(schema: string): { readonly name: string; readonly text: string } {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  return {
    name: `handoff_append_v${PG_STORE_SCHEMA_VERSION}_one_${sha256Hex(schema).slice(0, 16)}`,
    text: `INSERT INTO "${schema}".events (run_id, seq, line) SELECT $1, $2, $3 WHERE pg_try_advisory_xact_lock($4::bigint)`,
  };
}

/**
 * The store's one statement for a batch or a handoff (events with a cache row and/or a batch
 * record), without a PL/pgSQL call: a data-modifying `WITH` whose first part takes the run's
 * advisory lock once (`pg_try_advisory_xact_lock($8)`, materialized), then — only when it was
 * granted — inserts the lines `$3` as seqs `$2 …` in order, the cache row (`$4` at `$5`, when not
 * null) and the batch record (`$2 … $2 + n − 1`, sha256 `$6`, trace `$7`, when `$7` is not null).
 * Parameters: run id, first seq, lines `text[]`, cache text, cache seq, sha256, trace `jsonb`
 * text, the advisory-lock key (decimal bigint). The answer row is `{ got, n }`: `got` false is
 * `busy` (nothing written); else the rows were inserted. As for {@link appendOneStatement}, a
 * taken seq (23505) or a missing predecessor (23514) fails the statement: the run moved past the
 * caller's view and nothing was written. The record's foreign key to its last event is checked
 * at the end of the statement, after the events of the same statement.
 *
 * @example
 * ```ts
 * const { name, text } = appendManyStatement('handoff_store');
 * const r = await client.query({ name, text, values: [runId, 5, lines, null, null, sha, trace, key] });
 * r.rows[0]; // { got: true, n: lines.length }
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function appendManyStatement(schema: string): { readonly name: string; readonly text: string } {
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  const s = `"${schema}"`;
  return {
    name: `handoff_append_v${PG_STORE_SCHEMA_VERSION}_many_${sha256Hex(schema).slice(0, 16)}`,
    text: `WITH lk AS MATERIALIZED (SELECT pg_try_advisory_xact_lock($8::bigint) AS got),
  ev AS (INSERT INTO ${s}.events (run_id, seq, line)
    SELECT $1::text, $2::integer + (u.o - 1)::integer, u.l FROM unnest($3::text[]) WITH ORDINALITY AS u(l, o)
     WHERE (SELECT got FROM lk) ORDER BY u.o RETURNING 1),
  ca AS (INSERT INTO ${s}.handoff_cache (run_id, seq, body)
    SELECT $1::text, $5::integer, $4::text WHERE $4::text IS NOT NULL AND (SELECT got FROM lk) RETURNING 1),
  ba AS (INSERT INTO ${s}.handoff_batches (run_id, first_seq, last_seq, sha256, trace)
    SELECT $1::text, $2::integer, $2::integer + cardinality($3::text[]) - 1, $6::text, $7::jsonb
     WHERE $7::jsonb IS NOT NULL AND (SELECT got FROM lk) RETURNING 1)
SELECT (SELECT got FROM lk) AS got, (SELECT count(*) FROM ev)::integer AS n`,
  };
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
