// Child process for the state-log SIGKILL trials (runs against the built dist/).
// argv: <dir>
//   Starts a persisted run whose controller keeps its state in <dir>/state.json (and its log) over
//   an fs run store in <dir>/store, reports "started", then records notes forever; after each
//   note the controller acknowledged it reports "ack <seq>" with write(2) before the next begins.
import { join } from 'node:path';
import { PersistController } from '../../../dist/src/persist/index.js';
import { createFsStore } from '../../../dist/src/store/index.js';
import { say } from '../../helpers/child-say.mjs';

const [dir] = process.argv.slice(2);
const store = createFsStore({ root: join(dir, 'store'), env: {} });
const c = new PersistController({
  statePath: join(dir, 'state.json'),
  openStore: () => store,
  storageRoot: store.root,
  projectRoot: dir,
});
const s = await c.start({
  dispatch: JSON.parse(process.env.CHILD_DISPATCH ?? 'null'),
  trackerSessionId: null,
});
if (s.action !== 'continue') throw new Error(JSON.stringify(s));
say('started');
for (let i = 0; ; i++) {
  const r = await c.note({ kind: 'failed-avenue', text: `avenue ${i}`, lean: null });
  if (r.action !== 'continue') throw new Error(JSON.stringify(r));
  say(`ack ${r.seq}`);
}
