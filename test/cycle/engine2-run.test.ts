/**
 * Cycle engine II end to end, in process: `runCycle` with a real temp project, the runtime's real
 * deep snapshots (src/runtime/deep-snapshots.ts), a marker-scanning diagnostics port and scripted
 * workers (some hostile). Deep rollbacks restore exact bytes and leave unrelated files alone,
 * a failed rollback ends stuck without a checkpoint, repair escalates and judges improvement,
 * the review router acts on next_action, and a worker's non-proof blocker keeps its kind.
 */
import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { FileBaseline } from '../../src/baseline/schema.js';
import type { Handoff } from '../../src/contract/index.js';
import type {
  CheckpointInput,
  CycleOptions,
  DiagnosticsInput,
  TargetInfo,
  WorkerInput,
  WorkOutcome,
  WorkRole,
} from '../../src/cycle/types.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { createDeepSnapshots } from '../../src/runtime/deep-snapshots.js';
import type { CyclePorts, PatcherPort, SnapshotPort, Unstamped } from '../../src/runtime/ports.js';
import { runCycle } from '../../src/runtime/run-cycle.js';
import { workerHandoff } from './fixture.js';

const A0 = 'theorem t : True := by\n  sorry\n';
const B0 = 'theorem u : True := trivial -- unrelated, edited by the user\n';

