// Cycle engine throughput: full six-phase cycles per second with in-process actors (no worker
// process, no git): with nothing persisted, with every boundary journaled through the persistence
// controller to the in-memory store (state kept in memory too), and to the durable fs run store
// (fsync'd appends and state saves) — the figure to compare with other agent runtimes. The ratio
// compares the per-phase cost of the cycle with a bare xstate actor transition measured in the
// same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, createMachine } from 'xstate';
import { handoffFor } from '../dist/src/contract/index.js';
import { builtinPlanner, builtinReviewer } from '../dist/src/runtime/builtin-ports.js';
import { resolveCycleOptions } from '../dist/src/runtime/cycle-options.js';
import { buildDispatch } from '../dist/src/runtime/dispatch-builder.js';
import { createPersistRecorder } from '../dist/src/runtime/persist-recorder.js';
import { runCycle } from '../dist/src/runtime/run-cycle.js';
import { createMemoryStore } from '../dist/src/store/memory-store.js';
import { opsPerSecondSync } from './lib.mjs';

const PHASES_PER_CYCLE = 8; // discover, plan, work, verify, gate, checkpoint, review, replan

/** Controller state kept in a Map (the in-memory figure). */
function memoryStateFs() {
  const files = new Map();
  return {
    async createExclusive(path, text) {
      if (files.has(path)) throw Object.assign(new Error('exists'), { code: 'EEXIST' });
      files.set(path, text);
    },
    async replace(path, text) {
      files.set(path, text);
    },
    async read(path) {
      if (!files.has(path)) throw Object.assign(new Error('missing'), { code: 'ENOENT' });
      return files.get(path);
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
  // solved targets disappear from the front: the verification of each edit confirms it
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
        if (recorder && i.kind === 'replan') await recorder.replan(p, i.cycle);
        return p;
      },
    },
    worker: {
      work: async (input) => {
        const d = buildDispatch(input, [file], baseline, '/tmp');
        if (recorder) await (dispatches++ === 0 ? recorder.start(d) : recorder.dispatch(d));
        open--;
        const handoff = handoffFor(d, {
          files_owned: [file],
          files_changed: [file],
          file_baseline: baseline,
        });
        if (recorder) await recorder.handoff(handoff);
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
        if (recorder) await recorder.review(r, i);
        return r;
      },
    },
    checkpointer: { checkpoint: async () => ({ committed: true, commit: 'x', message: 'checkpoint: x' }) },
    human: { ask: async () => ({ answer: 'stop', evidence: [] }) },
    baseline,
    file,
  };
}

async function cyclesPerSecond(n, persistence) {
  const root = await mkdtemp(join(tmpdir(), 'cycle-bench-'));
  let recorder = null;
  try {
    if (persistence === 'memory') {
      recorder = await createPersistRecorder({
        projectRoot: root,
        store: createMemoryStore(),
        stateFs: memoryStateFs(),
      });
    } else if (persistence === 'fs') {
      recorder = await createPersistRecorder({ projectRoot: root, env: {} });
    }
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
    });
    const s = Number(process.hrtime.bigint() - t0) / 1e9;
    if (out.handoff.status !== 'solved') throw new Error(`bench run ended ${out.handoff.status}`);
    if (recorder) await recorder.finish(out.handoff);
    return out.context.tracker.cycles / s;
  } finally {
    await recorder?.dispose();
    await rm(root, { recursive: true, force: true });
  }
}

export default async () => {
  const toggle = createMachine({ initial: 'a', states: { a: { on: { T: 'b' } }, b: { on: { T: 'a' } } } });
  const actor = createActor(toggle).start();
  const bare = opsPerSecondSync(() => actor.send({ type: 'T' }), 700);
  actor.stop();
  const bareUs = 1e6 / bare;
  await cyclesPerSecond(50, 'none'); // warm-up
  const none = await cyclesPerSecond(400, 'none');
  const mem = await cyclesPerSecond(200, 'memory');
  const fs = await cyclesPerSecond(60, 'fs');
  const nonePhaseUs = 1e6 / none / PHASES_PER_CYCLE;
  const memPhaseUs = 1e6 / mem / PHASES_PER_CYCLE;
  const fsPhaseUs = 1e6 / fs / PHASES_PER_CYCLE;
  return [
    { name: 'bare xstate actor transition', value: bare, unit: 'transitions/s' },
    { name: 'full cycle, in-process actors, not persisted', value: none, unit: 'cycles/s' },
    {
      name: 'per-phase cost vs bare transition (not persisted)',
      value: nonePhaseUs,
      unit: 'µs/phase',
      ratio: nonePhaseUs / bareUs,
    },
    { name: 'full cycle, in-process actors, in-memory store', value: mem, unit: 'cycles/s' },
    {
      name: 'per-phase cost vs bare transition (in-memory store)',
      value: memPhaseUs,
      unit: 'µs/phase',
      ratio: memPhaseUs / bareUs,
    },
    { name: 'full cycle, in-process actors, durable fs store', value: fs, unit: 'cycles/s' },
    {
      name: 'per-phase cost vs bare transition (durable fs)',
      value: fsPhaseUs,
      unit: 'µs/phase',
      ratio: fsPhaseUs / bareUs,
    },
  ];
};
