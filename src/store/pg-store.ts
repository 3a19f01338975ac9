/**
 * The PostgreSQL run store: the {@link Store} contract on a database shared by many machines.
 * Tables `runs`, `events` (PRIMARY KEY (run_id, seq), one canonical line per row),
 * `handoff_cache` and `handoff_batches` are append-only (triggers raise on UPDATE/DELETE/TRUNCATE;
 * the trigger `events_dense` refuses an event whose predecessor is missing). A mutation is one
 * transaction that takes the run's advisory lock with `pg_try_advisory_xact_lock` (`busy` when
 * another session holds it — never broken, and released by the database when that session ends).
 *
 * An append (`append`, `setHandoff`, `appendBatch`) is validated by the store's pure rules first.
 * When this store object's view of the run is current (it knows the manifest and has validated
 * every row up to the last seq), it is ONE round trip and ONE statement, sent outside an explicit
 * transaction so that it commits on its own, parsed and planned once per connection, values bound
 * as parameters: for one event without a cache row (`append`, the steady state of a writer) the
 * single-row insert of `appendOneStatement` — `INSERT … SELECT … WHERE
 * pg_try_advisory_xact_lock(key)`, the database refusing a seq that is taken (primary key) or
 * whose predecessor is missing (the `events_dense` trigger), which means the run moved on; for a
 * batch or a handoff the `WITH … INSERT` statement of `appendManyStatement` (the lock taken once,
 * then the events in order, the cache row, the batch record; the same refusals). With the
 * `beforeCommit` test seam the `append_events` function call (lock, `max(seq)` continuity check,
 * inserts; see `pg-schema.ts`) runs inside `BEGIN … COMMIT` instead. When the run moved on
 * (another writer) or
 * the view is unknown (a new process), a locked transaction reads and re-validates the new rows
 * (`journal_damaged` on a defect), re-plans, and calls the same function with COMMIT: two round
 * trips. `committed` is reported only after COMMIT (or the self-committing statement) returned; a
 * failure while it is in flight (connection lost, backend terminated) is `indeterminate` with step
 * `commit`. Back-to-back one-round-trip appends keep their pool connection until the next turn of
 * the event loop (no pool checkout per append; see `withWriter`).
 */
import { randomBytes } from 'node:crypto';
import type { Pool, PoolClient, QueryResult } from 'pg';
import { canonicalJsonUtf8 } from '../canonical/index.js';
import type { IdSource } from '../ids/index.js';
import pg from '../pg/peer.js';
import { prepareAppend } from './append-rules.js';
import { isCanonicalLine } from './canonical-fast.js';
import { buildChainManifest, type ChainTail, startTail } from './chain-rules.js';
import { isChainManifest, type StoredManifest } from './chain-schema.js';
import { buildManifest, RUNTIME_VERSION } from './manifest.js';
import {
  type AppendPlan,
  judgeBatchRows,
  linesSha256,
  type PgBatchRow,
  type PreparedEntry,
  planAppend,
  prepareBatch,
} from './pg-batch.js';
import { type PgEventRow, parseChainEventRows, parseEventRows } from './pg-rows.js';
import {
  ADVISORY_HELD_SQL,
  appendManyStatement,
  appendOneStatement,
  isPgSchemaName,
  PG_STORE_DEFAULT_SCHEMA,
  PG_STORE_SCHEMA_VERSION,
  pgAdvisoryKey,
  pgStoreDdl,
} from './pg-schema.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId } from './run-id.js';
import { assembleChainLoad, assembleLoad, contractLoadOnly, storageRootWarnings } from './run-load.js';
import { eventSchemaOf, type HandoffCache } from './schema.js';
import {
  type AnyLoadResult,
  type AppendBatchOptions,
  type BatchEntry,
  type BatchesLoadResult,
  type ChainRunStore,
  type CreateRunInput,
  type LoadResult,
  refused,
  type StoreCode,
  type StoreEventKind,
  type StoreResult,
  storeResult,
} from './store.js';
import { validateHandoffCache, validateStoredManifestText } from './validate-payload.js';

/** Options of {@link createPgStore}: a pool, or a connection string (the store then owns its pool). */
export interface PgStoreOptions {
  /** An existing pool (not ended by `close`). */
  readonly pool?: Pool;
  /** A connection string, e.g. `postgresql://user@host/db` or `postgresql://user@/db?host=/run/pg`. */
  readonly connectionString?: string;
  /** The PostgreSQL schema holding the tables. Default `handoff_store`. */
  readonly schema?: string;
  /** Clock for `created` and event `ts`. Default `() => new Date()`. */
  readonly now?: () => Date;
  /** The source of a new run id's 8 hex digits (deterministic tests). Default: random (nanoid). */
  readonly runIdSuffix?: IdSource;
  /** Recorded as `storage_root`. Default `postgres:<schema>`. */
  readonly root?: string;
  /** Recorded as `plugin_version`. */
  readonly pluginVersion?: string;
  /** Pool size when the store creates the pool. Default 4. */
  readonly maxConnections?: number;
  /**
   * Fault-injection seam for tests: awaited inside a mutation's transaction (run lock held, rows
   * inserted) right before COMMIT is sent. Not for production use.
   *
   * @internal
   */
  readonly beforeCommit?: (ctx: {
    readonly runId: string | null;
    readonly seq: number | undefined;
  }) => Promise<void>;
}