let root: string;
beforeEach(() => {
  root = realpathSync(mkdtempSync(join(tmpdir(), 'engine2-')));
  writeFileSync(join(root, 'A.lean'), A0);
  writeFileSync(join(root, 'B.lean'), B0);
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const read = (f: string) => readFileSync(join(root, f), 'utf8');
/** A custody baseline of the owned file (its digest is not what these tests check). */
const baseline = (): FileBaseline => ({
  schema: 'file-baseline/v1',
  files: [
    {
      path: join(root, 'A.lean'),
      realpath: join(root, 'A.lean'),
      exists: true,
      sha256: 'a'.repeat(64),
      size: 3,
    },
  ],
});

/** Open targets are `sorry` lines, errors are `ERROR` lines, of the asked files (default A.lean). */
const diagnostics = {
  async diagnose(input: DiagnosticsInput) {
    const files = input.files.length > 0 ? input.files : ['A.lean'];
    const targets: TargetInfo[] = [];
    const errors: string[] = [];
    for (const f of files) {
      const lines = read(f).split('\n');
      lines.forEach((l, i) => {
        if (l.includes('sorry')) targets.push({ id: `${f}:${i + 1}`, file: f, line: i + 1, goal: l.trim() });
        if (l.includes('ERROR')) errors.push(`${f}:${i + 1}:${l.trim()}`);
      });
    }
    return { tier: input.tier, targets, errors, ok: errors.length === 0 };
  },
};

function options(over: Partial<CycleOptions> = {}, flags: Record<string, unknown> = {}): CycleOptions {
  const r = resolveCycleOptions({
    target: '.',
    scope: 'project',
    mode: 'autoprove',
    maxCycles: 1,
    maxStuck: 3,
    planning: 'off',
    ...flags,
  });
  if (!r.ok) throw new Error(r.error);
  return { ...r.options, inlineFallback: false, ...over };
}

const handoffOut = (h: Handoff, accepted: string[], linesChanged = 0): Unstamped<WorkOutcome> => ({
  kind: 'handoff',
  dispatch: null as never,
  handoff: h,
  accepted,
  baseline: baseline(),
  progressLines: 0,
  importsChanged: false,
  linesChanged,
});

type Script = (input: WorkerInput) => Unstamped<WorkOutcome>;

function ports(
  script: Partial<Record<WorkRole, Script>>,
  extra: {
    snapshots?: SnapshotPort;
    patcher?: PatcherPort;
    nextAction?: Handoff['next_action'];
    commits?: CheckpointInput[];
    dispatched?: WorkerInput[];
  } = {},
): CyclePorts {
  const stuck = () => handoffOut(workerHandoff('stuck'), []);
  return {
    diagnostics,
    planner: { plan: async () => ({ steps: [], searches: [], evidence: {}, summary: 'p' }) },
    worker: {
      work: async (input) => {
        extra.dispatched?.push(input);
        return (script[input.role ?? 'fill'] ?? stuck)(input);
      },
    },
    reviewer: {
      review: async (input) => ({
        mode: input.mode,
        primaryBlocker: null,
        topBlockers: [],
        evidence: [],
        falsification: false,
        nextAction: input.mode === 'stuck' ? (extra.nextAction ?? 'continue') : 'continue',
        suggestions: [],
      }),
    },
    checkpointer: {
      checkpoint: async (input) => {
        extra.commits?.push(input);
        return { committed: true, commit: 'c0ffee', message: 'checkpoint: x' };
      },
    },
    human: { ask: async () => ({ answer: 'stop', evidence: [] }) },
    ...(extra.snapshots === undefined ? {} : { snapshots: extra.snapshots }),
    ...(extra.patcher === undefined ? {} : { patcher: extra.patcher }),
  };
}

const run = (o: CycleOptions, p: CyclePorts) =>
  runCycle({
    runId: 'r1',
    options: o,
    ports: p,
    filesOwned: [join(root, 'A.lean')],
    baseline: baseline(),
    clock: () => 0,
  });

/** A deep worker that writes `text` to A.lean and reports it changed. */
const deepWrites =
  (text: string, linesChanged = 2): Script =>
  () => {
    writeFileSync(join(root, 'A.lean'), text);
    return handoffOut(
      workerHandoff('stuck', { files_changed: [join(root, 'A.lean')] }),
      [join(root, 'A.lean')],
      linesChanged,
    );
  };

describe('deep mode, end to end', () => {
  it('a regression (one more sorry) is rolled back to the exact bytes; B.lean is untouched and nothing is staged', async () => {
    writeFileSync(join(root, 'B.lean'), `${B0}-- a later user edit\n`);
    const commits: CheckpointInput[] = [];
    const dispatched: WorkerInput[] = [];
    const r = await run(
      options({ deep: 'always' }),
      ports(
        { deep: deepWrites('theorem t : True := by\n  sorry\ntheorem t2 : True := by\n  sorry\n') },
        { snapshots: createDeepSnapshots({ projectRoot: root }), commits, dispatched },
      ),
    );
    expect(read('A.lean')).toBe(A0);
    expect(read('B.lean')).toBe(`${B0}-- a later user edit\n`);
    expect(r.context.lastStuck).toMatchObject({
      condition: 'deep-rollback',
      detail: 'deep: regression — sorry count +1',
    });
    expect(commits.flatMap((c) => c.files)).toEqual([]);
    const deep = dispatched.find((d) => d.role === 'deep');
    expect(deep?.ownedFiles).toEqual(['A.lean']);
    expect(deep?.parameters).toHaveProperty('deep_budget');
    expect(r.context.tracker.deep_total).toBe(1);
  });

  it('new errors are a regression: rolled back with the exact reason', async () => {
    const r = await run(
      options({ deep: 'always' }),
      ports(
        { deep: deepWrites('theorem t : True := by\n  ERROR here\n') },
        { snapshots: createDeepSnapshots({ projectRoot: root }) },
      ),
    );
    expect(read('A.lean')).toBe(A0);
    expect(r.context.lastStuck?.detail).toBe('deep: regression — new errors');
  });

  it('a scope-fence overrun is rolled back even when it solved the target', async () => {
    const r = await run(
      options({ deep: 'always' }),
      ports(
        { deep: deepWrites('theorem t : True := by\n  trivial\n', 9999) },
        { snapshots: createDeepSnapshots({ projectRoot: root }) },
      ),
    );
    expect(read('A.lean')).toBe(A0);
    expect(r.context.lastStuck?.detail).toMatch(/^deep: scope exceeded — 1 files? \/ 9999 lines$/);
  });

  it('an accepted deep pass that solved the target is checkpointed', async () => {
    const commits: CheckpointInput[] = [];
    const r = await run(
      options({ deep: 'always' }),
      ports(
        { deep: deepWrites('theorem t : True := by\n  trivial\n') },
        { snapshots: createDeepSnapshots({ projectRoot: root }), commits },
      ),
    );
    expect(read('A.lean')).toBe('theorem t : True := by\n  trivial\n');
    expect(commits.flatMap((c) => c.files)).toEqual([join(root, 'A.lean')]);
    expect(r.handoff.status).toBe('solved');
  });

  it('a hostile deep worker that edits a header: fence violation → rollback + stuck', async () => {
    const r = await run(
      options({ deep: 'always' }),
      ports(
        {
          deep: () => {
            writeFileSync(join(root, 'A.lean'), 'theorem t : False := by\n  sorry\n');
            return {
              kind: 'fence-violation',
              detail: 'A.lean: theorem t: statement changed',
              dispatch: null,
            };
          },
        },
        { snapshots: createDeepSnapshots({ projectRoot: root }) },
      ),
    );
    expect(read('A.lean')).toBe(A0);
    expect(r.context.lastStuck?.detail).toBe('deep: header changed — A.lean: theorem t: statement changed');
  });

  it('a failed rollback ends the run stuck "deep: rollback failed" without a checkpoint', async () => {
    const real = createDeepSnapshots({ projectRoot: root });
    const commits: CheckpointInput[] = [];
    const r = await run(
      options({ deep: 'always' }),
      ports(
        { deep: deepWrites('theorem t : True := by\n  sorry\n  sorry\n') },
        {
          snapshots: {
            take: (i) => real.take(i),
            restore: async () => ({ ok: false, restored: [], detail: 'disk full' }),
          },
          commits,
        },
      ),
    );
    expect(r.handoff.status).toBe('stuck');
    expect(r.context.stuck?.detail).toBe('deep: rollback failed');
    expect(r.handoff.failed_avenues.some((f) => f.startsWith('deep: rollback failed — disk full'))).toBe(
      true,
    );
    expect(r.handoff.blocker_kind).toBe('operational');
    expect(commits).toEqual([]);
  });

  it('without a snapshot port deep mode is skipped with a startup warning', async () => {
    const dispatched: WorkerInput[] = [];
    const r = await run(options({ deep: 'always' }), ports({}, { dispatched }));
    expect(dispatched.some((d) => d.role === 'deep')).toBe(false);
    expect(r.context.warnings.some((w) => w.startsWith('deep mode unavailable'))).toBe(true);
  });
});

/** A patcher that writes `after` to A.lean when the diff is applied (or answers `kind`). */
function patcher(after: string | ((n: number) => string), kind: 'applied' | 'stale' | 'refused' = 'applied') {
  let n = 0;
  return {
    calls: () => n,
    port: {
      apply: async () => {
        n++;
        if (kind !== 'applied') return { kind, detail: `${kind} patch` };
        writeFileSync(join(root, 'A.lean'), typeof after === 'string' ? after : after(n));
        return { kind: 'applied' as const, changed: [join(root, 'A.lean')], baseline: baseline() };
      },
    } satisfies PatcherPort,
  };
}

const THREE_ERRORS = 'theorem t : True := by\n  ERROR one\n  ERROR two\n  ERROR three\n';
/** The ordinary pass claims a solve but leaves three errors: verify refutes it, repair triggers. */
const fillBreaks: Script = () => {
  writeFileSync(join(root, 'A.lean'), THREE_ERRORS);
  return handoffOut(workerHandoff('solved', { files_changed: [join(root, 'A.lean')] }), [
    join(root, 'A.lean'),
  ]);
};
const diffHandoff = (over: Partial<Handoff> = {}) =>
  handoffOut(
    workerHandoff('stuck', {
      artifacts: [{ kind: 'unified-diff', content: '--- a/A.lean\n+++ b/A.lean\n@@ -2 +2 @@\n-x\n+y\n' }],
      ...over,
    }),
    [],
  );

describe('repair mode, end to end', () => {
  it('three distinct errors trigger repair; an improving patch is verified and checkpointed', async () => {
    const p = patcher(A0);
    const commits: CheckpointInput[] = [];
    const dispatched: WorkerInput[] = [];
    const r = await run(
      options({ deep: 'never' }),
      ports({ fill: fillBreaks, repair: () => diffHandoff() }, { patcher: p.port, commits, dispatched }),
    );
    expect(p.calls()).toBe(1);
    const rep = dispatched.find((d) => d.role === 'repair');
    expect(rep?.parameters).toMatchObject({
      repair: { error: 'A.lean:2:ERROR one', trigger: '3 distinct errors in scope' },
    });
    expect(r.context.log.some((l) => /^repair: .* — improved \(3 → 0 errors\)$/.test(l))).toBe(true);
    expect(commits.flatMap((c) => c.files)).toEqual([join(root, 'A.lean')]);
  });

  it('two neutral attempts on a signature: the target is stuck (repair-exhausted)', async () => {
    const p = patcher(THREE_ERRORS);
    const r = await run(
      options({ deep: 'never' }),
      ports({ fill: fillBreaks, repair: () => diffHandoff() }, { patcher: p.port }),
    );
    expect(p.calls()).toBe(2);
    expect(r.context.lastStuck?.condition).toBe('repair-exhausted');
    expect(r.context.repairLedger.total).toBe(2);
  });

  it('a stale baseline stops the run (custody), never retried', async () => {
    const p = patcher('', 'stale');
    const r = await run(
      options({ deep: 'never' }),
      ports({ fill: fillBreaks, repair: () => diffHandoff() }, { patcher: p.port }),
    );
    expect(p.calls()).toBe(1);
    expect(r.handoff.stop_reason).toBe('protocol-error');
    expect(r.handoff.stop_detail).toBe('repair: stale baseline — stale patch');
  });

  it('a hostile repair worker that edits files itself is a protocol error (its handoff lists files)', async () => {
    const p = patcher('');
    const r = await run(
      options({ deep: 'never' }),
      ports(
        { fill: fillBreaks, repair: () => diffHandoff({ files_changed: [join(root, 'A.lean')] }) },
        { patcher: p.port },
      ),
    );
    expect(p.calls()).toBe(0);
    expect(r.handoff.stop_reason).toBe('protocol-error');
    expect(r.handoff.stop_detail).toContain('unified-diff artifact and files_changed: []');
  });
});

describe('the review router and blocker kinds, end to end', () => {
  /** Two stuck attempts with the same signature: repeated-failure, then the stuck review. */
  const twice = (o: CycleOptions) => ({ ...o, deep: 'never' as const });
  const run2 = (o: CycleOptions, p: CyclePorts) =>
    runCycle({
      runId: 'r2',
      options: o,
      ports: p,
      filesOwned: [join(root, 'A.lean')],
      baseline: baseline(),
      clock: () => 0,
    });

  it('redraft with an outer loop: the run ends stuck with next_action redraft', async () => {
    const r = await run2(
      twice(options({ outerLoop: true }, { maxCycles: 2 })),
      ports({}, { nextAction: 'redraft' }),
    );
    expect(r.handoff.status).toBe('stuck');
    expect(r.handoff.next_action).toBe('redraft');
  });

  it('redraft without an outer loop is informational: the run resumes (replan) instead of ending', async () => {
    const r = await run2(twice(options({}, { maxCycles: 2 })), ports({}, { nextAction: 'redraft' }));
    expect(r.context.log.some((l) => l.startsWith('router:'))).toBe(false);
    expect(r.handoff.status).not.toBe('solved');
  });

  it('stop halts the target: it stays blocked and is not dispatched again without new evidence', async () => {
    const dispatched: WorkerInput[] = [];
    const r = await run2(twice(options({}, { maxCycles: 3 })), ports({}, { nextAction: 'stop', dispatched }));
    expect(r.handoff.status).not.toBe('solved');
    expect(r.handoff.next_action).toBe('stop');
    expect(r.context.log.some((l) => l.startsWith('router:'))).toBe(false);
    // two attempts made it stuck; the halted target is never dispatched a third time
    expect(dispatched).toHaveLength(2);
  });

  it('deep routes the stuck target into deep mode once (with the review as its evidence)', async () => {
    const dispatched: WorkerInput[] = [];
    await run2(
      { ...twice(options({}, { maxCycles: 2 })), deep: 'ask' as const },
      ports(
        { deep: deepWrites('theorem t : True := by\n  trivial\n') },
        { nextAction: 'deep', snapshots: createDeepSnapshots({ projectRoot: root }), dispatched },
      ),
    );
    const deep = dispatched.filter((d) => d.role === 'deep');
    expect(deep).toHaveLength(1);
    expect(deep[0]?.evidenceDelta).toContain('stuck review: next_action deep');
    expect(read('A.lean')).toBe('theorem t : True := by\n  trivial\n');
  });

  it("a hostile worker's capability blocker is not relabelled proof by the stuck review", async () => {
    const cap = () =>
      handoffOut(workerHandoff('stuck', { blocker_kind: 'capability', blocker_class: null }), []);
    const r = await run2(twice(options({}, { maxCycles: 3 })), ports({ fill: cap }, { nextAction: 'stop' }));
    expect(r.handoff.status).toBe('stuck');
    expect(r.handoff.blocker_kind).toBe('capability');
    expect(r.handoff.blocker_class).toBeNull();
  });

  it('pre-flight context: a relaunch carries the errors and the snippets already tried', async () => {
    const dispatched: WorkerInput[] = [];
    const tried = () =>
      handoffOut(
        workerHandoff('stuck', {
          evidence: {
            queries: [],
            top_candidates: [],
            attempts: [{ snippet: 'omega', result: 'failed' }],
            goal_delta: null,
            diagnostic_delta: null,
          },
        }),
        [],
      );
    await run2(
      twice(options({}, { maxCycles: 2 })),
      ports({ fill: tried }, { nextAction: 'continue', dispatched }),
    );
    const second = dispatched.filter((d) => (d.role ?? 'fill') === 'fill')[1];
    expect(second?.preflight?.candidatesTested).toEqual([{ snippet: 'omega', result: 'failed' }]);
    expect(second?.preflight?.codeActions).toEqual([]);
  });
});
