/**
 * A throwaway PostgreSQL cluster for tests: finds the server binaries (`initdb`/`postgres` on
 * PATH, else the newest /usr/lib/postgresql/<ver>/bin), runs `initdb` into a fresh temp dir (as
 * the `postgres` OS user when running as root — the server refuses root), and starts `postgres`
 * listening only on a unix socket in that dir (`listen_addresses=''`, no TCP). Argument arrays
 * only. No binaries → a clear error (CI installs them; the tests must fail, not skip).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
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
import { tmpdir, userInfo } from 'node:os';
import { delimiter, join } from 'node:path';
import pg from 'pg';

/** A running cluster. */
export interface PgCluster {
  /** The directory holding the server's unix socket. */
  readonly socketDir: string;
  /** Connection string of the `postgres` database as the superuser. */
  readonly adminUrl: string;
  /** Stops the server (fast shutdown) and removes the temp dir. */
  stop(): Promise<void>;
}

/** Connection string to `database` through the unix socket in `socketDir`. */
export function socketUrl(socketDir: string, database: string, user = 'postgres'): string {
  return `postgresql://${user}@localhost/${database}?host=${encodeURIComponent(socketDir)}`;
}

function executable(p: string): boolean {
  try {
    accessSync(p, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Where to look for the server binaries (the defaults: $PATH, then /usr/lib/postgresql). */
export interface PgBinSearch {
  readonly path?: string;
  readonly base?: string;
}

/** The directory holding `initdb` and `postgres`, or null. */
export function findPgBinDir(search: PgBinSearch = {}): string | null {
  for (const d of (search.path ?? process.env.PATH ?? '').split(delimiter)) {
    if (d !== '' && executable(join(d, 'initdb')) && executable(join(d, 'postgres'))) return d;
  }
  const base = search.base ?? '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => /^[0-9]+(\.[0-9]+)?$/.test(v))
    .sort((a, b) => Number(b) - Number(a));
  for (const v of versions) {
    const d = join(base, v, 'bin');
    if (executable(join(d, 'initdb')) && executable(join(d, 'postgres'))) return d;
  }
  return null;
}

function unprivileged(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  let out: string;
  try {
    out = execFileSync('id', ['-u', 'postgres'], { encoding: 'utf8' }).trim();
  } catch {
    throw new Error(
      'PostgreSQL tests run as root but there is no `postgres` OS user to run the server as (the server refuses root)',
    );
  }
  const gid = execFileSync('id', ['-g', 'postgres'], { encoding: 'utf8' }).trim();
  return { uid: Number(out), gid: Number(gid) };
}

async function waitReady(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited (${server.exitCode}): ${log()}`);
    const c = new pg.Client({ connectionString: url });
    c.on('error', () => {});
    try {
      await c.connect();
      await c.end();
      return;
    } catch (e) {
      await c.end().catch(() => {});
      if (Date.now() > deadline)
        throw new Error(`postgres did not accept connections: ${String(e)}; ${log()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

/**
 * Starts a throwaway cluster.
 *
 * @example
 * ```ts
 * const cluster = await startPgCluster(); // … cluster.adminUrl …; await cluster.stop();
 * ```
 */
export async function startPgCluster(search: PgBinSearch = {}): Promise<PgCluster> {
  const bin = findPgBinDir(search);
  if (bin === null)
    throw new Error(
      'PostgreSQL server binaries not found (initdb/postgres on PATH or under /usr/lib/postgresql/<ver>/bin). ' +
        'Install them (Debian: apt-get install -y postgresql) or set HANDOFF_TEST_PG_URL to a server the tests may use.',
    );
  const ids = unprivileged();
  const dir = mkdtempSync(join(tmpdir(), 'handoff-pg-'));
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  if (ids !== null) {
    chownSync(dir, ids.uid, ids.gid);
    chownSync(data, ids.uid, ids.gid);
  }
  const as = ids === null ? {} : { uid: ids.uid, gid: ids.gid };
  const env = { ...process.env, LC_ALL: 'C', LANG: 'C' };
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync', '--no-instructions'],
    { ...as, env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  const server = spawn(
    join(bin, 'postgres'),
    [
      '-D',
      data,
      '-k',
      dir,
      '-c',
      'listen_addresses=',
      '-c',
      'fsync=off',
      '-c',
      'synchronous_commit=off',
      '-c',
      'full_page_writes=off',
      '-c',
      'max_connections=100',
      '-c',
      'shared_buffers=16MB',
    ],
    { ...as, env, cwd: dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  server.stderr?.setEncoding('utf8').on('data', (d: string) => {
    log = (log + d).slice(-4000);
  });
  const adminUrl = socketUrl(dir, 'postgres');
  const exited = new Promise<void>((r) => server.once('exit', () => r()));
  try {
    await waitReady(adminUrl, server, () => log);
  } catch (e) {
    server.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    socketDir: dir,
    adminUrl,
    async stop() {
      if (server.exitCode === null) {
        server.kill('SIGINT'); // fast shutdown
        const t = setTimeout(() => server.kill('SIGKILL'), 10_000);
        await exited;
        clearTimeout(t);
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The user running the tests (for messages). */
export const testUser = (): string => userInfo().username;
