// The headline comparison (issue 15): in ONE process and the same run,
// (1) a durable six-phase cycle of handoff-runtime — the cycle host with in-process ports, the
//     persistence recorder journaling every boundary to the fs run store (fsync'd appends; the
//     controller's state in memory and the run's lock held for the run, the recorder's defaults
//     for a store it opens; the cycle machine's transition trace collected and written with each
//     journal write, as `handoff run --persist` does) — in cycles/s;
// (2) a LangGraph.js five-node cycle (@langchain/langgraph StateGraph: plan → work → verify →
//     review → replan → plan …) compiled with SqliteSaver on a file database in a temp dir, in
//     cycles/s — with its defaults (durability "async", SQLite WAL with better-sqlite3's
//     synchronous=NORMAL: no fsync per checkpoint) and with checkpoints saved before each next
//     step and synchronous=FULL (one WAL fsync per checkpoint: the same durability as ours);
// (3) fsync/fdatasync calls per durable cycle of ours, counted by an FsLayer handed to the store
//     (createFsStore({ fs })) — by the kind of file fsync'd — and, when strace is on the PATH,
//     cross-checked by running the same cycle loop in a child process under `strace -f -c`: the
//     difference is what writers outside the FsLayer fsync.
// Usage: node bench/run.mjs durable-cycle   (child mode: node bench/durable-cycle.bench.mjs --child N)
import { spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Annotation, END, START, StateGraph } from '@langchain/langgraph';
import { SqliteSaver } from '@langchain/langgraph-checkpoint-sqlite';
import { handoffFor } from '../dist/src/contract/index.js';
import { nodeFsLayer } from '../dist/src/durable/index.js';
import { builtinPlanner, builtinReviewer } from '../dist/src/runtime/builtin-ports.js';
import { resolveCycleOptions } from '../dist/src/runtime/cycle-options.js';
import { buildDispatch } from '../dist/src/runtime/dispatch-builder.js';
import { createPersistRecorder } from '../dist/src/runtime/persist-recorder.js';
import { runCycle } from '../dist/src/runtime/run-cycle.js';
import { createFsStore, createMemoryStore } from '../dist/src/store/index.js';

const SELF = fileURLToPath(import.meta.url);

/** An FsLayer over node:fs that counts fsync calls by the kind of file (or directory) synced. */
function countingFs() {
  const real = nodeFsLayer();
  const fdPath = new Map();
  const counts = new Map();
  const kindOf = (p) => {
    if (p === undefined) return 'unknown';
    const b = basename(p);
    if (b === 'events.jsonl') return 'journal (events.jsonl)';
    if (b.endsWith('.tmp') || b.includes('.tmp'))
      return `temp before publish (${b.replace(/\.[0-9a-f]{8,}\./, '.*.')})`;
    if (b === '.lock') return 'run lock';
    try {
      if (real.lstat(p).isDirectory()) return 'directory';
    } catch {
      // gone already
    }
    return `file ${b}`;
  };
  return {
    counts,
    total: () => [...counts.values()].reduce((a, b) => a + b, 0),
    layer: {
      ...real,
      open(p, flags, mode) {
        const fd = real.open(p, flags, mode);
        fdPath.set(fd, p);
        return fd;
      },
      close(fd) {
        fdPath.delete(fd);
        real.close(fd);
      },
      fsync(fd) {
        const k = kindOf(fdPath.get(fd));
        counts.set(k, (counts.get(k) ?? 0) + 1);
        real.fsync(fd);
      },
    },
  };
}

function ports(n, root, recorder) {
  const file = join(root, 'A.lean');
  const baseline = {
    schema: 'file-baseline/v1',
    files: [{ path: file, realpath: file, exists: true, sha256: 'a'.repeat(64), size: 1 }],
  };
  let open = n;
  let dispatches = 0;
  const planner = builtinPlanner();
  const reviewer = builtinReviewer();
  const targets = () =>
    Array.from({ length: open }, (_, i) => ({
      id: `A.lean:${n - open + i + 1}`,
      file: 'A.lean',
      line: n - open + i + 1,
      goal: 'x',
    }));
  return {
    diagnostics: {
      diagnose: async (i) => ({
        tier: i.tier,
        targets: i.tier === 'project' ? [] : targets(),
        errors: [],
        ok: true,
      }),
    },
    planner: {
      plan: async (i) => {
        const p = await planner.plan(i);
        if (i.kind === 'replan') await recorder.replan(p, i.cycle);
        return p;
      },
    },
    worker: {
      work: async (input) => {
        const d = buildDispatch(input, [file], baseline, '/tmp');
        await (dispatches++ === 0 ? recorder.start(d) : recorder.dispatch(d));
        open--;
        const handoff = handoffFor(d, {
          files_owned: [file],
          files_changed: [file],
          file_baseline: baseline,
        });
        await recorder.handoff(handoff);
        return {
          kind: 'handoff',
          dispatch: d,
          handoff,
          accepted: [file],
          baseline,
          progressLines: 0,
          importsChanged: false,
        };
      },
    },
    reviewer: {
      review: async (i) => {
        const r = await reviewer.review(i);
        await recorder.review(r, i);
        return r;
      },
    },
    checkpointer: { checkpoint: async () => ({ committed: true, commit: 'x', message: 'checkpoint: x' }) },
    human: { ask: async () => ({ answer: 'stop', evidence: [] }) },
    baseline,
    file,
  };
}

