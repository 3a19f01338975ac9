// Child process of the PostgreSQL store tests (its own process, its own connection). Uses dist/.
// Modes:
//   hold <url> <schema> <runId> <syncDir>       append one note, pausing before COMMIT (run lock
//                                               held) until <syncDir>/go exists; writes <syncDir>/holding
//   once <url> <schema> <runId>                 append one note
//   loop <url> <schema> <runId> <syncDir> <tag> <count>  after <syncDir>/start, append <count> notes
//   batchloop <url> <schema> <runId> <syncDir> <tag> <count>  after <syncDir>/start, append <count>
//                                               batches of 5 notes `<tag>-<i>-<j>` (trace: one step per batch)
// Every result is printed as one JSON line.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createPgStore } from '../../dist/src/pg/index.js';

const [mode, url, schema, runId, syncDir, tag = 'x', countArg = '1'] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const note = (text) => ({ kind: 'candidate', text, lean: null });
const store = createPgStore({
  connectionString: url,
  schema,
  maxConnections: 1,
  beforeCommit:
    mode === 'hold'
      ? async () => {
          writeFileSync(join(syncDir, 'holding'), '');
          while (!existsSync(join(syncDir, 'go'))) await sleep(5);
        }
      : undefined,
});
const out = (r) => process.stdout.write(`${JSON.stringify(r)}\n`);
if (mode === 'hold' || mode === 'once') out(await store.append(runId, 'note', note(`${mode}-${tag}`)));
if (mode === 'loop') {
  while (!existsSync(join(syncDir, 'start'))) await sleep(2);
  for (let i = 0; i < Number(countArg); i++) out(await store.append(runId, 'note', note(`${tag}-${i}`)));
}
if (mode === 'batchloop') {
  while (!existsSync(join(syncDir, 'start'))) await sleep(2);
  for (let i = 0; i < Number(countArg); i++) {
    const entries = [0, 1, 2, 3, 4].map((j) => ({ kind: 'note', payload: note(`${tag}-${i}-${j}`) }));
    const trace = [{ machine: 'child', from: `${tag}${i}`, event: 'BATCH', to: `${tag}${i + 1}` }];
    out(await store.appendBatch(runId, entries, { trace }));
  }
}
await store.close();