/** The PostgreSQL store. */
export interface PgStore extends ChainRunStore {
  /** Group commit: always implemented by this backend (one round trip when the view is current). */
  appendBatch(
    runId: string,
    entries: readonly BatchEntry[],
    options?: AppendBatchOptions,
  ): Promise<StoreResult>;
  /**
   * The run's batch records (`handoff_batches`: seq range, sha256 and trace of each recorded
   * `appendBatch`), in seq order with their status against the journal's valid prefix
   * (`run-store-batches/v1`, as the fs backend's `readBatches`), read without a lock in one
   * snapshot. `load` does not read them: a plain run-store/v1 reader never meets them.
   *
   * @example
   * ```ts
   * const b = await store.readBatches(runId); if (b.ok) b.value.batches.map((x) => x.trace);
   * ```
   */
  readBatches(runId: string): Promise<BatchesLoadResult>;
  /** The PostgreSQL schema of the tables. */
  readonly schema: string;
  /** The advisory-lock key (bigint, decimal) a mutation of `runId` takes. */
  lockKey(runId: string): string;
  /** Applies the (idempotent) DDL; mutations and loads call it once on first use. */
  migrate(): Promise<void>;
  /** Ends the pool when the store created it. */
  close(): Promise<void>;
}

interface Known {
  lastSeq: number;
  tail: ChainTail | null;
}

/**
 * The final word on a mutation: its result, or `stale` — nothing was written because the run moved
 * past this process's view (the caller retries under the lock).
 */
type Verdict = StoreResult | 'stale';

/**
 * What a mutation's transaction body decides: commit (its result, the SQL of its writes to send
 * with COMMIT, and how to read the writes' replies into the final {@link Verdict}) or roll back
 * with a result (a refusal found under the lock).
 */
type TxDecision =
  | {
      readonly commit: StoreResult;
      readonly writes?: string;
      readonly verify?: (replies: readonly QueryResult[]) => Verdict;
    }
  | { readonly rollback: StoreResult };

/**
 * What a one-round-trip append statement did: wrote its rows, found the run's lock held by another
 * session, or was refused because the run moved past this process's view (nothing written).
 */
type OnceAnswer = 'inserted' | 'busy' | 'moved';

/** The seqs of a mutation in flight, for an `indeterminate` result. */
interface Pending {
  readonly seq?: number;
  readonly first_seq?: number;
}

/** The replies of a (possibly multi-statement) simple query, as a list. */
const replyList = (r: unknown): QueryResult[] => (Array.isArray(r) ? r : [r]) as QueryResult[];

/** The integer `r` returned by `append_events` in a message's replies, or undefined. */
function appendReply(replies: readonly QueryResult[]): number | undefined {
  for (const q of replies) {
    const v = (q?.rows?.[0] as { r?: unknown } | undefined)?.r;
    if (typeof v === 'number') return v;
  }
  return undefined;
}

const errText = (e: unknown): string => String((e as Error)?.message ?? e);

/** `text` as a dollar-quoted SQL literal (verbatim, whatever the server's string settings). */
function dollarQuote(text: string): string {
  for (;;) {
    const tag = `$h${randomBytes(6).toString('hex')}$`;
    if (!text.includes(tag)) return `${tag}${text}${tag}`;
  }
}

/** A server-side ERROR (not FATAL/PANIC, not a transport failure): the transaction did not commit. */
function isPlainServerError(e: unknown): boolean {
  const x = e as { severity?: unknown; code?: unknown };
  return typeof x?.code === 'string' && x.severity === 'ERROR';
}

/**
 * Creates the PostgreSQL store. Nothing is sent to the server until the first call.
 *
 * @example
 * ```ts
 * const store = createPgStore({ connectionString: process.env.HANDOFF_PG_URL });
 * const r = await store.createRun({ dispatch });
 * await store.append(r.run_id!, 'note', { kind: 'candidate', text: 'simp', lean: null });
 * await store.close();
 * ```
 * @throws RangeError when neither a pool nor a connection string is given, or the schema name is not a plain identifier.
 */