/** One durable run of `n` cycles; returns cycles/s, the cycles and the fsync counts of the layer. */
async function durableCycles(n, state = 'memory', backend = 'fs') {
  const root = await mkdtemp(join(tmpdir(), 'durable-cycle-'));
  const counter = countingFs();
  let recorder = null;
  let store = null;
  try {
    store =
      backend === 'fs'
        ? // held run locks: what the recorder does with a store it opens itself (handoff run --persist)
          createFsStore({
            root: join(root, '.handoff'),
            env: {},
            fs: counter.layer,
            gitTracked: () => [],
            holdLocks: true,
          })
        : createMemoryStore();
    recorder = await createPersistRecorder({ projectRoot: root, store, state });
    const p = ports(n, root, recorder);
    const r = resolveCycleOptions({
      target: '.',
      scope: 'project',
      mode: 'autoprove',
      maxCycles: n + 5,
      maxStuck: 3,
    });
    const t0 = process.hrtime.bigint();
    const out = await runCycle({
      runId: 'bench',
      options: r.options,
      ports: p,
      filesOwned: [p.file],
      baseline: p.baseline,
      // the cycle machine's transitions, recorded with each journal write as handoff run --persist does
      ...(recorder.inspect === undefined ? {} : { inspect: recorder.inspect }),
    });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (out.handoff.status !== 'solved') throw new Error(`bench run ended ${out.handoff.status}`);
    const cycles = out.context.tracker.cycles;
    const fsyncs = counter.total();
    const byKind = new Map(counter.counts);
    await recorder.finish(out.handoff);
    return { perSec: cycles / s, cycles, fsyncs, byKind, events: recorder.cites.length };
  } finally {
    await recorder?.dispose();
    store?.close?.();
    await rm(root, { recursive: true, force: true });
  }
}

const Rec = () => Annotation({ reducer: (_a, b) => b, default: () => null });
const State = Annotation.Root({
  cycle: Annotation({ reducer: (_a, b) => b, default: () => 0 }),
  planned: Rec(),
  dispatch: Rec(),
  handoff: Rec(),
  reviewed: Rec(),
});

/** A record of about the size of one of our journal events (a dispatch is ~1.5 kB). */
const record = (kind, cycle) => ({
  kind,
  cycle,
  target: `A.lean:${cycle + 1}`,
  files: ['A.lean'],
  notes: Array.from(
    { length: 8 },
    (_, i) => `note ${i} of ${kind} in cycle ${cycle}: exact Continuous.comp hg hf`,
  ),
});

/** The LangGraph five-node cycle, compiled with SqliteSaver on `dbPath`. */
function langGraph(n, dbPath, full) {
  const saver = SqliteSaver.fromConnString(dbPath);
  if (full) {
    saver.setup();
    saver.db.pragma('synchronous=FULL');
  }
  const g = new StateGraph(State)
    .addNode('plan', (s) => ({ planned: record('plan', s.cycle) }))
    .addNode('work', (s) => ({ dispatch: record('dispatch', s.cycle) }))
    .addNode('verify', (s) => ({ handoff: record('handoff', s.cycle) }))
    .addNode('review', (s) => ({ reviewed: record('review', s.cycle) }))
    .addNode('replan', (s) => ({ cycle: s.cycle + 1 }))
    .addEdge(START, 'plan')
    .addEdge('plan', 'work')
    .addEdge('work', 'verify')
    .addEdge('verify', 'review')
    .addEdge('review', 'replan')
    .addConditionalEdges('replan', (s) => (s.cycle >= n ? END : 'plan'));
  return { app: g.compile({ checkpointer: saver }), saver };
}

