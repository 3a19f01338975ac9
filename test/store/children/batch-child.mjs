// Child process for the group-commit SIGKILL trials (runs against the built dist/).
// argv: <root> <label>
//   Reports "start", creates a run (its id's suffix is the first 8 hex of sha256(<label>)),
//   reports "created <id>", then appends batches forever: batch i (from 0) holds 2 + (i % 4)
//   notes whose texts are "<label>-<seq>", odd batches carry a trace; after each committed
//   batch it reports "ack <first> <last>" with write(2) before the next batch begins.
import { createHash } from 'node:crypto';
import { createFsStore } from '../../../dist/src/store/index.js';
import { say } from '../../helpers/child-say.mjs';

const [root, label] = process.argv.slice(2);
const store = createFsStore({
  root,
  env: {},
  runIdSuffix: () => createHash('sha256').update(label).digest('hex').slice(0, 8),
});
const dispatch = JSON.parse(process.env.CHILD_DISPATCH ?? 'null');
const trace = [{ machine: 'cycle', from: 'a', event: 'GO', to: 'b' }];

process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(3), 60_000).unref();

say('start');
const c = await store.createRun({ dispatch, trackerSessionId: label, now: '2026-11-30T10:00:00Z' });
if (c.outcome !== 'committed') {
  say(`error ${JSON.stringify(c)}`);
  process.exit(1);
}
say(`created ${c.run_id}`);
let last = 0;
for (let i = 0; ; i++) {
  const size = 2 + (i % 4);
  const entries = Array.from({ length: size }, (_, j) => ({
    kind: 'note',
    payload: { kind: 'candidate', text: `${label}-${last + 1 + j}`, lean: null },
  }));
  const r = await store.appendBatch(c.run_id, entries, i % 2 === 1 ? { trace } : {});
  if (r.outcome !== 'committed' || r.first_seq !== last + 1 || r.seq !== last + size) {
    say(`error ${JSON.stringify(r)}`);
    process.exit(1);
  }
  last = r.seq;
  say(`ack ${r.first_seq} ${r.seq}`);
  await new Promise((resolve) => setImmediate(resolve));
}
