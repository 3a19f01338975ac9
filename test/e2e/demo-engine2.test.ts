/**
 * The demo of cycle engine II (issue 13, `npm start`): the demo project run by `handoff run`'s
 * engine (autoprove, fs store) with the built TypeScript example worker as a real child process
 * shows one repair escalation (Demo/Arith.lean: the same blocker twice → a patch-only diff the
 * runtime applies and checkpoints) and one deep rollback (Demo/Tower.lean: the deep pass raises
 * the sorry count → the file is restored byte for byte, never staged, and the target becomes a
 * declared blocker; the run ends on a valid blocker handoff). Also pins the example worker's roles one dispatch at a time
 * (deep regress / deep accepted / patch-only repair, custody before every mutation), an accepted
 * deep pass through the engine, and the demo printer against hostile worker strings. Uses the
 * built package (`npm run build` first).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/index.js';
import type { FileBaseline } from '../../src/baseline/schema.js';
import { emptyContext } from '../../src/contract/dispatch-schema.js';
import { type Dispatch, type Handoff, handoffFor, validateHandoff } from '../../src/contract/index.js';
import { applyPatchUnderCustody } from '../../src/patch/index.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { type ProjectRunResult, runProject } from '../../src/runtime/project-run.js';
import { TS_WORKER } from './helpers.js';

const DEMO = fileURLToPath(new URL('../../examples/demo-project/', import.meta.url));
const DEMO_CYCLE = pathToFileURL(join(process.cwd(), 'dist/src/cli/demo-cycle.js')).href;

type DemoCycle = typeof import('../../src/cli/demo-cycle.js');
/** The built demo module (its paths resolve from dist/, where `npm start` runs it). */
const demoCycle = () => import(DEMO_CYCLE) as Promise<DemoCycle>;

function gitIn(dir: string) {
  return (...args: string[]) => execFileSync('git', args, { cwd: dir, encoding: 'utf8' });
}

async function demoCopy(): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-demo2-')));
  await cp(DEMO, dir, { recursive: true });
  const git = gitIn(dir);
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'demo project');
  return dir;
}