let thread = 0;
async function langGraphCycles(n, dir, mode) {
  const full = mode === 'sync-full';
  const { app, saver } = langGraph(n, join(dir, `lg-${thread}.sqlite`), full);
  try {
    const t0 = process.hrtime.bigint();
    const out = await app.invoke(
      { cycle: 0 },
      {
        configurable: { thread_id: `t${thread++}` },
        recursionLimit: 5 * n + 10,
        durability: full ? 'sync' : 'async',
      },
    );
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (out.cycle !== n) throw new Error(`langgraph ended at cycle ${out.cycle}`);
    return n / s;
  } finally {
    saver.db.close();
  }
}

/** fsync+fdatasync calls of `node SELF --child n` under strace, or null without strace. */
function straceFsyncs(n, what) {
  const out = join(tmpdir(), `durable-cycle-strace-${process.pid}-${what}-${n}.txt`);
  const r = spawnSync(
    'strace',
    [
      '-f',
      '-c',
      '-o',
      out,
      '-e',
      'trace=fsync,fdatasync',
      process.execPath,
      SELF,
      '--child',
      what,
      String(n),
    ],
    {
      encoding: 'utf8',
      cwd: dirname(SELF),
    },
  );
  if (r.error || r.status !== 0) {
    process.stderr.write(
      `strace ${what} ${n}: ${r.error?.message ?? `exit ${r.status}`} ${(r.stderr ?? '').slice(-400)}\n`,
    );
    return null;
  }
  return out;
}

async function countsFromStrace(file) {
  const text = await readFile(file, 'utf8');
  await rm(file, { force: true });
  let total = 0;
  for (const line of text.split('\n')) {
    const m = /^\s*[\d.]+\s+[\d.]+\s+\d+\s+(\d+)\s+(?:\d+\s+)?(fsync|fdatasync)\s*$/.exec(line);
    if (m) total += Number(m[1]);
  }
  return total;
}

