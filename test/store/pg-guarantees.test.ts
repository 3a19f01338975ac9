/**
 * What the PostgreSQL store guarantees beyond the contract suite, against a real server:
 * append-only and dense seqs enforced by the database itself (raw UPDATE/DELETE/TRUNCATE and a
 * gapped or duplicate INSERT fail); integrity on load (rows written behind the store's back with
 * triggers disabled are reported `corrupt` at their seq, appends then refused); a lock held by
 * another session is `busy` and goes away with that session; two real processes appending to one
 * run (one is `busy` while the other holds the lock; nothing interleaves, seqs stay dense); a
 * connection cut while COMMIT is in flight is `indeterminate` — both when the server committed and
 * when it did not — never a false `committed` or `nothing_written`; idempotent migrations.
 * Children use dist/ (run `npm run build` first).
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, connect as netConnect, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/index.js';
import { createPgStore, type PgStore } from '../../src/pg/index.js';
import { createFsStore } from '../../src/store/index.js';
import { type ChildResult, spawnChild } from '../helpers/child.js';
import { usePgStores } from '../helpers/pg-store-fixture.js';
import { usePostgres } from '../setup/postgres.js';
import { dispatch, fixedClock, note, reviewOfDepth, solvedHandoff } from './fixtures.js';

const CHILD = fileURLToPath(new URL('./pg-child.mjs', import.meta.url));
const db = usePostgres();
const pgs = usePgStores(db, 'g_');
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
afterAll(async () => {});

function tmp(): string {
  const d = mkdtempSync(join(tmpdir(), 'pg-guarantees-'));
  dirs.push(d);
  return d;
}

const child = (args: string[]): Promise<ChildResult> => spawnChild(CHILD, args);

async function until(cond: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('the database enforces append-only, dense journals', () => {
  it('raw UPDATE, DELETE and TRUNCATE of events, runs and the cache fail; gapped or duplicate seqs fail', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 2);
    await store.setHandoff(id, solvedHandoff());
    const c = await pgs.sql();
    const s = `"${store.schema}"`;
    for (const q of [
      `UPDATE ${s}.events SET line = line || ' ' WHERE run_id = '${id}'`,
      `DELETE FROM ${s}.events WHERE run_id = '${id}'`,
      `TRUNCATE ${s}.events CASCADE`,
      `UPDATE ${s}.runs SET manifest = '{}'`,
      `DELETE FROM ${s}.runs`,
      `DELETE FROM ${s}.handoff_cache`,
      `INSERT INTO ${s}.events (run_id, seq, line) VALUES ('${id}', 5, '{}')`,
      `INSERT INTO ${s}.events (run_id, seq, line) VALUES ('${id}', 2, '{}')`,
    ]) {
      await expect(c.query(q), q).rejects.toThrow(/append-only|not dense|duplicate key/);
    }
    const l = await store.load(id);
    expect(l.ok && l.value.events.map((e) => e.seq)).toEqual([1, 2, 3]);
    expect(l.ok && l.value.handoff_cache).toBe('current');
  });

  it('migrations are idempotent, also when two stores migrate one schema at once', async () => {
    const a = pgs.fresh();
    const b = createPgStore({ connectionString: db.url(), schema: a.schema, now: fixedClock() });
    pgs.track(b);
    await Promise.all([a.migrate(), b.migrate()]);
    await a.migrate();
    const c = await pgs.sql();
    const v = await c.query(`SELECT version FROM "${a.schema}".schema_version`);
    // row 2 too: a version-2 process finds everything it uses and runs no DDL
    expect(v.rows.map((r) => r.version).sort()).toEqual([2, 3]);
    expect((await a.createRun({ dispatch: dispatch() })).outcome).toBe('committed');
  });
});

describe('integrity on load: rows written behind the store are found', () => {
  async function tamper(store: PgStore, q: (s: string) => string, params: unknown[] = []): Promise<void> {
    const c = await pgs.sql();
    const s = `"${store.schema}"`;
    // only a superuser bypassing the triggers can do this; the store must still notice
    await c.query(`ALTER TABLE ${s}.events DISABLE TRIGGER USER`);
    await c.query(`ALTER TABLE ${s}.runs DISABLE TRIGGER USER`);
    await c.query(q(s), params);
    await c.query(`ALTER TABLE ${s}.events ENABLE TRIGGER USER`);
    await c.query(`ALTER TABLE ${s}.runs ENABLE TRIGGER USER`);
  }

  it('a non-canonical line is corrupt at its seq; appends are then refused journal_damaged', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 3);
    const before = await store.load(id);
    if (!before.ok) throw new Error(before.detail);
    const line2 = JSON.stringify(before.value.events[1], null, 1); // same content, not canonical
    await tamper(store, (s) => `UPDATE ${s}.events SET line = $1 WHERE run_id = $2 AND seq = 2`, [line2, id]);
    const l = await store.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.events.map((e) => e.seq)).toEqual([1]);
    expect(l.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
    expect(l.value.damage?.detail).toMatch(/canonical|newline/);
    const other = pgs.fresh({ schema: store.schema });
    expect(await other.append(id, 'note', note())).toMatchObject({
      outcome: 'nothing_written',
      code: 'journal_damaged',
    });
  });

  it('a seq gap and a row whose line names another seq are corrupt at the gap', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 3);
    await tamper(store, (s) => `DELETE FROM ${s}.events WHERE run_id = $1 AND seq = 2`, [id]);
    const gap = await store.load(id);
    expect(gap.ok && gap.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
    expect(gap.ok && gap.value.events.length).toBe(1);
    const store2 = pgs.fresh();
    const id2 = await pgs.runWithNotes(store2, 2);
    await tamper(
      store2,
      (s) =>
        `UPDATE ${s}.events SET line = replace(line, '"seq":2', '"seq":7') WHERE run_id = $1 AND seq = 2`,
      [id2],
    );
    const l = await store2.load(id2);
    expect(l.ok && l.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
    expect(l.ok && l.value.damage?.detail).toMatch(/seq gap: 7/);
  });

  it('an over-deep line inserted behind the store is corrupt at its seq; the prefix stays readable', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 1);
    const c = await pgs.sql();
    // no trigger refuses it: the seq is the next one, and the database does not read the line
    const line = canonicalJson({
      kind: 'review',
      payload: reviewOfDepth(100_000),
      schema: 'run-store-event/v2',
      seq: 2,
      ts: '2026-11-30T10:00:00Z',
    });
    await c.query(`INSERT INTO "${store.schema}".events (run_id, seq, line) VALUES ($1, 2, $2)`, [id, line]);
    for (const s of [store, pgs.fresh({ schema: store.schema })]) {
      const l = await s.load(id);
      if (!l.ok) throw new Error(l.detail);
      expect(l.value.events.map((e) => e.seq)).toEqual([1]);
      expect(l.value.damage).toMatchObject({ code: 'corrupt', line: 2 });
      expect(l.value.damage?.detail).toMatch(/nests deeper than 64/);
      expect(await s.append(id, 'note', note())).toMatchObject({
        outcome: 'nothing_written',
        code: 'journal_damaged',
      });
    }
  });

  it('a manifest row that is not the canonical manifest is integrity_failure', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 0);
    await tamper(store, (s) => `UPDATE ${s}.runs SET manifest = manifest || ' ' WHERE run_id = $1`, [id]);
    const other = pgs.fresh({ schema: store.schema });
    expect(await other.load(id)).toMatchObject({ ok: false, code: 'integrity_failure' });
  });
});

describe('rows hold the lines the fs store writes, byte for byte (the reference form, raw UTF-8)', () => {
  it('the manifest, every event line and the cache body equal the fs files for the same run', async () => {
    const suffix = () => '7484bfa8';
    const pgStore = pgs.fresh({ runIdSuffix: suffix, root: '/same/root' });
    const fsRoot = join(tmp(), 'store');
    const fsStore = createFsStore({
      root: fsRoot,
      env: {},
      now: fixedClock(),
      runIdSuffix: suffix,
      gitTracked: () => [],
    });
    const d = dispatch();
    const input = {
      dispatch: { ...d, context: { ...d.context, goal_state: 'a b : ℕ\n⊢ a ≤ b' } },
      trackerSessionId: 'sid',
    };
    const id = (await pgStore.createRun(input)).run_id as string;
    expect((await fsStore.createRun(input)).run_id).toBe(id);
    for (const s of [pgStore, fsStore]) {
      expect((await s.append(id, 'note', note('closes ⊢ a ≤ b; 😀 ﬀ \u2028 \u0001'))).outcome).toBe(
        'committed',
      );
      expect((await s.setHandoff(id, solvedHandoff())).outcome).toBe('committed');
    }
    const c = await pgs.sql();
    const rows = await c.query<{ line: string }>(
      `SELECT line FROM ${pgStore.schema}.events WHERE run_id = $1 ORDER BY seq`,
      [id],
    );
    const dir = join(fsRoot, 'runs', id);
    expect(`${rows.rows.map((r) => r.line).join('\n')}\n`).toBe(
      readFileSync(join(dir, 'events.jsonl'), 'utf8'),
    );
    expect(rows.rows[0]?.line).toContain('"text":"closes ⊢ a ≤ b; 😀 ﬀ \u2028 \\u0001"');
    const cache = await c.query<{ body: string }>(
      `SELECT body FROM ${pgStore.schema}.handoff_cache WHERE run_id = $1`,
      [id],
    );
    expect(`${cache.rows[0]?.body}\n`).toBe(readFileSync(join(dir, 'handoff.json'), 'utf8'));
    const m = await c.query<{ manifest: string }>(
      `SELECT manifest FROM ${pgStore.schema}.runs WHERE run_id = $1`,
      [id],
    );
    expect(`${m.rows[0]?.manifest}\n`).toBe(
      readFileSync(join(dir, 'manifest.json'), 'utf8').replace(
        `"storage_root":${JSON.stringify(fsStore.root)}`,
        '"storage_root":"/same/root"',
      ),
    );
    const l = await pgStore.load(id);
    expect(l.ok && [l.value.damaged, l.value.warnings, l.value.handoff_cache]).toEqual([
      false,
      [],
      'current',
    ]);
  });

  it('an older all-ASCII row still loads and takes appends after it', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 1);
    const line = canonicalJson({
      kind: 'note',
      payload: note('old ⊢'),
      schema: 'run-store-event/v2',
      seq: 2,
      ts: '2026-11-30T10:00:00Z',
    });
    expect(line).toContain('old \\u22a2');
    const c = await pgs.sql();
    await c.query(`INSERT INTO ${store.schema}.events (run_id, seq, line) VALUES ($1, 2, $2)`, [id, line]);
    const other = pgs.fresh({ schema: store.schema });
    expect(await other.append(id, 'note', note('new ⊢'))).toMatchObject({ outcome: 'committed', seq: 3 });
    const l = await other.load(id);
    if (!l.ok) throw new Error(l.detail);
    expect([l.value.damaged, l.value.events.map((e) => (e.payload as { text: string }).text)]).toEqual([
      false,
      ['n0', 'old ⊢', 'new ⊢'],
    ]);
  });
});

describe('locks are database sessions', () => {
  it('a held lock is busy and is released by the database when the holding session dies', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 1);
    const holder = await pgs.sql();
    await holder.query('SELECT pg_advisory_lock($1::bigint)', [store.lockKey(id)]);
    expect(await store.append(id, 'note', note())).toMatchObject({ code: 'busy' });
    expect(await store.isLocked(id)).toBe(true);
    const killer = await pgs.sql();
    const pid = (await holder.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows[0]?.pid;
    await killer.query('SELECT pg_terminate_backend($1)', [pid]);
    for (let i = 0; i < 200 && (await store.isLocked(id)); i++) await new Promise((r) => setTimeout(r, 10));
    expect(await store.isLocked(id)).toBe(false);
    expect(await store.append(id, 'note', note())).toMatchObject({ outcome: 'committed', seq: 2 });
  });

  it('two processes on one run: the second is busy while the first holds the lock; nothing interleaves', async () => {
    const store = pgs.fresh();
    await store.migrate();
    const id = await pgs.runWithNotes(store, 1);
    const sync = tmp();
    const holder = child(['hold', db.url(), store.schema, id, sync, 'a']);
    await until(() => existsSync(join(sync, 'holding')), 'the holder inside its transaction');
    const second = await child(['once', db.url(), store.schema, id, sync, 'b']);
    expect(second.code, second.stderr).toBe(0);
    expect(JSON.parse(second.stdout)).toMatchObject({ outcome: 'nothing_written', code: 'busy' });
    writeFileSync(join(sync, 'go'), '');
    const first = await holder;
    expect(first.code, first.stderr).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ outcome: 'committed', seq: 2 });
    const l = await store.load(id);
    expect(l.ok && l.value.events.map((e) => (e.payload as { text: string }).text)).toEqual(['n0', 'hold-a']);
  }, 60_000);

  it('two processes appending freely: every append committed or busy, committed seqs dense and unique', async () => {
    const store = pgs.fresh();
    await store.migrate();
    const id = await pgs.runWithNotes(store, 0);
    const sync = tmp();
    const COUNT = 40;
    const procs = ['p', 'q'].map((tag) =>
      child(['loop', db.url(), store.schema, id, sync, tag, String(COUNT)]),
    );
    await new Promise((r) => setTimeout(r, 300)); // both children loaded before the start signal
    writeFileSync(join(sync, 'start'), '');
    const results = await Promise.all(procs);
    const lines = results.flatMap((r) => {
      expect(r.code, r.stderr).toBe(0);
      return r.stdout
        .trim()
        .split('\n')
        .map((x) => JSON.parse(x) as { outcome: string; code?: string; seq?: number });
    });
    expect(lines).toHaveLength(2 * COUNT);
    for (const l of lines)
      expect(l.outcome === 'committed' || l.code === 'busy', JSON.stringify(l)).toBe(true);
    const committed = lines.filter((l) => l.outcome === 'committed').map((l) => l.seq as number);
    expect([...committed].sort((a, b) => a - b)).toEqual(committed.map((_, i) => i + 1));
    const load = await store.load(id);
    if (!load.ok) throw new Error(load.detail);
    expect(load.value.damaged).toBe(false);
    expect(load.value.events).toHaveLength(committed.length);
  }, 60_000);
});

describe('the steady-state append is one statement', () => {
  it('after the first, each append sends exactly one query — a prepared single-row insert for one event, a prepared WITH … INSERT statement for a batch; no BEGIN/COMMIT', async () => {
    const pool = new pg.Pool({ connectionString: db.url(), max: 1 });
    pool.on('error', () => {});
    const sent: string[] = [];
    const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
    (pool as unknown as { connect: () => Promise<pg.PoolClient> }).connect = async () => {
      const c = await connect();
      const wrapped = c as pg.PoolClient & { __spied?: boolean };
      if (wrapped.__spied !== true) {
        wrapped.__spied = true;
        const query = c.query.bind(c) as (...a: unknown[]) => unknown;
        (c as unknown as { query: (...a: unknown[]) => unknown }).query = (...a: unknown[]) => {
          const q = a[0] as string | { name?: string; text: string };
          sent.push(typeof q === 'string' ? q : `${q.name ?? ''}|${q.text}`);
          return query(...a);
        };
      }
      return c;
    };
    try {
      const store = createPgStore({ pool, schema: pgs.nextSchema(), now: fixedClock() });
      const id = await pgs.runWithNotes(store, 1);
      sent.length = 0;
      expect(await store.append(id, 'note', note('two'))).toMatchObject({ outcome: 'committed', seq: 2 });
      expect(
        await store.appendBatch(id, [
          { kind: 'note', payload: note('3') },
          { kind: 'note', payload: note('4') },
        ]),
      ).toMatchObject({
        outcome: 'committed',
        seq: 4,
      });
      expect(sent).toHaveLength(2);
      expect(sent[0]).toMatch(
        /^handoff_append_v3_one_[0-9a-f]{16}\|INSERT INTO "g_\d+"\.events \(run_id, seq, line\) SELECT \$1, \$2, \$3 WHERE pg_try_advisory_xact_lock\(\$4::bigint\)$/,
      );
      expect(sent[1]).toMatch(
        /^handoff_append_v3_many_[0-9a-f]{16}\|WITH lk AS MATERIALIZED \(SELECT pg_try_advisory_xact_lock\(\$8::bigint\) AS got\),/,
      );
      expect(sent[1]).not.toMatch(/append_events/);
      for (const q of sent) expect(q).not.toMatch(/BEGIN|COMMIT/);
      const l = await store.load(id);
      expect(l.ok && l.value.events.map((e) => e.seq)).toEqual([1, 2, 3, 4]);
    } finally {
      await pool.end();
    }
  });
});

describe('the one-round-trip append passes worker text as data', () => {
  it('hostile note text (array-literal and quoting metacharacters, SQL, a dollar tag, the statement name) round-trips byte for byte, alone and in a batch', async () => {
    const store = pgs.fresh();
    const id = await pgs.runWithNotes(store, 1);
    const hostile = [
      'NULL',
      '{"a","b"}',
      'x", NULL, "y',
      'back\\slash \\" quote',
      "'); DROP TABLE events; --",
      '$h0123456789ab$ tag $$',
      'handoff_append_v2_0000000000000000',
      'handoff_append_v3_one_0000000000000000',
      'handoff_append_v3_many_0000000000000000',
      "', 1, 'x', 0); COMMIT; --",
      '{}',
      ' , ',
    ];
    for (const text of hostile)
      expect(await store.append(id, 'note', note(text)), text).toMatchObject({ outcome: 'committed' });
    const batch = await store.appendBatch(
      id,
      hostile.map((text) => ({ kind: 'note' as const, payload: note(text) })),
      { trace: [{ machine: 'm', from: 'a', event: 'NULL', to: '{"b"}' }] },
    );
    expect(batch).toMatchObject({ outcome: 'committed', first_seq: 2 + hostile.length });
    const l = await pgs.fresh({ schema: store.schema }).load(id);
    if (!l.ok) throw new Error(l.detail);
    expect(l.value.damaged).toBe(false);
    expect(l.value.events.map((e) => (e.payload as { text: string }).text)).toEqual([
      'n0',
      ...hostile,
      ...hostile,
    ]);
    const b = await store.readBatches(id);
    if (!b.ok) throw new Error(b.detail);
    expect(b.value.batches.map((x) => [x.status, x.trace])).toEqual([
      ['complete', [{ machine: 'm', from: 'a', event: 'NULL', to: '{"b"}' }]],
    ]);
  });
});

/** The name the store prepares its `append_events` call under (in every Parse and Bind of it). */
const APPEND_STATEMENT = Buffer.from('handoff_append_v');

