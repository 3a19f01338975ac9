// PostgreSQL run-store benchmark (built dist/): store.append throughput (one round trip per event:
// one prepared single-row `INSERT … SELECT $1, $2, $3 WHERE pg_try_advisory_xact_lock($4)` that
// commits on its own — the lock taken by the statement, continuity checked by the primary key and
// the `events_dense` trigger; schema version 3) and store.appendBatch of 5 events (one prepared
// `WITH … INSERT` statement: the lock once, a multi-row insert, the batch record) vs a raw loop of single-statement
// INSERTs of lines of the same size into a plain table, on the same server, in the same run,
// interleaved (ratios). Server:
// $HANDOFF_BENCH_PG_URL or $HANDOFF_TEST_PG_URL, else a throwaway cluster (initdb + postgres on a
// unix socket in a temp dir, as the `postgres` OS user when running as root; default durability
// settings, so every commit waits for its WAL flush in both loops).
import { execFileSync, spawn } from 'node:child_process';
import {
  accessSync,
  chownSync,
  constants,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  rmSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';
import { createPgStore } from '../dist/src/pg/index.js';
import { timeOnce } from './lib.mjs';

const APPENDS = 1500;
const BATCH = 5;
const BATCHES = 300;

function binDir() {
  const ok = (d) => {
    try {
      accessSync(join(d, 'initdb'), constants.X_OK);
      accessSync(join(d, 'postgres'), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  };
  for (const d of (process.env.PATH ?? '').split(delimiter)) if (d !== '' && ok(d)) return d;
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  for (const v of readdirSync(base).sort((a, b) => Number(b) - Number(a)))
    if (ok(join(base, v, 'bin'))) return join(base, v, 'bin');
  return null;
}

async function cluster() {
  const bin = binDir();
  if (bin === null)
    throw new Error(
      'pg bench: no PostgreSQL binaries (apt-get install -y postgresql) and no HANDOFF_BENCH_PG_URL',
    );
  const dir = mkdtempSync(join(tmpdir(), 'handoff-pg-bench-'));
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  let as = {};
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim());
    chownSync(dir, uid, gid);
    chownSync(data, uid, gid);
    as = { uid, gid };
  }
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-instructions'],
    {
      ...as,
      env,
      cwd: dir,
      stdio: 'ignore',
    },
  );
  const server = spawn(join(bin, 'postgres'), ['-D', data, '-k', dir, '-c', 'listen_addresses='], {
    ...as,
    env,
    cwd: dir,
    stdio: 'ignore',
  });
  const url = `postgresql://postgres@localhost/postgres?host=${encodeURIComponent(dir)}`;
  for (let i = 0; ; i++) {
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.end();
      break;
    } catch (e) {
      await c.end().catch(() => {});
      if (i > 600) throw e;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
  return {
    url,
    stop: async () => {
      const exited = new Promise((r) => server.once('exit', r));
      server.kill('SIGINT');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** `url` with a session setting for every connection (libpq `options`). */
function withOption(url, setting) {
  const u = new URL(url);
  u.searchParams.set('options', `-c ${setting}`);
  return u.toString();
}

/**
 * Interleaved loops on one server: raw single-statement INSERTs, store.append, and
 * store.appendBatch of BATCH events; `durable` false runs both sides with synchronous_commit=off
 * (no WAL flush wait: what is left is round trips and server CPU).
 */
async function measure(url, schema, dispatch, note, durable) {
  const session = durable ? url : withOption(url, 'synchronous_commit=off');
  const store = createPgStore({ connectionString: session, schema, maxConnections: 1 });
  const raw = new pg.Client({ connectionString: session });
  await raw.connect();
  try {
    const id = (await store.createRun({ dispatch, now: '2026-11-30T10:00:00Z' })).run_id;
    await store.append(id, 'note', note(0));
    const load = await store.load(id);
    const line = JSON.stringify(load.value.events[0]);
    await raw.query(
      `CREATE TABLE "${schema}".raw (run_id text, seq integer, line text, PRIMARY KEY (run_id, seq))`,
    );
    // interleaved chunks so that the three loops see the same server state over time
    const CHUNK = 100;
    const BATCH_CHUNK = CHUNK / BATCH;
    let storeSec = 0;
    let batchSec = 0;
    let rawSec = 0;
    let rawSeq = 1;
    let i0 = 1;
    const trace = [{ machine: 'bench', from: 'a', event: 'GO', to: 'b' }];
    for (let done = 0; done < APPENDS; done += CHUNK) {
      rawSec += await timeOnce(async () => {
        for (let i = 0; i < CHUNK; i++)
          await raw.query(`INSERT INTO "${schema}".raw (run_id, seq, line) VALUES ($1, $2, $3)`, [
            id,
            rawSeq++,
            line,
          ]);
      });
      storeSec += await timeOnce(async () => {
        for (let i = 0; i < CHUNK; i++) {
          const r = await store.append(id, 'note', note(i0++));
          if (r.outcome !== 'committed') throw new Error(`append: ${JSON.stringify(r)}`);
        }
      });
      if (done < BATCHES * BATCH)
        batchSec += await timeOnce(async () => {
          for (let b = 0; b < BATCH_CHUNK; b++) {
            const entries = [];
            for (let j = 0; j < BATCH; j++) entries.push({ kind: 'note', payload: note(i0++) });
            const r = await store.appendBatch(id, entries, { trace });
            if (r.outcome !== 'committed') throw new Error(`appendBatch: ${JSON.stringify(r)}`);
          }
        });
    }
    const storeRate = APPENDS / storeSec;
    const batchRate = BATCHES / batchSec;
    const rawRate = APPENDS / rawSec;
    const total = 1 + APPENDS + BATCHES * BATCH;
    const loadSec = await timeOnce(async () => {
      const l = await store.load(id);
      if (l.value.events.length !== total) throw new Error('load: wrong event count');
    });
    const tag = durable ? '' : ' [synchronous_commit=off, both sides]';
    return [
      {
        name: `pg store append (one round trip: one prepared single-row INSERT … WHERE pg_try_advisory_xact_lock, its own commit)${tag}`,
        value: Math.round(storeRate),
        unit: 'appends/s',
        ratio: Number((storeRate / rawRate).toFixed(3)),
        ...(durable ? { target: 0.8 } : {}),
      },
      {
        name: `pg store appendBatch of ${BATCH} events with a trace (one round trip: one prepared WITH … INSERT statement, one commit)${tag}`,
        value: Math.round(batchRate),
        unit: 'batches/s',
        ratio: Number((batchRate / rawRate).toFixed(3)),
      },
      {
        name: `pg store appendBatch of ${BATCH}: events/s vs the raw loop's inserts/s${tag}`,
        value: Math.round(batchRate * BATCH),
        unit: 'events/s',
        ratio: Number(((batchRate * BATCH) / rawRate).toFixed(3)),
      },
      {
        name: `pg raw single-INSERT loop (baseline, same server)${tag}`,
        value: Math.round(rawRate),
        unit: 'inserts/s',
      },
      ...(durable
        ? [
            {
              name: `pg store load of ${total} events (validated)`,
              value: Math.round(total / loadSec),
              unit: 'events/s',
            },
          ]
        : []),
    ];
  } finally {
    await raw.end();
    await store.close();
  }
}

export default async () => {
  const given = process.env.HANDOFF_BENCH_PG_URL || process.env.HANDOFF_TEST_PG_URL;
  const server = given ? { url: given, stop: async () => {} } : await cluster();
  const dispatch = JSON.parse(
    (await import('node:fs')).readFileSync(
      new URL('../examples/records/canonical-dispatch.json', import.meta.url),
      'utf8',
    ),
  );
  const TEXT = 'exact Continuous.comp hg hf: unknown identifier hg — tried after lean_leansearch';
  const note = (i) => ({ kind: 'failed-avenue', text: `${TEXT} #${i}`, lean: null });
  try {
    // default durability (every commit waits for its WAL flush: the target's figure), then the
    // same loops without the flush wait (the cost of round trips and server work alone)
    const durable = await measure(server.url, `bench_${process.pid}`, dispatch, note, true);
    const fast = await measure(server.url, `bench_${process.pid}_nosync`, dispatch, note, false);
    return [...durable, ...fast];
  } finally {
    await server.stop();
  }
};