/** Warm-up runs of 60 cycles per side before measuring, and measured alternating rounds. */
const WARM_RUNS = 5;
const ROUNDS = 7;

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function bench() {
  const dir = await mkdtemp(join(tmpdir(), 'durable-cycle-lg-'));
  try {
    // steady state: both sides warm up until their JIT has settled (LangGraph's throughput rises by
    // ≈35% over its first five 60-cycle runs, ours by ≈50%; one 10-cycle run measured both cold),
    // then alternate (the box is shared: alternation spreads the noise over both), median of seven
    for (let i = 0; i < WARM_RUNS; i++) {
      await durableCycles(60);
      await durableCycles(60, 'memory', 'memory');
      await langGraphCycles(60, dir, 'default');
      await langGraphCycles(60, dir, 'sync-full');
    }
    const ours = [];
    const lgDefault = [];
    const lgFull = [];
    let small;
    let large;
    for (let i = 0; i < ROUNDS; i++) {
      const r = await durableCycles(60);
      ours.push(r.perSec);
      large = r;
      lgDefault.push(await langGraphCycles(60, dir, 'default'));
      lgFull.push(await langGraphCycles(60, dir, 'sync-full'));
    }
    small = await durableCycles(20);
    const memoryRuns = [];
    for (let i = 0; i < 3; i++) memoryRuns.push((await durableCycles(60, 'memory', 'memory')).perSec);
    const inMemory = median(memoryRuns);
    const oursPerSec = median(ours);
    const lgPerSec = median(lgDefault);
    const lgFullPerSec = median(lgFull);
    // marginal fsyncs per cycle (run start and finish cancel out), by kind
    const perCycle = (large.fsyncs - small.fsyncs) / (large.cycles - small.cycles);
    const rows = [
      {
        name: 'durable cycle, handoff-runtime (fs run store, in-process worker, persistence)',
        value: oursPerSec,
        unit: 'cycles/s',
      },
      {
        name: 'the same cycle journaled to the in-memory store (no fsync: the CPU share)',
        value: inMemory,
        unit: 'cycles/s',
      },
      {
        name: 'LangGraph.js 1.7 five-node cycle + SqliteSaver (defaults: async, WAL synchronous=NORMAL)',
        value: lgPerSec,
        unit: 'cycles/s',
      },
      {
        name: 'ratio durable handoff-runtime / LangGraph defaults',
        value: oursPerSec / lgPerSec,
        unit: '×',
        ratio: oursPerSec / lgPerSec,
        target: 5,
      },
      {
        // the cycle's own CPU bounds the durable ratio: no durability work can take it past this
        name: 'ceiling: the in-memory-store cycle (no fsync) / LangGraph defaults',
        value: inMemory / lgPerSec,
        unit: '×',
        ratio: inMemory / lgPerSec,
      },
      {
        name: 'LangGraph.js + SqliteSaver, durability sync, synchronous=FULL',
        value: lgFullPerSec,
        unit: 'cycles/s',
      },
      {
        name: 'ratio durable handoff-runtime / LangGraph sync+FULL',
        value: oursPerSec / lgFullPerSec,
        unit: '×',
        ratio: oursPerSec / lgFullPerSec,
      },
      {
        name: `fsyncs per durable cycle (FsLayer, marginal ${small.cycles}→${large.cycles} cycles)`,
        value: perCycle,
        unit: 'fsync/cycle',
        targetMax: 4,
      },
      {
        name: `fsyncs over a whole ${large.cycles}-cycle run incl. start (FsLayer)`,
        value: large.fsyncs,
        unit: 'fsyncs',
      },
    ];
    for (const [kind, n] of [...large.byKind].sort((a, b) => b[1] - a[1])) {
      const s = small.byKind.get(kind) ?? 0;
      if (n === s) continue;
      rows.push({
        name: `  of which ${kind}, per cycle`,
        value: (n - s) / (large.cycles - small.cycles),
        unit: 'fsync/cycle',
      });
    }
    rows.push({
      name: '  at run start and finish (manifest, .gitignore, directories, first journal sync)',
      value: large.fsyncs - perCycle * large.cycles,
      unit: 'fsyncs',
    });
    const fileState = median(
      [await durableCycles(60, 'file'), await durableCycles(60, 'file'), await durableCycles(60, 'file')].map(
        (r) => r.perSec,
      ),
    );
    rows.push({
      name: "durable cycle with the controller state in a file (the persist verbs' form)",
      value: fileState,
      unit: 'cycles/s',
    });
    const a = straceFsyncs(20, 'ours');
    const b = a === null ? null : straceFsyncs(60, 'ours');
    if (a !== null && b !== null) {
      const sa = await countsFromStrace(a);
      const sb = await countsFromStrace(b);
      const st = (sb - sa) / (large.cycles - small.cycles);
      rows.push({
        name: 'fsync+fdatasync per durable cycle (strace -f -c, marginal)',
        value: st,
        unit: 'fsync/cycle',
      });
      rows.push({ name: '  of which outside the store FsLayer', value: st - perCycle, unit: 'fsync/cycle' });
    }
    const g = straceFsyncs(20, 'ours-state-file');
    const h = g === null ? null : straceFsyncs(60, 'ours-state-file');
    if (g !== null && h !== null) {
      const sg = await countsFromStrace(g);
      const sh = await countsFromStrace(h);
      const st = (sh - sg) / (large.cycles - small.cycles);
      rows.push({
        name: 'with the state file: fsync+fdatasync per cycle (strace, marginal)',
        value: st,
        unit: 'fsync/cycle',
      });
      rows.push({
        name: '  of which the state file (outside the FsLayer)',
        value: st - perCycle,
        unit: 'fsync/cycle',
      });
    }
    const c = straceFsyncs(20, 'lg-default');
    const d = c === null ? null : straceFsyncs(60, 'lg-default');
    if (c !== null && d !== null) {
      const sc = await countsFromStrace(c);
      const sd = await countsFromStrace(d);
      rows.push({
        name: 'LangGraph defaults: fsync+fdatasync per cycle (strace, marginal)',
        value: (sd - sc) / 40,
        unit: 'fsync/cycle',
      });
    }
    const e = straceFsyncs(20, 'lg-sync-full');
    const f = e === null ? null : straceFsyncs(60, 'lg-sync-full');
    if (e !== null && f !== null) {
      const se = await countsFromStrace(e);
      const sf = await countsFromStrace(f);
      rows.push({
        name: 'LangGraph sync+FULL: fsync+fdatasync per cycle (strace, marginal)',
        value: (sf - se) / 40,
        unit: 'fsync/cycle',
      });
    }
    return rows;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') {
  const what = process.argv[3];
  const n = Number(process.argv[4]);
  if (what === 'ours') await durableCycles(n);
  else if (what === 'ours-state-file') await durableCycles(n, 'file');
  else {
    const dir = await mkdtemp(join(tmpdir(), 'durable-cycle-lg-'));
    try {
      await langGraphCycles(n, dir, what === 'lg-sync-full' ? 'sync-full' : 'default');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
}

export default bench;