/** A unix-socket proxy in front of the server that cuts the connection around a COMMIT (or a self-committing append statement). */
async function commitCutter(upstream: string): Promise<{
  dir: string;
  arm(mode: 'after-server-reply' | 'before-server'): void;
  close(): Promise<void>;
}> {
  const dir = tmp();
  let armed: 'after-server-reply' | 'before-server' | null = null;
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const up = netConnect(upstream);
    sockets.add(client).add(up);
    let cutOnReply = false;
    client.on('data', (chunk: Buffer) => {
      // the locked path's COMMIT, or the one-round-trip path's prepared append_events call (its
      // Parse or Bind names the statement): a single statement that commits on its own
      if (armed !== null && (chunk.includes(Buffer.from('COMMIT\0')) || chunk.includes(APPEND_STATEMENT))) {
        const mode = armed;
        armed = null;
        if (mode === 'before-server') {
          client.destroy();
          up.destroy();
          return;
        }
        cutOnReply = true;
      }
      up.write(chunk);
    });
    up.on('data', (chunk: Buffer) => {
      if (cutOnReply) {
        // the server answered COMMIT (it committed); the client never hears it
        client.destroy();
        up.destroy();
        return;
      }
      client.write(chunk);
    });
    client.on('error', () => up.destroy());
    up.on('error', () => client.destroy());
    client.on('close', () => up.destroy());
    up.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(join(dir, '.s.PGSQL.5432'), r));
  return {
    dir,
    arm: (mode) => {
      armed = mode;
    },
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((r) => server.close(r));
    },
  };
}

