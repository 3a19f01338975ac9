// Child process for the store reliability tests (runs against the built dist/).
// argv: <root> <mode> <label> [runId] [count]
//   mode "crash": report "start", create a run (report "created <id>"), then append notes forever,
//                 reporting "ack <seq>" after each committed append (the parent SIGKILLs it). The
//                 run id's suffix is the first 8 hex of sha256(<label>), so the parent knows the
//                 id of a run killed before "created".
//   mode "race":  wait for "go" on stdin, then append <count> notes to <runId>, reporting
//                 "ok <seq>" or "busy" per attempt, then "done".
import { createHash } from 'node:crypto';
import { createFsStore } from '../../../dist/src/store/index.js';
import { say } from '../../helpers/child-say.mjs';

const [root, mode, label, runIdArg, countArg] = process.argv.slice(2);
const store = createFsStore({
  root,
  env: {},
  runIdSuffix: () =>
    createHash('sha256')
      .update(label ?? '')
      .digest('hex')
      .slice(0, 8),
});
const dispatch = JSON.parse(process.env.CHILD_DISPATCH ?? 'null');
// Every line goes straight to the kernel with write(2) before the child goes on: a line the child
// has said is in the pipe and survives a SIGKILL. (process.stdout on a pipe queues writes in user
// space, and a killed child would lose "ack" lines it had already acknowledged.)
const note = (i) => ({ kind: 'candidate', text: `${label}-${i}`, lean: null });

// never outlive the test: exit when the parent goes away (stdin closes) or after a hard limit
process.stdin.on('end', () => process.exit(0));
process.stdin.resume();
setTimeout(() => process.exit(3), 60_000).unref();

if (mode === 'crash') {
  say('start');
  const c = await store.createRun({ dispatch, trackerSessionId: label, now: '2026-11-30T10:00:00Z' });
  if (c.outcome !== 'committed') {
    say(`error ${JSON.stringify(c)}`);
    process.exit(1);
  }
  say(`created ${c.run_id}`);
  // no count limit: a parent starved by a loaded machine may take long to kill (the 60 s cap ends it)
  for (let i = 1; ; i++) {
    const r = await store.append(c.run_id, 'note', note(i));
    if (r.outcome !== 'committed') {
      say(`error ${JSON.stringify(r)}`);
      process.exit(1);
    }
    say(`ack ${r.seq}`); // in the pipe before the next append starts
    await new Promise((resolve) => setImmediate(resolve)); // let 'end'/timers run
  }
} else if (mode === 'race') {
  process.stdin.once('data', async () => {
    const count = Number(countArg);
    for (let i = 1; i <= count; i++) {
      const r = await store.append(runIdArg, 'note', note(i));
      if (r.outcome === 'committed') say(`ok ${r.seq} ${i}`);
      else if (r.code === 'busy') say('busy');
      else say(`error ${JSON.stringify(r)}`);
    }
    say('done');
    process.exit(0);
  });
  say('ready');
}