export function createPgStore(options: PgStoreOptions): PgStore {
  const schema = options.schema ?? PG_STORE_DEFAULT_SCHEMA;
  if (!isPgSchemaName(schema)) throw new RangeError(`not a schema name: ${JSON.stringify(schema)}`);
  if (options.pool === undefined && options.connectionString === undefined)
    throw new RangeError('createPgStore needs a pool or a connection string');
  const ownPool = options.pool === undefined;
  const pool: Pool =
    options.pool ??
    new pg.Pool({
      connectionString: options.connectionString,
      max: options.maxConnections ?? 4,
      // idle connections never keep the process alive
      allowExitOnIdle: true,
    });
  // an idle client whose backend died emits 'error' on the pool: never let it crash the process
  if (ownPool) pool.on('error', () => {});
  const now = options.now ?? (() => new Date());
  const root = options.root ?? `postgres:${schema}`;
  const pluginVersion = options.pluginVersion ?? RUNTIME_VERSION;
  const t = (name: string): string => `"${schema}".${name}`;
  const manifests = new Map<string, StoredManifest>();
  const known = new Map<string, Known>();
  let migrated: Promise<void> | null = null;
  const guarded = new WeakSet<PoolClient>();
  /** A backend that dies while a client is checked out emits 'error' on it: keep the process alive. */
  const guard = (c: PoolClient): PoolClient => {
    if (!guarded.has(c)) {
      guarded.add(c);
      c.on('error', () => {});
    }
    return c;
  };

  const lockKeys = new Map<string, string>();
  /** The run's advisory-lock key (computed once per run: a sha256 per append is client CPU). */
  const lockKey = (runId: string): string => {
    let k = lockKeys.get(runId);
    if (k === undefined) {
      k = pgAdvisoryKey(`store:${schema}`, runId);
      lockKeys.set(runId, k);
    }
    return k;
  };

  /** True when this schema already holds the current schema version (no DDL needed). */
  async function current(client: PoolClient): Promise<boolean> {
    const reg = await client.query<{ t: string | null }>('SELECT to_regclass($1)::text AS t', [
      `"${schema}".schema_version`,
    ]);
    if (reg.rows[0]?.t === null || reg.rows[0]?.t === undefined) return false;
    const v = await client.query(`SELECT 1 FROM ${t('schema_version')} WHERE version = $1`, [
      PG_STORE_SCHEMA_VERSION,
    ]);
    return v.rowCount === 1;
  }

  async function migrate(): Promise<void> {
    const client = await pool.connect();
    try {
      // DDL (CREATE OR REPLACE TRIGGER) locks the tables against in-flight appends of other
      // processes: skip it entirely when the schema is already current
      if (await current(client)) {
        client.release();
        return;
      }
      await client.query('BEGIN');
      // serialise concurrent migrators (CREATE … IF NOT EXISTS races on the catalog otherwise)
      await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [pgAdvisoryKey('migrate', schema)]);
      for (const sql of pgStoreDdl(schema)) await client.query(sql);
      await client.query('COMMIT');
      client.release();
    } catch (e) {
      await client.query('ROLLBACK').catch(() => {});
      client.release(true);
      throw e;
    }
  }

  function ensureSchema(): Promise<void> {
    if (migrated === null)
      migrated = migrate().catch((e) => {
        migrated = null;
        throw e;
      });
    return migrated;
  }

  async function checkout(
    runId: string | null,
  ): Promise<{ ok: true; client: PoolClient } | { ok: false; result: StoreResult }> {
    try {
      await ensureSchema();
      return { ok: true, client: guard(await pool.connect()) };
    } catch (e) {
      return {
        ok: false,
        result: refused(runId, 'lock_unavailable', `cannot reach the database: ${errText(e)}`),
      };
    }
  }

  /**
   * The reader scaffold of `load`/`loadRun` and `readBatches`: a pool connection (the schema
   * migrated first), `read` on it, the connection released — destroyed unless `read` failed with a
   * plain server ERROR (after a transport failure its state is unknown). A failure to connect or to
   * read is `{ ok: false, detail }` (the callers' `journal_unreadable`), a failed read after a
   * ROLLBACK of the snapshot it may have opened.
   */
  async function withReader<T>(
    what: string,
    read: (c: PoolClient) => Promise<T>,
  ): Promise<{ ok: true; value: T } | { ok: false; detail: string }> {
    let c: PoolClient;
    try {
      await ensureSchema();
      c = guard(await pool.connect());
    } catch (e) {
      return { ok: false, detail: `cannot reach the database: ${errText(e)}` };
    }
    let destroy = false;
    try {
      return { ok: true, value: await read(c) };
    } catch (e) {
      destroy = !isPlainServerError(e);
      await c.query('ROLLBACK').catch(() => {});
      return { ok: false, detail: `cannot read ${what}: ${errText(e)}` };
    } finally {
      c.release(destroy);
    }
  }

  /**
   * The connection of the one-round-trip appends, kept between consecutive appends: released to
   * the pool on the next turn of the event loop (`setImmediate`), at once when someone waits for
   * the pool or the connection failed, and by `close()`. A writer appending back to back (each
   * append awaited, the next one started from its continuation) reuses it without a pool
   * checkout per append; anything else gets it back from the pool within one turn.
   */
  let idleWriter: PoolClient | null = null;
  let idleRelease: ReturnType<typeof setImmediate> | null = null;
  let closing = false;
  const poolWaiting = (): number => (pool as { waitingCount?: number }).waitingCount ?? 0;

  function flushWriter(): void {
    if (idleRelease !== null) clearImmediate(idleRelease);
    idleRelease = null;
    const c = idleWriter;
    idleWriter = null;
    c?.release();
  }

  async function checkoutWriter(
    runId: string,
  ): Promise<{ ok: true; client: PoolClient } | { ok: false; result: StoreResult }> {
    const c = idleWriter;
    if (c !== null) {
      if (idleRelease !== null) clearImmediate(idleRelease);
      idleRelease = null;
      idleWriter = null;
      return { ok: true, client: c };
    }
    return checkout(runId);
  }

  function releaseWriter(c: PoolClient, destroy: boolean): void {
    if (destroy || closing || idleWriter !== null || poolWaiting() > 0) {
      c.release(destroy);
      return;
    }
    idleWriter = c;
    idleRelease = setImmediate(flushWriter);
  }

  /** Parses and checks a manifest row; null with a detail when it is not a valid canonical manifest. */
  function manifestOf(
    runId: string,
    text: string,
  ): { ok: true; manifest: StoredManifest } | { ok: false; detail: string } {
    const cached = manifests.get(runId);
    if (cached !== undefined) return { ok: true, manifest: cached };
    let v: unknown;
    try {
      v = JSON.parse(text);
    } catch {
      return { ok: false, detail: 'the manifest row is not JSON' };
    }
    const m = validateStoredManifestText(text, v);
    if (!m.ok)
      return {
        ok: false,
        detail: `the manifest row is invalid: ${m.issues.map((i) => `${i.path}: ${i.message}`).join('; ')}`,
      };
    if (m.value.run_id !== runId)
      return { ok: false, detail: `manifest run_id ${m.value.run_id} does not match row ${runId}` };
    if (!isCanonicalLine(text, v)) return { ok: false, detail: 'the manifest row is not canonical JSON' };
    manifests.set(runId, m.value);
    return { ok: true, manifest: m.value };
  }

  /**
   * Runs `body` on one connection and commits. `body` opens the transaction with BEGIN (in its own
   * queries, or as the start of its writes) and returns {@link TxDecision}: its result, optionally
   * the SQL of its writes — sent in one message with COMMIT — and how to read their replies, or a
   * result to roll back with. A failure (throw) before COMMIT is sent is `nothing_written`/
   * `write_failed` (without COMMIT nothing can have committed); a failure of the writes+COMMIT
   * message is a plain server ERROR (the transaction aborted: `write_failed`) or `indeterminate`
   * (the connection failed while COMMIT was in flight). With the `beforeCommit` seam the writes go
   * first, then the seam (lock held, rows inserted), then COMMIT alone.
   */
  async function transact(
    runId: string | null,
    pending: () => Pending,
    body: (c: PoolClient) => Promise<TxDecision>,
  ): Promise<Verdict> {
    const out = await checkout(runId);
    if (!out.ok) return out.result;
    const client = out.client;
    let destroy = false;
    const rollback = async (): Promise<void> => {
      await client.query('ROLLBACK').catch(() => {
        destroy = true;
      });
    };
    const notCommitted = async (e: unknown): Promise<StoreResult> => {
      await rollback();
      destroy = destroy || !isPlainServerError(e);
      return refused(runId, 'write_failed', `not committed: ${errText(e)}`);
    };
    const inFlight = (e: unknown): StoreResult => {
      destroy = true;
      known.delete(runId ?? '');
      if (isPlainServerError(e))
        return refused(runId, 'write_failed', `not committed, rolled back: ${errText(e)}`);
      return storeResult('indeterminate', runId, {
        ...pending(),
        step: 'commit',
        detail: `the connection failed while COMMIT was in flight: ${errText(e)}`,
      });
    };
    try {
      let ok: Extract<TxDecision, { commit: StoreResult }>;
      try {
        const decided = await body(client);
        if ('rollback' in decided) {
          await rollback();
          return decided.rollback;
        }
        ok = decided;
      } catch (e) {
        return await notCommitted(e);
      }
      const hook = options.beforeCommit;
      let replies: QueryResult[] = [];
      if (hook !== undefined) {
        try {
          if (ok.writes !== undefined) replies = replyList(await client.query(ok.writes));
          const early = ok.verify?.(replies);
          if (early !== undefined && (early === 'stale' || early.outcome !== 'committed')) {
            await rollback();
            return early;
          }
          await hook({ runId, seq: pending().seq });
        } catch (e) {
          return await notCommitted(e);
        }
        try {
          await client.query('COMMIT');
        } catch (e) {
          return inFlight(e);
        }
      } else {
        try {
          replies = replyList(
            await client.query(ok.writes === undefined ? 'COMMIT' : `${ok.writes}; COMMIT`),
          );
        } catch (e) {
          return inFlight(e);
        }
      }
      return ok.verify?.(replies) ?? ok.commit;
    } finally {
      client.release(destroy);
    }
  }

  async function publishRun(built: StoredManifest): Promise<StoreResult> {
    const manifest: StoredManifest = { ...built, storage_root: root };
    const runId = manifest.run_id;
    let text: string;
    try {
      text = canonicalJsonUtf8(manifest); // the reference's form, as the fs manifest.json
    } catch (e) {
      return refused(runId, 'invalid_payload', `the manifest cannot be written: ${errText(e)}`);
    }
    const r = await transact(
      runId,
      () => ({}),
      async (c) => {
        await c.query('BEGIN');
        const ins = await c.query(
          `INSERT INTO ${t('runs')} (run_id, kind, manifest) VALUES ($1, $2, $3) ON CONFLICT (run_id) DO NOTHING`,
          [runId, isChainManifest(manifest) ? 'chain' : 'contract', text],
        );
        if (ins.rowCount !== 1) return { rollback: refused(runId, 'run_exists', `run ${runId} exists`) };
        return { commit: storeResult('committed', runId, { run_directory: `${root}/runs/${runId}` }) };
      },
    );
    if (r === 'stale') return refused(runId, 'write_failed', 'not committed'); // no verify: unreachable
    if (r.outcome === 'committed') {
      // the manifest is immutable and the journal empty: the first append needs no read
      manifests.set(runId, manifest);
      known.set(runId, { lastSeq: 0, tail: isChainManifest(manifest) ? startTail(manifest) : null });
    }
    return r.run_directory === undefined && r.outcome !== 'nothing_written'
      ? { ...r, run_directory: `${root}/runs/${runId}` }
      : r;
  }

  /** Validates rows appended after `base` (read under the lock); `journal_damaged` on a defect. */
  function catchUp(
    runId: string,
    manifest: StoredManifest,
    base: Known,
    rows: readonly PgEventRow[],
  ): { ok: true; known: Known } | { ok: false; result: StoreResult } {
    if (rows.length === 0) {
      // read under the lock: the journal ends at base.lastSeq
      known.set(runId, base);
      return { ok: true, known: base };
    }
    const first = base.lastSeq + 1;
    const parsed = isChainManifest(manifest)
      ? parseChainEventRows(rows, manifest, first, base.tail ?? startTail(manifest))
      : parseEventRows(rows, runId, eventSchemaOf(manifest), first);
    if (parsed.damage !== null) {
      known.delete(runId);
      return {
        ok: false,
        result: refused(
          runId,
          'journal_damaged',
          `the journal is damaged; appends are refused (${parsed.damage.detail})`,
        ),
      };
    }
    const next: Known = {
      lastSeq: base.lastSeq + parsed.events.length,
      tail: 'tail' in parsed ? parsed.tail : base.tail,
    };
    known.set(runId, next);
    return { ok: true, known: next };
  }

  /** The SQL call of `append_events` for `plan` (inlined: a validated run id, integers, dollar-quoted text). */
  function appendCall(runId: string, plan: AppendPlan, trace: string | null): string {
    const lines = `ARRAY[${plan.lines.map(dollarQuote).join(', ')}]::text[]`;
    const cache = plan.cache === null ? 'NULL, NULL' : `${dollarQuote(plan.cache.text)}, ${plan.cache.seq}`;
    // a batch record when the batch has ≥ 2 events or was given a trace (the fs backend's rule)
    const record =
      trace === null && plan.lines.length < 2
        ? 'NULL, NULL'
        : `'${linesSha256(plan.lines)}', ${dollarQuote(trace ?? '[]')}::jsonb`;
    return `SELECT ${t('append_events')}('${runId}', ${plan.first}, ${lines}, ${cache}, ${record}) AS r`;
  }

  /**
   * The writer scaffold of the one-round-trip appends ({@link appendOneOnce},
   * {@link appendManyOnce}): checks out the writer connection ({@link checkoutWriter}: the one kept
   * from the previous append, else one from the pool), sends the statement with `send`, and reads
   * its reply with `read`. A reply keeps the connection for the next append ({@link releaseWriter});
   * an error means what {@link failedOnce} says, and the connection goes back to the pool at once —
   * destroyed unless the error is a plain server ERROR (after a transport failure its state is
   * unknown). Only the statement and the reading of its reply differ between the callers.
   */
  async function withWriter<R>(
    runId: string,
    pending: Pending,
    answer: (a: OnceAnswer) => Verdict,
    send: (c: PoolClient) => Promise<R>,
    read: (reply: R) => Verdict,
  ): Promise<Verdict> {
    const out = await checkoutWriter(runId);
    if (!out.ok) return out.result;
    const client = out.client;
    let destroy = false;
    let keep = false;
    try {
      const reply = await send(client);
      keep = true;
      return read(reply);
    } catch (e) {
      destroy = !isPlainServerError(e);
      return failedOnce(e, runId, pending, answer);
    } finally {
      // after an ERROR the pool gets the connection back at once: the server reports the error
      // before it aborts the transaction (and so releases the lock), so the locked path must
      // queue behind it on this very connection (the pool hands back the last one released)
      if (keep) releaseWriter(client, destroy);
      else client.release(destroy);
    }
  }

  /** The prepared batch/handoff statement (parsed and planned once per connection). */
  const manyStatement = appendManyStatement(schema);

  /**
   * The fast path's one round trip for a batch or a handoff: the prepared statement of
   * {@link appendManyStatement} alone, outside an explicit transaction — one statement, so its own
   * transaction: the lock and the inserts commit together when it returns. `got` false:
   * `busy`; else `inserted`; a primary-key (23505) or density (23514) refusal: `moved` (nothing
   * written). Any other server ERROR committed nothing (`write_failed`); a connection failure
   * while it was in flight may have committed (`indeterminate`, step `commit`).
   */
  function appendManyOnce(
    runId: string,
    plan: AppendPlan,
    trace: string | null,
    pending: Pending,
    answer: (a: OnceAnswer) => Verdict,
  ): Promise<Verdict> {
    // a batch record when the batch has ≥ 2 events or was given a trace (the fs backend's rule)
    const record = trace !== null || plan.lines.length >= 2;
    const values = [
      runId,
      plan.first,
      plan.lines,
      plan.cache?.text ?? null,
      plan.cache?.seq ?? null,
      record ? linesSha256(plan.lines) : null,
      record ? (trace ?? '[]') : null,
      lockKey(runId),
    ];
    return withWriter(
      runId,
      pending,
      answer,
      (c) =>
        c.query<{ got: unknown; n: unknown }>({ name: manyStatement.name, text: manyStatement.text, values }),
      (res) => {
        const row = res.rows[0];
        if (row?.got === false) return answer('busy');
        if (row?.got === true && row.n === plan.lines.length) return answer('inserted');
        // committed, but not as planned: never reported as committed (unreachable: all or nothing)
        known.delete(runId);
        return storeResult('indeterminate', runId, {
          ...pending,
          step: 'commit',
          detail: `the append statement answered ${JSON.stringify(row ?? null)}`,
        });
      },
    );
  }

  /**
   * What a one-round-trip append's error means: a primary-key (23505) or density (23514) refusal
   * is `moved` (the run moved past this view; nothing written); any other server ERROR committed
   * nothing (`write_failed`); a connection failure while the statement was in flight may have
   * committed (`indeterminate`, step `commit`; the caller destroys the connection).
   */
  function failedOnce(
    e: unknown,
    runId: string,
    pending: Pending,
    answer: (a: OnceAnswer) => Verdict,
  ): Verdict {
    if (isPlainServerError(e)) {
      const code = (e as { code: string }).code;
      if (code === '23505' || code === '23514') return answer('moved');
      known.delete(runId);
      return refused(runId, 'write_failed', `not committed, rolled back: ${errText(e)}`);
    }
    known.delete(runId);
    return storeResult('indeterminate', runId, {
      ...pending,
      step: 'commit',
      detail: `the connection failed while the append (its own commit) was in flight: ${errText(e)}`,
    });
  }

  /** The prepared single-event insert (parsed and planned once per connection). */
  const oneStatement = appendOneStatement(schema);

  /**
   * The steady state's one round trip for one event without a cache row or batch record: the
   * prepared single-row insert ({@link appendOneStatement}) alone, its own transaction. One row:
   * `inserted`; none: `busy` (another session holds the lock); a primary-key (23505) or density
   * (23514) refusal: `moved` — the run moved past this view and the statement wrote nothing.
   * Any other server ERROR committed nothing (`write_failed`); a connection failure while it was
   * in flight may have committed (`indeterminate`, step `commit`).
   */
  function appendOneOnce(
    runId: string,
    plan: AppendPlan,
    pending: Pending,
    answer: (a: OnceAnswer) => Verdict,
  ): Promise<Verdict> {
    return withWriter(
      runId,
      pending,
      answer,
      (c) =>
        c.query({
          name: oneStatement.name,
          text: oneStatement.text,
          values: [runId, plan.first, plan.lines[0], lockKey(runId)],
        }),
      (res) => answer(res.rowCount === 1 ? 'inserted' : 'busy'),
    );
  }

  /**
   * Appends prepared entries: one round trip when this object's view of the run is current (the
   * manifest and the last validated seq known, and the plan passes against that view), else — or
   * when the function finds the run moved on — the locked transaction that reads the new rows first.
   */
  async function appendEntries(
    runId: string,
    entries: readonly PreparedEntry[],
    mode: { readonly cacheHandoffs: boolean; readonly trace: string | null; readonly batch: boolean },
  ): Promise<StoreResult> {
    // one timestamp per append, shared by a batch's events (as the fs backend writes them)
    const ts = formatTimestamp(now());
    const committed = (plan: AppendPlan): StoreResult =>
      storeResult(
        'committed',
        runId,
        mode.batch ? { first_seq: plan.first, seq: plan.last } : { seq: plan.last },
      );
    const pendingOf = (plan: AppendPlan | null): Pending =>
      plan === null ? {} : mode.batch ? { seq: plan.last, first_seq: plan.first } : { seq: plan.last };
    /** Advances the view after a commit of `plan`; forgets it when it no longer lines up. */
    const settle = (plan: AppendPlan | null, v: Verdict): StoreResult => {
      const r = v === 'stale' ? refused(runId, 'write_failed', 'not committed: the journal moved') : v;
      if (r.outcome === 'committed' && plan !== null) {
        const k = known.get(runId);
        if (k !== undefined && k.lastSeq + 1 === plan.first)
          known.set(runId, { lastSeq: plan.last, tail: plan.tail });
        else known.delete(runId);
      } else if (r.outcome !== 'nothing_written' || r.code === 'write_failed') known.delete(runId);
      return r;
    };

    // the fast path: BEGIN; append_events(…); COMMIT — one message, one round trip
    const cachedManifest = manifests.get(runId);
    const view = known.get(runId);
    if (cachedManifest !== undefined && view !== undefined) {
      const p = planAppend(runId, cachedManifest, view, entries, {
        cacheHandoffs: mode.cacheHandoffs,
        batch: mode.batch,
        ts,
      });
      // a refusal against this view may be stale (a replan cite, a baton): decide it under the lock
      if (p.ok) {
        const plan = p.plan;
        const verify = (r: number | undefined): Verdict => {
          if (r === -1) return refused(runId, 'busy', 'the run is locked by another mutation');
          if (r === plan.first - 1) return committed(plan);
          if (r === undefined) return refused(runId, 'write_failed', 'append_events gave no answer');
          return 'stale'; // another writer appended since this view: nothing written, retry below
        };
        const answer = (a: OnceAnswer): Verdict =>
          a === 'inserted' ? verify(plan.first - 1) : a === 'busy' ? verify(-1) : 'stale';
        const v =
          options.beforeCommit === undefined
            ? plan.lines.length === 1 && plan.cache === null && mode.trace === null
              ? // the steady state of a writer: one event, one prepared single-row insert
                await appendOneOnce(runId, plan, pendingOf(plan), answer)
              : await appendManyOnce(runId, plan, mode.trace, pendingOf(plan), answer)
            : await transact(
                runId,
                () => pendingOf(plan),
                async () => ({
                  commit: committed(plan),
                  writes: `BEGIN; ${appendCall(runId, plan, mode.trace)}`,
                  verify: (replies) => verify(appendReply(replies)),
                }),
              );
        if (v !== 'stale') return settle(plan, v);
      }
    }

    // the locked path: BEGIN, the lock, the manifest (unless known) and the rows since this view in
    // one round trip; then the same function call with COMMIT. Inlined values are a validated run
    // id, a bigint and integers.
    let planned: AppendPlan | null = null;
    const v = await transact(
      runId,
      () => pendingOf(planned),
      async (c) => {
        const known0 = manifests.get(runId);
        const base = known.get(runId);
        const from = base?.lastSeq ?? 0;
        const stmts = ['BEGIN', `SELECT pg_try_advisory_xact_lock(${lockKey(runId)}::bigint) AS got`];
        if (known0 === undefined) stmts.push(`SELECT manifest FROM ${t('runs')} WHERE run_id = '${runId}'`);
        stmts.push(
          `SELECT seq, line FROM ${t('events')} WHERE run_id = '${runId}' AND seq > ${from} ORDER BY seq`,
        );
        const res = replyList(await c.query(stmts.join('; ')));
        if ((res[1]?.rows[0] as { got?: boolean } | undefined)?.got !== true)
          return { rollback: refused(runId, 'busy', 'the run is locked by another mutation') };
        let manifest: StoredManifest;
        if (known0 !== undefined) manifest = known0;
        else {
          const text = (res[2]?.rows[0] as { manifest?: string } | undefined)?.manifest;
          if (text === undefined) return { rollback: refused(runId, 'no_such_run', `no run ${runId}`) };
          const m = manifestOf(runId, text);
          if (!m.ok) return { rollback: refused(runId, 'integrity_failure', m.detail) };
          manifest = m.manifest;
        }
        const rows = (res[res.length - 1]?.rows ?? []) as PgEventRow[];
        const caught = catchUp(
          runId,
          manifest,
          base ?? { lastSeq: 0, tail: isChainManifest(manifest) ? startTail(manifest) : null },
          rows,
        );
        if (!caught.ok) return { rollback: caught.result };
        const p = planAppend(runId, manifest, caught.known, entries, {
          cacheHandoffs: mode.cacheHandoffs,
          batch: mode.batch,
          ts,
        });
        if (!p.ok) return { rollback: p.result };
        const plan = p.plan;
        planned = plan;
        // the writes go out with COMMIT (one round trip); canonical text is dollar-quoted verbatim
        return {
          commit: committed(plan),
          writes: appendCall(runId, plan, mode.trace),
          verify: (replies) =>
            appendReply(replies) === plan.first - 1
              ? committed(plan)
              : refused(
                  runId,
                  'write_failed',
                  'not committed: the journal moved although the run lock was held (a writer that does not take the lock)',
                ),
        };
      },
    );
    return settle(planned, v);
  }

  async function doAppend(
    runId: string,
    kind: StoreEventKind,
    payload: unknown,
    withCache: boolean,
  ): Promise<StoreResult> {
    if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
    // shape first, before touching the database (cites and the baton sequence again at the real seq)
    const prepared = prepareAppend(runId, kind, payload);
    if (!prepared.ok) return prepared.result;
    return appendEntries(runId, [{ kind, payload, ...prepared.value }], {
      cacheHandoffs: withCache,
      trace: null,
      batch: false,
    });
  }

  async function doAppendBatch(
    runId: string,
    entries: readonly BatchEntry[],
    batchOptions: AppendBatchOptions | undefined,
  ): Promise<StoreResult> {
    if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
    // every entry first: nothing reaches the database when one is refused
    const prepared = prepareBatch(runId, entries, batchOptions?.trace);
    if (!prepared.ok) return prepared.result;
    return appendEntries(runId, prepared.entries, {
      cacheHandoffs: true,
      trace: prepared.trace,
      batch: true,
    });
  }

  async function readBatches(runId: string): Promise<BatchesLoadResult> {
    if (!isRunId(runId))
      return { ok: false, code: 'bad_run_id', run_id: null, detail: `not a run id: ${quoteValue(runId)}` };
    const fail = (code: StoreCode, detail: string): BatchesLoadResult => ({
      ok: false,
      code,
      run_id: runId,
      detail,
    });
    // one snapshot, one round trip: the manifest, the event rows, the batch rows
    const got = await withReader("the run's batches", async (c) =>
      replyList(
        await c.query(
          [
            'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY',
            `SELECT manifest FROM ${t('runs')} WHERE run_id = '${runId}'`,
            `SELECT seq, line FROM ${t('events')} WHERE run_id = '${runId}' ORDER BY seq`,
            `SELECT first_seq, last_seq, sha256, trace FROM ${t('handoff_batches')} WHERE run_id = '${runId}' ORDER BY first_seq`,
            'COMMIT',
          ].join('; '),
        ),
      ),
    );
    if (!got.ok) return fail('journal_unreadable', got.detail);
    const res = got.value;
    const text = (res[1]?.rows[0] as { manifest?: string } | undefined)?.manifest;
    if (text === undefined) return fail('no_such_run', `no run ${runId}`);
    const m = manifestOf(runId, text);
    if (!m.ok) return fail('integrity_failure', m.detail);
    const rows = (res[2]?.rows ?? []) as PgEventRow[];
    const valid = isChainManifest(m.manifest)
      ? parseChainEventRows(rows, m.manifest).events.length
      : parseEventRows(rows, runId, eventSchemaOf(m.manifest)).events.length;
    return { ok: true, value: judgeBatchRows(runId, (res[3]?.rows ?? []) as PgBatchRow[], rows, valid) };
  }

  async function loadAny(runId: string): Promise<AnyLoadResult> {
    if (!isRunId(runId))
      return {
        ok: false,
        code: 'bad_run_id',
        run_id: null,
        detail: `not a run id: ${quoteValue(runId)}`,
      };
    const fail = (code: StoreCode, detail: string): AnyLoadResult => ({
      ok: false,
      code,
      run_id: runId,
      detail,
    });
    const got = await withReader('the run', async (c): Promise<AnyLoadResult> => {
      // one snapshot for the manifest, the rows and the cache
      await c.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY');
      const mrow = await c.query<{ manifest: string }>(
        `SELECT manifest FROM ${t('runs')} WHERE run_id = $1`,
        [runId],
      );
      const text = mrow.rows[0]?.manifest;
      if (text === undefined) {
        await c.query('ROLLBACK');
        return fail('no_such_run', `no run ${runId}`);
      }
      const { rows } = await c.query<PgEventRow>(
        `SELECT seq, line FROM ${t('events')} WHERE run_id = $1 ORDER BY seq`,
        [runId],
      );
      const crow = await c.query<{ body: string }>(
        `SELECT body FROM ${t('handoff_cache')} WHERE run_id = $1 ORDER BY seq DESC LIMIT 1`,
        [runId],
      );
      await c.query('COMMIT');
      const m = manifestOf(runId, text);
      if (!m.ok) return fail('integrity_failure', m.detail);
      const manifest = m.manifest;
      const warnings = storageRootWarnings(manifest.storage_root, root);
      if (isChainManifest(manifest)) {
        const p = parseChainEventRows(rows, manifest);
        return { ok: true, value: assembleChainLoad(manifest, p.events, p.damage, warnings) };
      }
      const p = parseEventRows(rows, runId, eventSchemaOf(manifest));
      let cache: HandoffCache | null | 'invalid' = null;
      const body = crow.rows[0]?.body;
      if (body !== undefined) {
        try {
          const v = validateHandoffCache(JSON.parse(body));
          cache = v.ok ? v.value : 'invalid';
        } catch {
          cache = 'invalid';
        }
      }
      return { ok: true, value: assembleLoad(manifest, p.events, p.damage, cache, warnings) };
    });
    return got.ok ? got.value : fail('journal_unreadable', got.detail);
  }

  /** How this store builds a new run's manifest (as the fs backend: its root, version, clock, id source). */
  const manifestEnv = { storageRoot: root, pluginVersion, now, runIdSuffix: options.runIdSuffix };

  /** A built manifest published as a new run, or the builder's refusal. */
  async function publishBuilt(
    b: ReturnType<typeof buildManifest> | ReturnType<typeof buildChainManifest>,
  ): Promise<StoreResult> {
    if (!b.ok) return refused(b.run_id, b.code, b.detail);
    return publishRun(b.manifest);
  }

  const store: PgStore = {
    backend: 'postgres',
    root,
    schema,
    lockKey,
    migrate: ensureSchema,
    async close() {
      closing = true;
      flushWriter();
      if (ownPool) await pool.end();
    },
    // async: a throwing clock or id source rejects the promise, as before
    async createRun(input: CreateRunInput) {
      return publishBuilt(buildManifest(input, manifestEnv));
    },
    async createChainRun(input) {
      return publishBuilt(buildChainManifest(input, manifestEnv));
    },
    append: (runId, kind, payload) => doAppend(runId, kind, payload, false),
    setHandoff: (runId, payload) => doAppend(runId, 'handoff', payload, true),
    appendBatch: (runId, entries, batchOptions) => doAppendBatch(runId, entries, batchOptions),
    readBatches,
    async load(runId): Promise<LoadResult> {
      return contractLoadOnly(runId, await loadAny(runId));
    },
    loadRun: loadAny,
    async listRuns() {
      try {
        await ensureSchema();
        const { rows } = await pool.query<{ run_id: string }>(
          `SELECT run_id FROM ${t('runs')} ORDER BY run_id`,
        );
        return rows.map((r) => r.run_id).filter((id) => isRunId(id));
      } catch {
        return [];
      }
    },
    async isLocked(runId) {
      if (!isRunId(runId)) return false;
      try {
        const { rows } = await pool.query<{ held: boolean }>(ADVISORY_HELD_SQL, [lockKey(runId)]);
        return rows[0]?.held === true;
      } catch {
        return false;
      }
    },
  };
  return store;
}
