// PostgreSQL run-store benchmark (built dist/): store.append throughput (one transaction per event:
// advisory run lock, catch-up read, INSERT, COMMIT) vs a raw loop of single-statement INSERTs of
// lines of the same size into a plain table, on the same server, in the same run (ratio). Server:
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

export default async () => {
  const given = process.env.HANDOFF_BENCH_PG_URL || process.env.HANDOFF_TEST_PG_URL;
  const server = given ? { url: given, stop: async () => {} } : await cluster();
  const schema = `bench_${process.pid}`;
  const dispatch = JSON.parse(
    (await import('node:fs')).readFileSync(
      new URL('../examples/records/canonical-dispatch.json', import.meta.url),
      'utf8',
    ),
  );
  const TEXT = 'exact Continuous.comp hg hf: unknown identifier hg — tried after lean_leansearch';
  const note = (i) => ({ kind: 'failed-avenue', text: `${TEXT} #${i}`, lean: null });
  const store = createPgStore({ connectionString: server.url, schema, maxConnections: 1 });
  const raw = new pg.Client({ connectionString: server.url });
  await raw.connect();
  try {
    const id = (await store.createRun({ dispatch, now: '2026-11-30T10:00:00Z' })).run_id;
    await store.append(id, 'note', note(0));
    const load = await store.load(id);
    const line = JSON.stringify(load.value.events[0]);
    await raw.query(
      `CREATE TABLE "${schema}".raw (run_id text, seq integer, line text, PRIMARY KEY (run_id, seq))`,
    );
    // interleaved chunks so that both loops see the same server state over time
    const CHUNK = 100;
    let storeSec = 0;
    let rawSec = 0;
    let seq = 1;
    for (let done = 0; done < APPENDS; done += CHUNK) {
      rawSec += await timeOnce(async () => {
        for (let i = 0; i < CHUNK; i++)
          await raw.query(`INSERT INTO "${schema}".raw (run_id, seq, line) VALUES ($1, $2, $3)`, [
            id,
            seq + i,
            line,
          ]);
      });
      storeSec += await timeOnce(async () => {
        for (let i = 0; i < CHUNK; i++) {
          const r = await store.append(id, 'note', note(seq + i));
          if (r.outcome !== 'committed') throw new Error(`append: ${JSON.stringify(r)}`);
        }
      });
      seq += CHUNK;
    }
    const storeRate = APPENDS / storeSec;
    const rawRate = APPENDS / rawSec;
    const loadSec = await timeOnce(async () => {
      const l = await store.load(id);
      if (l.value.events.length !== APPENDS + 1) throw new Error('load: wrong event count');
    });
    return [
      {
        name: 'pg store append (txn: lock + catch-up read, insert + commit: 2 round trips)',
        value: Math.round(storeRate),
        unit: 'appends/s',
        ratio: Number((storeRate / rawRate).toFixed(3)),
      },
      {
        name: 'pg raw single-INSERT loop (baseline, same server)',
        value: Math.round(rawRate),
        unit: 'inserts/s',
      },
      {
        name: `pg store load of ${APPENDS + 1} events (validated)`,
        value: Math.round((APPENDS + 1) / loadSec),
        unit: 'events/s',
      },
    ];
  } finally {
    await raw.end();
    await store.close();
    await server.stop();
  }
};
