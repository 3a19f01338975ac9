// run-store/v1 benchmarks (fs backend, built dist/):
// - durable append throughput vs a raw append+fsync loop writing lines of the same size, in the
//   same directory, in the same run (target ratio ≥ 0.8);
// - load throughput of 50,000- and 100,000-event journals (target ≥ 200k events/s; the two
//   sizes show load time is linear in journal length).
import {
  closeSync,
  fsyncSync,
  mkdtempSync,
  openSync,
  rmSync,
  unlinkSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { canonicalJson } from '../dist/src/canonical/index.js';
import { createFsStore } from '../dist/src/store/index.js';
import { timeOnce } from './lib.mjs';

const dispatch = JSON.parse(
  (await import('node:fs')).readFileSync(
    new URL('../examples/records/canonical-dispatch.json', import.meta.url),
    'utf8',
  ),
);
const TEXT =
  'exact Continuous.comp hg hf: unknown identifier hg — tried after lean_leansearch "continuous composition"';
const note = (i) => ({ kind: 'failed-avenue', text: `${TEXT} #${i}`, lean: null });

async function appendBench(dir, appends) {
  const store = createFsStore({ root: join(dir, 'store'), env: {} });
  const c = await store.createRun({ dispatch, now: '2026-11-30T10:00:00Z' });
  const id = c.run_id;
  // line size of a stored event, for the raw baseline
  await store.append(id, 'note', note(0));
  const lineBytes = Buffer.byteLength(
    `${canonicalJson({ kind: 'note', payload: note(100000), schema: 'run-store-event/v2', seq: 100000, ts: '2026-11-30T10:00:00Z' })}\n`,
  );
  const rawFile = join(dir, 'raw.jsonl');
  const line = Buffer.alloc(lineBytes, 0x61);
  line[lineBytes - 1] = 0x0a;
  const raw = () => {
    const fd = openSync(rawFile, 'a');
    for (let i = 0; i < appends; i++) {
      writeSync(fd, line);
      fsyncSync(fd);
    }
    closeSync(fd);
  };
  const durable = async () => {
    for (let i = 1; i <= appends; i++) {
      const r = await store.append(id, 'note', note(i));
      if (r.outcome !== 'committed') throw new Error(JSON.stringify(r));
    }
  };
  const rawLocked = () => {
    // the same loop plus the per-mutation O_EXCL lock file the store is specified to take
    const fd = openSync(rawFile, 'a');
    const lock = join(dir, '.lock');
    for (let i = 0; i < appends; i++) {
      const l = openSync(lock, 'wx');
      writeSync(l, '{"pid":1}\n');
      closeSync(l);
      writeSync(fd, line);
      fsyncSync(fd);
      unlinkSync(lock);
    }
    closeSync(fd);
  };
  // warm up (JIT, caches), then many short interleaved rounds: the disk is shared and its fsync
  // latency drifts, so each round pairs the loops under the same conditions and the ratio is the
  // median of the per-round ratios
  raw();
  rawLocked();
  await durable();
  const rounds = 15;
  const t = { raw: [], locked: [], store: [] };
  for (let round = 0; round < rounds; round++) {
    t.raw.push(await timeOnce(raw));
    t.store.push(await timeOnce(durable));
    t.locked.push(await timeOnce(rawLocked));
  }
  const sum = (xs) => xs.reduce((a, b) => a + b, 0);
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return {
    raw: (rounds * appends) / sum(t.raw),
    locked: (rounds * appends) / sum(t.locked),
    store: (rounds * appends) / sum(t.store),
    ratio: median(t.raw.map((r, i) => r / t.store[i])),
    ratioLocked: median(t.locked.map((r, i) => r / t.store[i])),
    lineBytes,
  };
}

async function loadBench(dir, n) {
  const root = join(dir, `load-${n}`);
  const store = createFsStore({ root, env: {} });
  const c = await store.createRun({ dispatch, now: '2026-11-30T10:00:00Z', trackerSessionId: String(n) });
  const id = c.run_id;
  const parts = [];
  for (let seq = 1; seq <= n; seq++) {
    parts.push(
      canonicalJson({
        kind: 'note',
        payload: note(seq),
        schema: 'run-store-event/v2',
        seq,
        ts: '2026-11-30T10:00:00Z',
      }),
    );
  }
  writeFileSync(join(root, 'runs', id, 'events.jsonl'), `${parts.join('\n')}\n`);
  let loaded = 0;
  const once = async () => {
    const r = await createFsStore({ root, env: {} }).load(id);
    if (!r.ok || r.value.damaged !== null) throw new Error('load failed');
    loaded = r.value.events.length;
  };
  await once(); // warm-up
  const t = Math.min(await timeOnce(once), await timeOnce(once));
  if (loaded !== n) throw new Error(`loaded ${loaded} of ${n}`);
  return n / t;
}

export default async () => {
  const dir = mkdtempSync(join(tmpdir(), 'store-bench-'));
  try {
    const a = await appendBench(dir, 40);
    const l50 = await loadBench(dir, 50_000);
    const l100 = await loadBench(dir, 100_000);
    return [
      { name: `raw append+fsync (${a.lineBytes}-byte lines)`, value: a.raw, unit: 'appends/s' },
      {
        name: 'durable store append vs raw append+fsync (median of paired rounds)',
        value: a.store,
        unit: 'appends/s',
        ratio: a.ratio,
        target: 0.8,
      },
      { name: 'raw O_EXCL lock + append+fsync + unlock', value: a.locked, unit: 'appends/s' },
      {
        name: 'durable store append vs raw lock+append+fsync+unlock',
        value: a.store,
        unit: 'appends/s',
        ratio: a.ratioLocked,
        target: 0.8,
      },
      { name: 'load 50,000-event journal', value: l50, unit: 'events/s', ratio: l50 / 200_000, target: 1 },
      { name: 'load 100,000-event journal', value: l100, unit: 'events/s', ratio: l100 / 200_000, target: 1 },
      {
        name: 'load linearity (100k rate / 50k rate)',
        value: l100 / l50,
        unit: 'x',
        ratio: l100 / l50,
        target: 0.8,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
};
