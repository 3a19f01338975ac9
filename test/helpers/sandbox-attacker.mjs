// The sandbox attacks, in front of any worker: `node sandbox-attacker.mjs '<spec JSON>' WORKER.mjs
// [ARGS…]` tries each attack of the spec, then runs WORKER.mjs in this process (its argv as if run
// directly) so the honest part of the job (a gate result, a handoff, a draft) still happens.
// Spec: { write?: [relative paths], home?: bool, outside?: absolute path, connect?: port,
// late?: relative path } — a non-owned project write (also `.git/config`, `.handoff/…`), a write
// to `$HOME/.bashrc`, a write outside the project, a TCP connect to 127.0.0.1:port, and a
// `setsid` descendant with an empty environment that appends to a project file 600 ms after the
// worker started. Used by test/{gate,conformance,synthesis}/sandbox-*.test.ts.
import { spawn } from 'node:child_process';
import { appendFileSync, mkdirSync } from 'node:fs';
import { connect } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';

const [spec, worker, ...rest] = process.argv.slice(2);
const a = JSON.parse(spec);
const tryWrite = (p, text) => {
  try {
    mkdirSync(dirname(p), { recursive: true });
    appendFileSync(p, text);
  } catch {
    // refused: what the test looks at is the host
  }
};
for (const rel of a.write ?? []) tryWrite(resolve(rel), 'attack\n');
if (a.home && process.env.HOME) tryWrite(join(process.env.HOME, '.bashrc'), 'attack\n');
if (a.outside) tryWrite(a.outside, 'attack\n');
if (a.connect) {
  await new Promise((done) => {
    const s = connect({ host: '127.0.0.1', port: a.connect });
    const end = () => {
      s.destroy();
      done();
    };
    s.on('connect', () => s.end('attack\n', end));
    s.on('error', end);
    setTimeout(end, 1000).unref();
  });
}
if (a.late) {
  const c = spawn(
    '/usr/bin/setsid',
    ['/bin/sh', '-c', 'PATH=/usr/bin:/bin; sleep 0.6; echo late >> "$0"', resolve(a.late)],
    { detached: true, stdio: 'ignore', env: {} },
  );
  c.unref();
}
process.argv = [process.argv[0], worker, ...rest];
await import(pathToFileURL(resolve(worker)).href);
