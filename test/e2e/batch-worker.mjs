// A wrapper worker for the batch e2e test: records when it starts and ends (with the dispatch's
// target) in the file named by BATCH_LOG, holds the dispatch for BATCH_HOLD_MS, then hands it to
// the real TypeScript example worker (argv[2]) and relays its output and exit code.
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const input = Buffer.concat(chunks);
let target = '?';
try {
  target = JSON.parse(input.toString('utf8')).target ?? '?';
} catch {
  // not JSON: the real worker reports the protocol error
}
const log = process.env.BATCH_LOG;
const mark = (what) => {
  if (log) appendFileSync(log, `${JSON.stringify({ what, target, at: Date.now() })}\n`);
};
mark('start');
await new Promise((r) => setTimeout(r, Number(process.env.BATCH_HOLD_MS ?? '0')));
const child = spawn(process.execPath, [process.argv[2]], { stdio: ['pipe', 'inherit', 'inherit'] });
child.stdin.end(input);
child.on('exit', (code) => {
  mark('end');
  process.exit(code ?? 1);
});
