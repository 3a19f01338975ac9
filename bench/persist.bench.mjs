// Persistence controller benchmarks (built dist/): the cost of one mutation (a note through the
// controller onto the fs run store, synced) early in a run and late in it, for the two homes of
// the controller's state:
// - memory (an in-process run's default): target cost@10,000 events ≤ 1.2 × cost@100 events
//   (the "per-call cost flat in run length"), printed as late/early (lower is better) and
//   as its inverse ratio against the target;
// - the state file (the `handoff persist` verbs, whose calls are separate processes): each save
//   appends a delta to `<state>.log` (one fsync) and the file is rewritten whole only when that
//   log outgrows it, so the same target holds at 100 and 10,000 events (the controller here is one
//   process, so its loads find the files unchanged and skip the re-read a new process pays once).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStateStore, PersistController } from '../dist/src/persist/index.js';
import { createFsStore } from '../dist/src/store/index.js';

const dispatch = JSON.parse(
  (await import('node:fs')).readFileSync(
    new URL('../examples/records/canonical-dispatch.json', import.meta.url),
    'utf8',
  ),
);
const note = (i) => ({ kind: 'failed-avenue', text: `exact foo: type mismatch #${i}`, lean: null });

/** Mean µs per note mutation over `sample` notes, after the run holds `at` events. */
async function costAt(mode, at, sample) {
  const dir = mkdtempSync(join(tmpdir(), 'bench-persist-'));
  try {
    const store = createFsStore({ root: join(dir, 'store'), env: {} });
    const c = new PersistController({
      ...(mode === 'memory' ? { stateStore: memoryStateStore() } : { statePath: join(dir, 'state.json') }),
      openStore: () => store,
      storageRoot: store.root,
      projectRoot: dir,
    });
    const s = await c.start({ dispatch, trackerSessionId: null, now: '2026-11-30T10:00:00Z' });
    if (s.action !== 'continue') throw new Error(`start: ${JSON.stringify(s)}`);
    for (let i = 0; i < at; i++) {
      const r = await c.note(note(i));
      if (r.action !== 'continue') throw new Error(`note ${i}: ${JSON.stringify(r)}`);
    }
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < sample; i++) await c.note(note(at + i));
    return Number(process.hrtime.bigint() - t0) / 1e3 / sample;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export default async function persistBench() {
  const rows = [];
  const early = await costAt('memory', 100, 300);
  const late = await costAt('memory', 10_000, 300);
  rows.push({ name: 'memory state: µs per mutation at event 100', value: early, unit: 'µs' });
  rows.push({ name: 'memory state: µs per mutation at event 10,000', value: late, unit: 'µs' });
  rows.push({
    name: 'memory state: cost@100 / cost@10,000 (flat = 1; target cost@10k ≤ 1.2 × cost@100)',
    value: early / late,
    unit: 'x',
    ratio: early / late,
    target: Number((1 / 1.2).toFixed(3)),
  });
  const fileEarly = await costAt('file', 100, 300);
  const fileLate = await costAt('file', 10_000, 300);
  rows.push({ name: 'state file: µs per mutation at event 100', value: fileEarly, unit: 'µs' });
  rows.push({ name: 'state file: µs per mutation at event 10,000', value: fileLate, unit: 'µs' });
  rows.push({
    name: 'state file: cost@100 / cost@10,000 (flat = 1; target cost@10k ≤ 1.2 × cost@100)',
    value: fileEarly / fileLate,
    unit: 'x',
    ratio: fileEarly / fileLate,
    target: Number((1 / 1.2).toFixed(3)),
  });
  rows.push({ name: 'memory vs state file at event 100 (speed-up)', value: fileEarly / early, unit: 'x' });
  return rows;
}
