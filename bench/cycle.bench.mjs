// Cycle engine throughput: full six-phase cycles per second with in-process actors (no worker
// process, no git), first with nothing persisted (in-memory), then with every boundary journaled
// to the durable fs run store through the persistence controller (fsync'd appends). The ratio
// compares the per-phase cost of the cycle with a bare xstate actor transition measured in the
// same run.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createActor, createMachine } from 'xstate';
import { builtinPlanner, builtinReviewer } from '../dist/src/runtime/builtin-ports.js';
import { resolveCycleOptions } from '../dist/src/runtime/cycle-options.js';
import { buildDispatch } from '../dist/src/runtime/dispatch-builder.js';
import { createPersistRecorder } from '../dist/src/runtime/persist-recorder.js';
import { runCycle } from '../dist/src/runtime/run-cycle.js';
import { opsPerSecondSync } from './lib.mjs';

const PHASES_PER_CYCLE = 7; // discover, plan, work, gate, checkpoint, review, replan

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
      id: `A.lean:${i + 1}`,
      file: 'A.lean',
      line: i + 1,
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
        const handoff = {
          schema: 'run-contract/v1',
          record: 'handoff',
          target: d.target,
          scope: d.scope,
          mode: d.mode,
          status: 'solved',
          stop_reason: null,
          stop_detail: null,
          blocker_kind: null,
          blocker_class: null,
          blocker_signature: null,
          attempted_tools: [],
          best_candidates: [],
          failed_avenues: [],
          evidence: {
            queries: [],
            top_candidates: [],
            attempts: [],
            goal_delta: null,
            diagnostic_delta: null,
          },
          files_owned: [file],
          files_changed: [file],
          file_baseline: baseline,
          artifacts: [],
          next_action: 'continue',
          new_evidence_required_for_rerun: null,
        };
        if (recorder) await recorder.handoff(handoff);
        return { kind: 'handoff', dispatch: d, handoff, accepted: [file], baseline, progressLines: 0 };
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

async function cyclesPerSecond(n, durable) {
  const root = await mkdtemp(join(tmpdir(), 'cycle-bench-'));
  try {
    const recorder = durable ? await createPersistRecorder({ projectRoot: root, env: {} }) : null;
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
    await rm(root, { recursive: true, force: true });
  }
}

export default async () => {
  const toggle = createMachine({ initial: 'a', states: { a: { on: { T: 'b' } }, b: { on: { T: 'a' } } } });
  const actor = createActor(toggle).start();
  const bare = opsPerSecondSync(() => actor.send({ type: 'T' }), 700);
  actor.stop();
  const bareUs = 1e6 / bare;
  await cyclesPerSecond(50, false); // warm-up
  const mem = await cyclesPerSecond(400, false);
  const fs = await cyclesPerSecond(60, true);
  const memPhaseUs = 1e6 / mem / PHASES_PER_CYCLE;
  const fsPhaseUs = 1e6 / fs / PHASES_PER_CYCLE;
  return [
    { name: 'bare xstate actor transition', value: bare, unit: 'transitions/s' },
    { name: 'full cycle, in-process actors, in-memory', value: mem, unit: 'cycles/s' },
    {
      name: 'per-phase cost vs bare transition (in-memory)',
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