describe('a connection lost while COMMIT is in flight is indeterminate, never a false outcome', () => {
  const viaProxy = (url: string, dir: string): string => {
    const u = new URL(url);
    u.searchParams.set('host', dir);
    u.port = '';
    return u.toString();
  };
  const upstreamSocket = (url: string): string => {
    const host = new URL(url).searchParams.get('host');
    if (host === null) throw new Error('the COMMIT-cut test needs a unix-socket server URL');
    return join(host, `.s.PGSQL.${new URL(url).port || '5432'}`);
  };

  for (const [mode, path] of [
    ['after-server-reply', 'locked'],
    ['before-server', 'locked'],
    ['after-server-reply', 'one-round-trip'],
    ['before-server', 'one-round-trip'],
  ] as const) {
    it(`cut ${mode} (${path} path): indeterminate with the seq; the journal holds the event ${mode === 'after-server-reply' ? 'once' : 'not at all'}`, async () => {
      const direct = pgs.fresh();
      // the one-round-trip path needs a store that knows the run: the cutting store creates it
      const id = path === 'locked' ? await pgs.runWithNotes(direct, 1) : '';
      const proxy = await commitCutter(upstreamSocket(db.url()));
      try {
        const cut = createPgStore({
          connectionString: viaProxy(db.url(), proxy.dir),
          schema: direct.schema,
          now: fixedClock(),
        });
        pgs.track(cut);
        await cut.migrate();
        const runId = path === 'locked' ? id : await pgs.runWithNotes(cut, 1);
        proxy.arm(mode);
        const r = await cut.append(runId, 'note', note('in flight'));
        expect(r).toMatchObject({ outcome: 'indeterminate', seq: 2, step: 'commit' });
        const l = await direct.load(runId);
        if (!l.ok) throw new Error(l.detail);
        const texts = l.value.events.map((e) => (e.payload as { text: string }).text);
        expect(texts).toEqual(mode === 'after-server-reply' ? ['n0', 'in flight'] : ['n0']);
        // the same store recovers: its next append takes the next dense seq
        expect(await cut.append(runId, 'note', note('after'))).toMatchObject({
          outcome: 'committed',
          seq: texts.length + 1,
        });
      } finally {
        await proxy.close();
      }
    });
  }
});
