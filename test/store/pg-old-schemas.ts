/**
 * Test fixture: turns a current (version-3) PostgreSQL store schema back into what the earlier
 * versions' DDL created, so that migrations are tested from the real older shapes. Version 2 had
 * the foreign key `events → runs` and the `max(seq)` trigger `events_dense_seq` (function
 * `dense_seq()`), verbatim below; version 1 was version 2 without `handoff_batches` and
 * `append_events`.
 */
import type pg from 'pg';

/**
 * Rewrites schema `schema` (holding the current DDL) into the version-2 shape, rows kept.
 *
 * @example
 * ```ts
 * await toVersion2(client, store.schema);
 * ```
 */
export async function toVersion2(c: pg.Client, schema: string): Promise<void> {
  const s = `"${schema}"`;
  for (const q of [
    `DROP TRIGGER events_dense ON ${s}.events`,
    `DROP FUNCTION ${s}.events_dense()`,
    `ALTER TABLE ${s}.events ADD FOREIGN KEY (run_id) REFERENCES ${s}.runs (run_id)`,
    // the version-2 trigger, as that version's DDL created it
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
    `CREATE OR REPLACE TRIGGER events_dense_seq BEFORE INSERT ON ${s}.events
       FOR EACH ROW EXECUTE FUNCTION ${s}.dense_seq()`,
    `DELETE FROM ${s}.schema_version WHERE version = 3`,
  ])
    await c.query(q);
}

/**
 * Rewrites schema `schema` (holding the current DDL) into the version-1 shape, rows kept (no
 * batch rows may exist).
 *
 * @example
 * ```ts
 * await toVersion1(client, store.schema);
 * ```
 */
export async function toVersion1(c: pg.Client, schema: string): Promise<void> {
  const s = `"${schema}"`;
  await toVersion2(c, schema);
  await c.query(`DROP FUNCTION ${s}.append_events(text, integer, text[], text, integer, text, jsonb)`);
  await c.query(`DROP TABLE ${s}.handoff_batches`);
  await c.query(`DELETE FROM ${s}.schema_version WHERE version = 2`);
  await c.query(`INSERT INTO ${s}.schema_version (version) VALUES (1)`);
}

/** The triggers on `events` and its foreign keys, by name (what a migration must leave). */
export async function eventsShape(
  c: pg.Client,
  schema: string,
): Promise<{ triggers: string[]; foreignKeys: string[] }> {
  const t = await c.query<{ n: string }>(
    `SELECT tgname AS n FROM pg_trigger WHERE tgrelid = $1::regclass AND NOT tgisinternal ORDER BY tgname`,
    [`"${schema}".events`],
  );
  const f = await c.query<{ n: string }>(
    `SELECT conname AS n FROM pg_constraint WHERE conrelid = $1::regclass AND contype = 'f' ORDER BY conname`,
    [`"${schema}".events`],
  );
  return { triggers: t.rows.map((r) => r.n), foreignKeys: f.rows.map((r) => r.n) };
}
