/**
 * The PostgreSQL {@link LedgerLog}: the continuation ledger shared by many machines. One row per
 * event in `ledger_events` (PRIMARY KEY (problem_id, seq)); an append is a single INSERT, so the
 * compare-and-set on the next sequence number is the primary key itself — of any number of racing
 * sessions exactly one inserts a given seq, the others get a unique violation and re-decide.
 * The database also enforces: dense seqs from 1 (a trigger refuses seq ≠ last + 1), append-only
 * rows (triggers raise on UPDATE/DELETE/TRUNCATE), one reservation per idempotency key and one
 * reservation per grant id per problem (unique indexes). A log that does not parse or has gaps
 * fails closed (`ledger_damaged`), as the fs log does; an event its reader would refuse is
 * `invalid_input` before the INSERT, as the fs log refuses it before writing a byte.
 *
 * Transition trace (issue 15): an entry appended with a trace (`Ledger.traced`, a traced gate run)
 * stores it in the row's nullable `trace` column (the validated trace as JSON text, in the same
 * INSERT — one round trip, as before); `readTraces` reads it back for `handoff audit`, as the fs
 * log's does. Tables made before the column existed get it from the idempotent migration
 * (`ADD COLUMN IF NOT EXISTS`: their rows read as untraced); the ledger's own reads never select it.
 */
import { createHash } from 'node:crypto';
import type { Pool } from 'pg';
import { canonicalJson } from '../canonical/index.js';
import { HandoffError } from '../errors/index.js';
import pg from '../pg/peer.js';
import { createLogLedger, type Ledger, type LedgerLog } from './ledger.js';
import {
  assertProblemId,
  assertStorableEvent,
  ledgerDamaged,
  ledgerTraceJson,
  parseLedgerEntry,
  parseLedgerTrace,
} from './ledger-log-entry.js';
import type { LedgerEvent } from './ledger-state.js';
import type { LedgerTraceReader, TracedEntry } from './ledger-trace.js';

/** Default PostgreSQL schema of the ledger. */
export const PG_LEDGER_DEFAULT_SCHEMA = 'handoff_gate';

/** Options of {@link pgLedgerLog}. */
export interface PgLedgerOptions {
  /** An existing pool (not ended by `close`). */
  readonly pool?: Pool;
  /** A connection string (the log then owns its pool). */
  readonly connectionString?: string;
  /** PostgreSQL schema of the table. Default `handoff_gate`. */
  readonly schema?: string;
  /** Pool size when the log creates the pool. Default 4. */
  readonly maxConnections?: number;
}

