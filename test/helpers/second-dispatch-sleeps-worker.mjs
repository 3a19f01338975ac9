// A worker for tests that must act while a run's second worker is running (handoff-worker/v1).
// argv: <state-dir> <worker.js>
//   Each dispatch this script receives is numbered by creating <state-dir>/dispatch-<n> with
//   O_EXCL (the first free n). The first dispatch is handed to `node <worker.js>` (its handoff is
//   passed through, so the run's first journal write happens at once); every later one creates
//   <state-dir>/sleeping-<n> and then sleeps without answering. A sleeper exits by itself once its
//   parent is gone (orphaned: the handoff process died) or after 60 s, so a test leaves no process.
import { spawnSync } from 'node:child_process';
import { closeSync, openSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const [dir, worker] = process.argv.slice(2);

function claim() {
  for (let n = 1; ; n++) {
    try {
      closeSync(openSync(join(dir, `dispatch-${n}`), 'wx'));
      return n;
    } catch (e) {
      if (e.code !== 'EEXIST') throw e;
    }
  }
}

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const n = claim();
if (n === 1) {
  const r = spawnSync(process.execPath, [worker], {
    input: Buffer.concat(chunks),
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  process.exit(r.status ?? 1);
} else {
  const parent = process.ppid;
  writeFileSync(join(dir, `sleeping-${n}`), `${process.pid}\n`);
  setInterval(() => {
    if (process.ppid !== parent) process.exit(0);
  }, 100);
  setTimeout(() => process.exit(0), 60_000);
}