describe('npm start: the demo project through the engine (real worker, real git, fs store)', () => {
  let dir: string;
  let r: ProjectRunResult;
  let git: ReturnType<typeof gitIn>;
  beforeAll(async () => {
    dir = await demoCopy();
    git = gitIn(dir);
    const recorder = await createPersistRecorder({ projectRoot: dir, env: {} });
    try {
      r = await runProject({
        projectRoot: dir,
        flags: { target: 'Demo', scope: 'project', mode: 'autoprove', maxCycles: 16 },
        worker: { argv: [process.execPath, TS_WORKER] },
        recorder,
      });
    } finally {
      await recorder.dispose();
    }
  }, 240_000);
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('repair escalation: the same blocker twice sends Demo/Arith.lean to the patch-only worker', async () => {
    const log = r.context.log;
    const trigger = log.findIndex(
      (l) =>
        l.startsWith('repair: Demo/Arith.lean:8 — same blocker signature 2 iterations: ') &&
        l.endsWith("Demo/Arith.lean:5:unknown constant 'Nat.two_mull'"),
    );
    expect(trigger).toBeGreaterThan(0);
    // two ordinary attempts on the target came first, both stuck on the build error
    expect(log.slice(0, trigger).filter((l) => l === 'work: Demo/Arith.lean:8 → stuck')).toHaveLength(2);
    expect(log.slice(trigger)).toEqual(
      expect.arrayContaining([
        'repair: patch applied to Demo/Arith.lean',
        "repair: Demo/Arith.lean:5:unknown constant 'Nat.two_mull' — improved (1 → 0 errors)",
        'repair: Demo/Arith.lean:8 improved — accepted Demo/Arith.lean',
      ]),
    );
    // the repair handoff: no edit, the parent's baseline, exactly one diff naming the file
    const repair = r.context.handoffs.filter((h) => h.artifacts.some((a) => a.kind === 'unified-diff'));
    expect(repair).toHaveLength(1);
    expect(repair[0]?.files_changed).toEqual([]);
    const { repairDiffOf, repairCommit } = await demoCycle();
    const diff = repairDiffOf(r.context.handoffs, 'Demo/Arith.lean');
    expect(diff).toContain(
      "\n-  rw [Nat.two_mull] -- repair: rw [Nat.two_mul] -- error: unknown constant 'Nat.two_mull'\n+  rw [Nat.two_mul]\n",
    );
    // the runtime applied it and checkpointed exactly that change, before the target was proved
    const git2 = async (...a: string[]) => ({ stdout: git(...a) });
    const commit = await repairCommit('Demo/Arith.lean', diff as string, git2);
    expect(commit).not.toBeNull();
    expect(git('show', `${commit?.commit}:Demo/Arith.lean`)).toContain('  rw [Nat.two_mul]\n\n');
    expect(git('show', `${commit?.commit}:Demo/Arith.lean`)).toContain('  sorry -- hint: omega');
    // with it, the batch sibling's file of the same cycle (autoprove's --batch-size 2)
    expect(git('show', '--name-only', '--format=', commit?.commit as string).trim()).toBe(
      'Demo/Arith.lean\nDemo/Basic.lean',
    );
    expect(git('show', '--format=%s', '--no-patch', commit?.commit as string).trim()).toMatch(
      /^checkpoint: cycle \d+: Demo\/Arith\.lean:8 repaired, Demo\/Basic\.lean:6 solved$/,
    );
    const head = git('show', 'HEAD:Demo/Arith.lean');
    expect(head).not.toContain('error:');
    expect(head).toContain('theorem triple (n : Nat) : 3 * n = n + n + n := by\n  omega');
  });

  it('deep rollback: Demo/Tower.lean is back to its exact bytes, never staged or committed', async () => {
    const log = r.context.log;
    expect(log).toContain('deep: rolled back Demo/Tower.lean — deep: regression — sorry count +1');
    // the deep worker really edited the file (the rollback undid a real change)
    const deep = r.context.handoffs.filter(
      (h) => h.target === 'Demo/Tower.lean:5' && h.files_changed.length > 0,
    );
    expect(deep).toHaveLength(1);
    expect(deep[0]?.blocker_class).toBe('needs-helper-lemma');
    const original = await readFile(join(DEMO, 'Demo/Tower.lean'));
    expect((await readFile(join(dir, 'Demo/Tower.lean'))).equals(original)).toBe(true);
    const { rollbackRestored } = await demoCycle();
    const restored = await rollbackRestored(dir, 'Demo/Tower.lean', async (...a) => ({ stdout: git(...a) }));
    expect(restored).toMatchObject({ ok: true, commits: 1 });
    expect(restored.working).toBe(restored.committed);
    expect(git('log', '--format=%s', '--', 'Demo/Tower.lean').trim()).toBe('demo project');
  });

  it('the checkpoints and the final record', () => {
    // autoprove batches two targets of disjoint files per cycle: three checkpoints, each naming
    // the target and its batch sibling with their verified outcomes
    expect(git('log', '--format=%s').trim().split('\n')).toEqual([
      'checkpoint: cycle 4: Demo/Hard.lean:3 stuck, Demo/Lists.lean:2 solved',
      'checkpoint: cycle 3: Demo/Arith.lean:8 solved, Demo/Hard.lean:3 open',
      'checkpoint: cycle 2: Demo/Arith.lean:8 repaired, Demo/Basic.lean:6 solved',
      'demo project',
    ]);
    expect(r.context.checkpoints).toHaveLength(3);
    const h = r.handoff;
    expect(validateHandoff(h).ok).toBe(true);
    expect(h).toMatchObject({ target: 'Demo', scope: 'project', mode: 'autoprove', blocker_kind: 'proof' });
    // the run ends on a blocker (stuck, or stopped on max-stuck: both blocker-driven)
    expect(h.status === 'stuck' || (h.status === 'stopped' && h.stop_reason === 'max-stuck')).toBe(true);
    expect(h.blocker_signature).toMatch(/^Demo\/(Tower|Hard)\.lean:\d+:/);
    expect(h.new_evidence_required_for_rerun).not.toBeNull();
    expect(r.finalCite).toMatch(/#\d+$/);
    // the rolled-back target is a declared blocker
    expect(r.context.blocked['Demo/Tower.lean:5']).toMatchObject({
      status: 'stuck',
      blocker_signature: 'Demo/Tower.lean:5:deep rollback',
    });
    // Hard.lean stays the stuck one with its declared blocker; nothing unverified is left behind
    expect(r.context.blocked['Demo/Hard.lean:3']?.blocker_class).toBe('missing-library-lemma');
    expect(git('show', 'HEAD:Demo/Hard.lean')).toContain('  sorry\n');
    const dirty = git('status', '--porcelain', '--untracked-files=all')
      .split('\n')
      .filter((l) => l !== '' && !l.slice(3).startsWith('.handoff/'));
    expect(dirty).toEqual([]);
  });
});

describe('runCycleDemo (what npm start prints)', () => {
  it('every check passes and the output shows the repair diff and the two sha256 digests', async () => {
    const { runCycleDemo } = await demoCycle();
    const out: string[] = [];
    const io = {
      out: (t: string) => void out.push(t),
      err: (t: string) => void out.push(t),
      readStdin: async () => Buffer.alloc(0),
      env: {},
      cwd: process.cwd(),
      isTTY: false,
    };
    const code = await runCycleDemo(io, { keep: false });
    const text = out.join('');
    expect(text).not.toContain('✗');
    expect(code).toBe(0);
    expect(text).toContain('✓ the patch-only repair worker returned one unified diff, files_changed: []');
    expect(text).toContain('      +  rw [Nat.two_mul]\n');
    expect(text).toContain(
      '✓ the rollback restored Demo/Tower.lean byte for byte and it was never staged or committed',
    );
    const digests = [...text.matchAll(/sha256 (?:working file|git HEAD {4}) ([0-9a-f]{64})/g)].map(
      (m) => m[1],
    );
    expect(digests).toHaveLength(2);
    expect(digests[0]).toBe(digests[1]);
    expect(text).toContain('(the temporary project is removed)');
  }, 240_000);
});

describe('an accepted deep pass through the engine', () => {
  it('a deep-marked stubborn target is proved by the deep worker, verified and checkpointed', async () => {
    const dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-deep-ok-')));
    try {
      await mkdir(join(dir, 'Demo'));
      await writeFile(
        join(dir, 'Demo/E.lean'),
        'theorem two (n : Nat) : n + n = 2 * n := by\n  sorry -- deep: omega\n',
      );
      const git = gitIn(dir);
      git('init', '-q');
      git('add', '-A');
      git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
      const r = await runProject({
        projectRoot: dir,
        flags: { target: 'Demo', scope: 'project', mode: 'autoprove', maxCycles: 6 },
        worker: { argv: [process.execPath, TS_WORKER] },
      });
      expect(r.context.log).toEqual(
        expect.arrayContaining([
          'deep: accepted on Demo/E.lean:2 (improved)',
          'verify (file-fast): Demo/E.lean:2 confirmed',
        ]),
      );
      expect(r.context.log.some((l) => l.startsWith('deep: rolled back'))).toBe(false);
      expect(r.handoff.status).toBe('solved');
      expect(git('log', '--format=%s').trim().split('\n')).toEqual([
        expect.stringMatching(/^checkpoint: cycle \d+: Demo\/E\.lean:2 solved$/),
        'init',
      ]);
      expect(git('show', 'HEAD:Demo/E.lean')).toBe(
        'theorem two (n : Nat) : n + n = 2 * n := by\n  have key : n + n = 2 * n := by\n    omega\n  exact key\n',
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});

// ── the example worker's roles, one dispatch at a time (real child process, real files) ──

const TOWER =
  '-- header comment\ntheorem tower_bound (n : Nat) (h : 4 ≤ n) : n ^ 2 ≤ 2 ^ n := by\n  sorry -- deep: regress\n';
const EASY_DEEP = 'theorem two (n : Nat) : n + n = 2 * n := by\n  sorry -- deep: omega\n';
const BROKEN =
  'theorem d (n : Nat) : 2 * n = n + n := by\n  rw [Nat.two_mull] -- repair: rw [Nat.two_mul] -- error: unknown constant\n\ntheorem t (n : Nat) : 3 * n = n + n + n := by\n  sorry -- hint: omega';

describe('the example worker per role', () => {
  let root: string;
  let scratch: string;
  beforeAll(async () => {
    root = await realpath(await mkdtemp(join(tmpdir(), 'handoff-roles-')));
    scratch = await realpath(await mkdtemp(join(tmpdir(), 'handoff-roles-scratch-')));
  });
  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(scratch, { recursive: true, force: true });
  });

  async function project(name: string, files: Record<string, string>): Promise<string> {
    const dir = join(root, name);
    for (const [p, text] of Object.entries(files)) {
      await mkdir(join(dir, p, '..'), { recursive: true });
      await writeFile(join(dir, p), text);
    }
    return dir;
  }

  function dispatch(
    dir: string,
    target: string,
    owned: string[],
    baseline: FileBaseline,
    role: 'deep' | 'repair',
  ): Dispatch {
    const parameters =
      role === 'deep'
        ? {
            fast_pass_error: '',
            permission_level: 'edit',
            deep_budget: { scope: 'target', max_files: 2, max_lines: 200 },
          }
        : {
            error: {
              errorType: 'unknown constant',
              message: 'unknown constant',
              file: 'Demo/B.lean',
              line: 2,
              goal: '',
              localContext: [],
            },
          };
    return {
      schema: 'run-contract/v1',
      record: 'dispatch',
      target,
      scope: 'sorry',
      mode: 'autoprove',
      worker: role === 'deep' ? 'sorry-filler-deep' : 'proof-repair',
      parameters,
      capabilities: ['marker-diagnostics'],
      owned_files: owned.map((f) => join(dir, f)),
      file_baseline: baseline,
      prior_blocker: null,
      evidence_delta: [],
      budget: { max_cycles: 4, max_stuck_cycles: 2, runtime: null },
      context: emptyContext(scratch),
    };
  }

  function runWorker(dir: string, d: unknown): { handoff: Handoff; progress: Record<string, unknown>[] } {
    const p = spawnSync(process.execPath, [TS_WORKER], {
      cwd: dir,
      input: JSON.stringify(d),
      encoding: 'utf8',
      env: { ...process.env, HANDOFF_PROJECT_ROOT: dir },
    });
    const lines = p.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const v = validateHandoff(lines.at(-1));
    if (!v.ok) throw new Error(`invalid handoff: ${JSON.stringify(v.issues)} (stderr ${p.stderr})`);
    return { handoff: v.value, progress: lines.slice(0, -1) };
  }

  it('deep regress: splits the proof into two open helpers (one sorry → two) and advances custody', async () => {
    const dir = await project('regress', { 'Demo/T.lean': TOWER });
    const file = join(dir, 'Demo/T.lean');
    const d = dispatch(dir, 'Demo/T.lean:3', ['Demo/T.lean'], await recordBaseline([file]), 'deep');
    const { handoff } = runWorker(dir, d);
    const after = await readFile(file, 'utf8');
    expect(after).toBe(
      [
        '-- header comment',
        'theorem tower_bound_step₁ (n : Nat) (h : 4 ≤ n) : n ^ 2 ≤ 2 ^ n := by',
        '  sorry -- split off by the deep pass',
        'theorem tower_bound_step₂ (n : Nat) (h : 4 ≤ n) : n ^ 2 ≤ 2 ^ n := by',
        '  sorry -- split off by the deep pass',
        'theorem tower_bound (n : Nat) (h : 4 ≤ n) : n ^ 2 ≤ 2 ^ n := by',
        '  have := tower_bound_step₁ n h',
        '  exact tower_bound_step₂ n h',
        '',
      ].join('\n'),
    );
    expect(handoff).toMatchObject({
      status: 'stuck',
      files_changed: [file],
      blocker_class: 'needs-helper-lemma',
    });
    expect(handoff.file_baseline).toEqual(await recordBaseline([file]));
  });

  it('deep TACTIC: an accepted deep pass proves the target through a multi-line helper', async () => {
    const dir = await project('accepted', { 'E.lean': EASY_DEEP });
    const file = join(dir, 'E.lean');
    const d = dispatch(dir, 'E.lean:2', ['E.lean'], await recordBaseline([file]), 'deep');
    const { handoff } = runWorker(dir, d);
    expect(await readFile(file, 'utf8')).toBe(
      'theorem two (n : Nat) : n + n = 2 * n := by\n  have key : n + n = 2 * n := by\n    omega\n  exact key\n',
    );
    expect(handoff).toMatchObject({ status: 'solved', files_changed: [file] });
  });

  it('a fill pass on a deep-marked target is stuck as before (deep needs the deep worker)', async () => {
    const dir = await project('fill', { 'E.lean': EASY_DEEP });
    const file = join(dir, 'E.lean');
    const d = {
      ...dispatch(dir, 'E.lean:2', ['E.lean'], await recordBaseline([file]), 'deep'),
      worker: null,
      parameters: {},
    };
    const { handoff } = runWorker(dir, d);
    expect(handoff).toMatchObject({
      status: 'stuck',
      blocker_class: 'missing-library-lemma',
      files_changed: [],
    });
    expect(await readFile(file, 'utf8')).toBe(EASY_DEEP);
  });

  it('proof-repair: a diff in artifacts, no edit, the parent baseline; the runtime applier accepts it', async () => {
    const dir = await project('repair', { 'Demo/B.lean': BROKEN });
    const file = join(dir, 'Demo/B.lean');
    const baseline = await recordBaseline([file]);
    const d = dispatch(dir, 'Demo/B.lean:5', ['Demo/B.lean'], baseline, 'repair');
    const { handoff } = runWorker(dir, d);
    expect(await readFile(file, 'utf8')).toBe(BROKEN);
    expect(handoff.files_changed).toEqual([]);
    expect(handoff.file_baseline).toEqual(baseline);
    expect(handoff.artifacts).toHaveLength(1);
    const diff = handoff.artifacts[0]?.content ?? '';
    // the file has no final newline: the diff says so, and the exact applier takes it
    expect(diff).toContain('\\ No newline at end of file');
    const applied = await applyPatchUnderCustody({
      projectRoot: dir,
      patch: diff,
      allowed: ['Demo/B.lean'],
      baseline,
    });
    expect(applied.kind).toBe('applied');
    expect(await readFile(file, 'utf8')).toBe(
      BROKEN.replace(/ {2}rw \[Nat\.two_mull\].*\n/, '  rw [Nat.two_mul]\n'),
    );
  });

  it('proof-repair checks custody first: a stale baseline gets no diff', async () => {
    const dir = await project('stale', { 'Demo/B.lean': BROKEN });
    const file = join(dir, 'Demo/B.lean');
    const baseline = await recordBaseline([file]);
    await writeFile(file, `${BROKEN}\n-- edited after the baseline\n`);
    const { handoff } = runWorker(dir, dispatch(dir, 'Demo/B.lean:5', ['Demo/B.lean'], baseline, 'repair'));
    expect(handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error', artifacts: [] });
    expect(handoff.stop_detail).toMatch(/^baseline check failed before editing: /);
  });

  it('hostile dispatch: a target outside the owned files is refused and nothing is written', async () => {
    const dir = await project('hostile', { 'Demo/T.lean': TOWER, 'Other.lean': TOWER });
    const file = join(dir, 'Demo/T.lean');
    const d = dispatch(dir, 'Other.lean:3', ['Demo/T.lean'], await recordBaseline([file]), 'deep');
    const { handoff } = runWorker(dir, d);
    expect(handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(await readFile(join(dir, 'Other.lean'), 'utf8')).toBe(TOWER);
    expect(await readFile(file, 'utf8')).toBe(TOWER);
  });
});

// ── hostile worker output reaching the demo printer (pure helpers of src/cli/demo-cycle.ts) ──

describe('the demo printer against hostile worker output', () => {
  const d: Pick<Dispatch, 'target' | 'scope' | 'mode' | 'owned_files' | 'file_baseline'> = {
    target: 'A.lean:2',
    scope: 'sorry',
    mode: 'autoprove',
    owned_files: ['/p/A.lean'],
    file_baseline: { schema: 'file-baseline/v1', files: [] },
  };
  const DIFF = '--- a/A.lean\n+++ b/A.lean\n@@ -1 +1 @@\n-x\n+y\n';

  it('only a patch-only handoff with one diff naming the file counts as the repair diff', async () => {
    const { repairDiffOf } = await demoCycle();
    const edited = handoffFor(d, {
      files_changed: ['/p/A.lean'],
      artifacts: [{ kind: 'unified-diff', content: DIFF }],
    });
    const twice = handoffFor(d, {
      artifacts: [
        { kind: 'unified-diff', content: DIFF },
        { kind: 'unified-diff', content: DIFF },
      ],
    });
    const elsewhere = handoffFor(d, {
      artifacts: [{ kind: 'unified-diff', content: DIFF.replace(/A\.lean/g, 'B.lean') }],
    });
    const forged = handoffFor(d, {
      artifacts: [
        {
          kind: 'unified-diff',
          content: `note: --- a/A.lean\n+++ b/A.lean\n${DIFF.split('\n').slice(2).join('\n')}`,
        },
      ],
    });
    expect(repairDiffOf([edited, twice, elsewhere, forged], 'A.lean')).toBeNull();
    const good = handoffFor(d, { artifacts: [{ kind: 'unified-diff', content: DIFF }] });
    expect(repairDiffOf([edited, good], 'A.lean')).toBe(DIFF);
  });

  it('endedOnBlocker: stuck, or stopped on max-stuck, with the blocker fields; nothing else', async () => {
    const { endedOnBlocker } = await demoCycle();
    const entry = { path: '/p/A.lean', realpath: '/p/A.lean', exists: true, sha256: 'a'.repeat(64), size: 1 };
    const dv = { ...d, file_baseline: { schema: 'file-baseline/v1' as const, files: [entry] } };
    const blocker = {
      blocker_kind: 'proof' as const,
      blocker_class: 'missing-library-lemma' as const,
      blocker_signature: 'A.lean:2:missing library lemma',
      new_evidence_required_for_rerun: 'a lemma',
      next_action: 'stop' as const,
    };
    expect(endedOnBlocker(handoffFor(dv, { status: 'stuck', ...blocker }))).toBe(true);
    expect(endedOnBlocker(handoffFor(dv, { status: 'stopped', stop_reason: 'max-stuck', ...blocker }))).toBe(
      true,
    );
    expect(endedOnBlocker(handoffFor(dv))).toBe(false);
    expect(endedOnBlocker(handoffFor(dv, { status: 'stopped', stop_reason: 'max-cycles', ...blocker }))).toBe(
      false,
    );
    // a worker-shaped record claiming stuck without its blocker fields is no blocker handoff
    expect(endedOnBlocker(handoffFor(dv, { status: 'stuck', ...blocker, blocker_signature: null }))).toBe(
      false,
    );
  });

  it('log lines quoting a worker string are escaped (no terminal control, no forged line)', async () => {
    const { escalationLines, diffBody } = await demoCycle();
    const hostile = 'repair: A.lean:2:\x1b[2J\x1b]0;pwned\x07 fixed\n  ✓ everything passed\u202e';
    const [line] = escalationLines(['work: A.lean:2 → stuck', hostile], 'repair');
    expect(line).toBe(
      'repair: A.lean:2:\\u001b[2J\\u001b]0;pwned\\u0007 fixed\\u000a  ✓ everything passed\\u202e',
    );
    expect(line).not.toMatch(/[\u0000-\u001f\u007f-\u009f\u202e]/);
    // a diff's hunk body is read from its hunks only: headers and free text are not body lines
    expect(diffBody(`${DIFF}trailing text\n`)).toEqual(['-x', '+y']);
    expect(diffBody('free text\n-not a hunk\n')).toEqual([]);
  });
});
