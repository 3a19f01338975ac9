// Child process for the held-lock tests (runs against the built dist/).
// argv: <root> <mode> <label>
//   A store with holdLocks creates a run (reports "created <id>"), then appends notes, reporting
//   "ack <seq>" after each committed append.
//   mode "exit": after 5 appends it reports "done" and lets the process end normally (the held
//                lock is removed on exit).
//   mode "crash": appends forever (the parent SIGKILLs it; the held lock stays behind).
import { createHash } from 'node:crypto';
import { createFsStore } from '../../../dist/src/store/index.js';
import { say } from '../../helpers/child-say.mjs';

const [root, mode, label] = process.argv.slice(2);
const store = createFsStore({
  root,
  env: {},
  holdLocks: true,
  runIdSuffix: () =>
    createHash('sha256')
      .update(label ?? '')
      .digest('hex')
      .slice(0, 8),
});
const dispatch = JSON.parse(process.env.CHILD_DISPATCH ?? 'null');
// straight to the kernel: a line the child has written survives its SIGKILL
setTimeout(() => process.exit(3), 60_000).unref();
const c = await store.createRun({ dispatch, trackerSessionId: label, now: '2026-11-30T10:00:00Z' });
if (c.outcome !== 'committed') {
  say(`error ${JSON.stringify(c)}`);
  process.exit(1);
}
say(`created ${c.run_id}`);
for (let i = 1; mode === 'crash' || i <= 5; i++) {
  const r = await store.append(c.run_id, 'note', { kind: 'candidate', text: `${label}-${i}`, lean: null });
  if (r.outcome !== 'committed') {
    say(`error ${JSON.stringify(r)}`);
    process.exit(1);
  }
  say(`ack ${r.seq}`);
}
say('done');
