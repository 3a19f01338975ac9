/**
 * `handoff-runtime/pg`: the PostgreSQL backends — the run store (run-store/v1 in append-only
 * tables keyed `(run_id, seq)`, advisory locks per run) and the gate's continuation ledger. The
 * only entry point that loads `pg`, an optional peer dependency: install `pg` (and `@types/pg` for
 * the types) to use it. No other entry point imports this one.
 *
 * The backends stay in their areas (src/store/pg-*.ts, src/gate/pg-ledger.ts); this file is their
 * public list. Row parsing, the advisory-lock SQL and key derivation are internal.
 */

export {
  createPgLedger,
  PG_LEDGER_DEFAULT_SCHEMA,
  type PgLedgerLog,
  type PgLedgerOptions,
  pgLedgerDdl,
  pgLedgerLog,
} from '../gate/pg-ledger.js';
export {
  isPgSchemaName,
  PG_STORE_DEFAULT_SCHEMA,
  PG_STORE_SCHEMA_VERSION,
  pgStoreDdl,
} from '../store/pg-schema.js';
export {
  createPgStore,
  type PgStore,
  type PgStoreOptions,
} from '../store/pg-store.js';