/** The PostgreSQL ledger log (with `readTraces`, the audit's read-back of entry traces). */
export interface PgLedgerLog extends LedgerLog, LedgerTraceReader {
  /** The PostgreSQL schema of the table. */
  readonly schema: string;
  /** Applies the idempotent DDL (called once on first use). */
  migrate(): Promise<void>;
  /** Ends the pool when the log created it. */
  close(): Promise<void>;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/**
 * The ledger's DDL in `schema` (idempotent statements, in order).
 *
 * @example
 * ```ts
 * for (const q of pgLedgerDdl('handoff_gate')) await client.query(q);
 * ```
 * @throws RangeError when `schema` is not a plain lower-case identifier.
 */
export function pgLedgerDdl(schema: string): readonly string[] {
  if (!SCHEMA_NAME.test(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  const s = `"${schema}"`;
  return [
    `CREATE SCHEMA IF NOT EXISTS ${s}`,
    `CREATE TABLE IF NOT EXISTS ${s}.ledger_events (
       problem_id text NOT NULL,
       seq integer NOT NULL CHECK (seq >= 1),
       type text NOT NULL,
       idempotency_key text,
       grant_id text,
       event text NOT NULL,
       PRIMARY KEY (problem_id, seq),
       CHECK ((type = 'registered') = (seq = 1)),
       CHECK ((type = 'reserved') = (idempotency_key IS NOT NULL AND grant_id IS NOT NULL)))`,
    // the transition trace of a traced entry (issue 15); added to tables made before it existed
    `ALTER TABLE ${s}.ledger_events ADD COLUMN IF NOT EXISTS trace text`,
    `CREATE UNIQUE INDEX IF NOT EXISTS ledger_one_reservation_per_key
       ON ${s}.ledger_events (problem_id, idempotency_key) WHERE type = 'reserved'`,
    `CREATE UNIQUE INDEX IF NOT EXISTS ledger_one_reservation_per_grant
       ON ${s}.ledger_events (problem_id, grant_id) WHERE type = 'reserved'`,
    `CREATE OR REPLACE FUNCTION ${s}.ledger_refuse_mutation() RETURNS trigger LANGUAGE plpgsql AS $fn$
     BEGIN
       RAISE EXCEPTION 'handoff gate ledger is append-only: % on %.% refused', TG_OP, TG_TABLE_SCHEMA, TG_TABLE_NAME;
     END
     $fn$`,
    `CREATE OR REPLACE FUNCTION ${s}.ledger_dense_seq() RETURNS trigger LANGUAGE plpgsql AS $fn$
     DECLARE last integer;
     BEGIN
       SELECT max(seq) INTO last FROM ${s}.ledger_events WHERE problem_id = NEW.problem_id;
       IF NEW.seq <> COALESCE(last, 0) + 1 THEN
         RAISE EXCEPTION 'handoff gate ledger: seq % of % is not dense (last %)', NEW.seq, NEW.problem_id, COALESCE(last, 0)
           USING ERRCODE = '23514';
       END IF;
       RETURN NEW;
     END
     $fn$`,
    `CREATE OR REPLACE TRIGGER ledger_append_only BEFORE UPDATE OR DELETE ON ${s}.ledger_events
       FOR EACH ROW EXECUTE FUNCTION ${s}.ledger_refuse_mutation()`,
    `CREATE OR REPLACE TRIGGER ledger_no_truncate BEFORE TRUNCATE ON ${s}.ledger_events
       FOR EACH STATEMENT EXECUTE FUNCTION ${s}.ledger_refuse_mutation()`,
    `CREATE OR REPLACE TRIGGER ledger_dense_seq BEFORE INSERT ON ${s}.ledger_events
       FOR EACH ROW EXECUTE FUNCTION ${s}.ledger_dense_seq()`,
  ];
}

function unavailable(e: unknown): HandoffError {
  return new HandoffError(
    'ledger_unavailable',
    `the ledger database failed: ${String((e as Error)?.message ?? e)}`,
    { cause: e },
  );
}

/**
 * Creates the PostgreSQL {@link LedgerLog}.
 *
 * @example
 * ```ts
 * const log = pgLedgerLog({ connectionString: 'postgresql://gate@db/handoff' });
 * const ledger = createLogLedger(log, { now: () => new Date().toISOString() });
 * ```
 * @throws RangeError without a pool or connection string, or with a schema that is not a plain identifier.
 */
export function pgLedgerLog(options: PgLedgerOptions): PgLedgerLog {
  const schema = options.schema ?? PG_LEDGER_DEFAULT_SCHEMA;
  const ddl = pgLedgerDdl(schema);
  if (options.pool === undefined && options.connectionString === undefined)
    throw new RangeError('pgLedgerLog needs a pool or a connection string');
  const ownPool = options.pool === undefined;
  const pool =
    options.pool ??
    new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 4,
      // idle connections never keep the process alive
      allowExitOnIdle: true,
    });
  if (ownPool) pool.on('error', () => {});
  const table = `"${schema}".ledger_events`;
  let migrated: Promise<void> | null = null;

  async function migrate(): Promise<void> {
    const c = await pool.connect();
    c.on('error', () => {});
    let destroy = false;
    try {
      // nothing to do when the table exists with its newest column (a table made by an older
      // version lacks \`trace\`: the idempotent DDL below adds it)
      const reg = await c.query<{ t: string | null; traced: boolean }>(
        `SELECT to_regclass($1)::text AS t,
                EXISTS (SELECT 1 FROM pg_attribute
                        WHERE attrelid = to_regclass($1) AND attname = 'trace' AND NOT attisdropped) AS traced`,
        [table],
      );
      if (reg.rows[0]?.t != null && reg.rows[0]?.traced === true) return;
      await c.query('BEGIN');
      const key = BigInt.asIntN(
        64,
        createHash('sha256').update(`handoff|ledger-migrate|${schema}`).digest().readBigUInt64BE(0),
      );
      await c.query('SELECT pg_advisory_xact_lock($1::bigint)', [key.toString()]);
      for (const q of ddl) await c.query(q);
      await c.query('COMMIT');
    } catch (e) {
      destroy = true;
      await c.query('ROLLBACK').catch(() => {});
      throw e;
    } finally {
      c.release(destroy);
    }
  }

  function ensure(): Promise<void> {
    if (migrated === null)
      migrated = migrate().catch((e) => {
        migrated = null;
        throw unavailable(e);
      });
    return migrated;
  }

  return {
    schema,
    migrate: ensure,
    async close() {
      if (ownPool) await pool.end();
    },
    async read(problemId) {
      assertProblemId(problemId);
      await ensure();
      let rows: { seq: number; event: string }[];
      try {
        rows = (
          await pool.query<{ seq: number; event: string }>(
            `SELECT seq, event FROM ${table} WHERE problem_id = $1 ORDER BY seq`,
            [problemId],
          )
        ).rows;
      } catch (e) {
        throw unavailable(e);
      }
      if (rows.length === 0) return null;
      const events: LedgerEvent[] = [];
      for (const [i, r] of rows.entries()) {
        if (r.seq !== i + 1) throw ledgerDamaged(problemId, `gap in the log before entry ${r.seq}`);
        events.push(parseLedgerEntry(problemId, i + 1, r.event));
      }
      return events;
    },
    async append(problemId, event, options) {
      assertProblemId(problemId);
      // an event the reader would refuse, or an invalid trace, is refused before the database sees
      // the entry: an unreadable row would fail the problem's ledger closed for good (append-only)
      let text: string;
      try {
        text = canonicalJson(event);
      } catch (e) {
        throw new HandoffError(
          'invalid_input',
          `ledger of ${problemId}: not a valid ledger event (${(e as Error).message}); nothing was written`,
          { details: { problem_id: problemId }, cause: e },
        );
      }
      assertStorableEvent(problemId, text);
      const trace = options?.trace === undefined ? null : ledgerTraceJson(problemId, options.trace);
      await ensure();
      const reserved = event.type === 'reserved' ? event.grant : null;
      try {
        await pool.query(
          `INSERT INTO ${table} (problem_id, seq, type, idempotency_key, grant_id, event, trace) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
          [
            problemId,
            event.seq,
            event.type,
            reserved?.idempotency_key ?? null,
            reserved?.grant_id ?? null,
            text,
            trace,
          ],
        );
        return true;
      } catch (e) {
        const code = (e as { code?: unknown }).code;
        // 23505: the seq (or the key / grant) is taken; 23514: not the next seq — re-read and re-decide
        if (code === '23505' || code === '23514') return false;
        throw unavailable(e);
      }
    },
    async readTraces(problemId) {
      assertProblemId(problemId);
      await ensure();
      let rows: { seq: number; event: string; trace: string | null }[];
      try {
        rows = (
          await pool.query<{ seq: number; event: string; trace: string | null }>(
            `SELECT seq, event, trace FROM ${table} WHERE problem_id = $1 ORDER BY seq`,
            [problemId],
          )
        ).rows;
      } catch (e) {
        throw unavailable(e);
      }
      if (rows.length === 0) return null;
      const traced: TracedEntry[] = [];
      for (const [i, r] of rows.entries()) {
        // the entries are checked as a read checks them: an audit never runs on a damaged ledger
        if (r.seq !== i + 1) throw ledgerDamaged(problemId, `gap in the log before entry ${r.seq}`);
        parseLedgerEntry(problemId, i + 1, r.event);
        if (r.trace !== null) traced.push({ seq: r.seq, trace: parseLedgerTrace(problemId, r.seq, r.trace) });
      }
      return { entries: rows.length, traced };
    },
  };
}

/**
 * A {@link Ledger} over the PostgreSQL log, with `close` to end the pool it created.
 *
 * @example
 * ```ts
 * const ledger = createPgLedger({ connectionString: url }, { now: () => new Date().toISOString() });
 * await ledger.register({ problem_id: 'p1', profile, contract_revision: 1 });
 * await ledger.close();
 * ```
 */
export function createPgLedger(
  options: PgLedgerOptions,
  ledgerOptions: { now: () => string },
): Ledger & { readonly log: PgLedgerLog; close(): Promise<void> } {
  const log = pgLedgerLog(options);
  return Object.assign(createLogLedger(log, ledgerOptions), { log, close: () => log.close() });
}
