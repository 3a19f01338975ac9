/**
 * `--batch-size N` end to end (issue 13 § delegation policy): `runProject` autoprove on a temp git
 * project with in-process workers. A batch works several targets per cycle (fewer cycles, every
 * target solved and checkpointed), two targets of one file never run at the same time (a worker
 * that counts simultaneously active calls per file), `batchSize: 1` dispatches one target at a
 * time, and a hostile sibling writing the primary's file stops the run on custody. Plus the pure
 * rules: which targets join a batch and how a batch outcome is absorbed.
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { batchTargets, checkpointInput, verifyRequest, workerInput } from '../../src/cycle/actor-inputs.js';
import type { CycleContext, TargetInfo, WorkOutcome } from '../../src/cycle/types.js';
import { absorbVerify, absorbWork } from '../../src/cycle/work-reducers.js';
import { runProject } from '../../src/runtime/project-run.js';
import { workDispatch } from '../../src/runtime/run-cycle.js';
import { cycleContext, handoffOutcome, T1, workerHandoff } from './fixture.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-batch-run-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function project(files: Record<string, string>): Promise<void> {
  for (const [f, text] of Object.entries(files)) await writeFile(join(dir, f), text);
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let t = 0;
const clock = () => (t += 1000);

/** Solves the dispatch's first `sorry` (after `delayMs`), reporting its owned file. */
async function solve(d: Dispatch, delayMs = 0): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  if (delayMs > 0) await sleep(delayMs);
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

const commits = () =>
  execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');

const THREE = {
  'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n',
  'B.lean': 'theorem b : 2 = 2 := by\n  sorry\n',
  'C.lean': 'theorem c : 3 = 3 := by\n  sorry\n',
};

describe('runProject with --batch-size', () => {
  it('batchSize 2 solves three targets in three files in fewer cycles than batchSize 1, all checkpointed', async () => {
    await project(THREE);
    const targets: string[][] = [];
    const two = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', batchSize: 2, maxCycles: 6 },
      worker: {
        inProcess: async (d) => {
          targets.push([d.target]);
          return solve(d, 50);
        },
      },
      clock,
    });
    expect(two.handoff.status).toBe('solved');
    expect(two.context.tracker.cycles).toBe(2);
    for (const f of Object.keys(THREE)) expect(await readFile(join(dir, f), 'utf8')).not.toMatch(/sorry/);
    // every solved file was committed by a checkpoint (nothing left in the working tree)
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('');
    expect(commits().filter((c) => c.startsWith('checkpoint:'))).toHaveLength(2);
    expect(targets.flat().sort()).toEqual(['A.lean:2', 'B.lean:2', 'C.lean:2']);
    expect(two.context.log.filter((l) => l.startsWith('work: '))).toEqual([
      'work: A.lean:2 → solved',
      'work: B.lean:2 → solved',
      'work: C.lean:2 → solved',
    ]);

    // the same project with batchSize 1: one target per cycle, exactly as before batches
    await rm(dir, { recursive: true, force: true });
    dir = await realpath(await mkdtemp(join(tmpdir(), 'handoff-batch-run-')));
    await project(THREE);
    let active = 0;
    let maxActive = 0;
    const one = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', batchSize: 1, maxCycles: 6 },
      worker: {
        inProcess: async (d) => {
          active++;
          maxActive = Math.max(maxActive, active);
          try {
            return await solve(d, 20);
          } finally {
            active--;
          }
        },
      },
      clock,
    });
    expect(one.handoff.status).toBe('solved');
    expect(one.context.tracker.cycles).toBe(3);
    expect(maxActive).toBe(1);
    expect(commits().filter((c) => c.startsWith('checkpoint:'))).toHaveLength(3);
  });

  it('two targets of the same file never run at the same time; disjoint files do', async () => {
    await project({
      'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n\ntheorem a2 : 2 = 2 := by\n  sorry\n',
      'B.lean': 'theorem b : 3 = 3 := by\n  sorry\n',
    });
    const activePerFile = new Map<string, number>();
    let active = 0;
    let maxActive = 0;
    let maxPerFile = 0;
    const r = await runProject({
      projectRoot: dir,
      flags: {
        target: '.',
        scope: 'project',
        mode: 'autoprove',
        batchSize: 3,
        maxDelegates: 3,
        maxCycles: 6,
      },
      worker: {
        inProcess: async (d) => {
          const f = d.owned_files[0] as string;
          activePerFile.set(f, (activePerFile.get(f) ?? 0) + 1);
          active++;
          maxActive = Math.max(maxActive, active);
          maxPerFile = Math.max(maxPerFile, activePerFile.get(f) ?? 0);
          try {
            return await solve(d, 150);
          } finally {
            active--;
            activePerFile.set(f, (activePerFile.get(f) ?? 1) - 1);
          }
        },
      },
      clock,
    });
    expect(r.handoff.status).toBe('solved');
    expect(maxPerFile).toBe(1);
    expect(maxActive).toBe(2); // A.lean and B.lean did run concurrently
    expect(await readFile(join(dir, 'A.lean'), 'utf8')).not.toMatch(/sorry/);
  });

  it('a hostile sibling that writes the primary file stops the run on custody', async () => {
    await project(THREE);
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', batchSize: 2, maxCycles: 6 },
      worker: {
        inProcess: async (d) => {
          if (d.target.startsWith('B.lean')) {
            const done = await solve(d);
            // after the primary's handoff was checked: only a batch-wide check can see this
            await sleep(300);
            await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  hijacked\n');
            return done;
          }
          return solve(d, 50);
        },
      },
      clock,
    });
    expect(r.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(r.handoff.stop_detail).toMatch(
      /custody violation: batch: .*A\.lean changed after the handoff of A\.lean:2/,
    );
    expect(commits().filter((c) => c.startsWith('checkpoint:'))).toHaveLength(0);
  });
});

const target = (file: string, line: number): TargetInfo => ({
  id: `${file}:${line}`,
  file,
  line,
  goal: 'sorry',
});

describe('batch rules (pure)', () => {
  it('batchTargets skips the current file, refused, blocked and already-attempted targets, and honours the size', async () => {
    const a1 = target('A.lean', 2);
    const a2 = target('A.lean', 5);
    const b = target('B.lean', 2);
    const c = target('C.lean', 2);
    const d = target('D.lean', 2);
    const ctx = {
      current: a1,
      targets: [a1, a2, b, c, d],
      plan: [],
      blocked: { 'C.lean:2': {} as Handoff },
      refused: ['D.lean:2'],
      attempts: {},
      options: { batchSize: 3 },
      delegation: 'delegate',
    } as unknown as CycleContext;
    expect(batchTargets(ctx).map((x) => x.id)).toEqual(['B.lean:2']);
    expect(batchTargets({ ...ctx, blocked: {}, refused: [] }).map((x) => x.id)).toEqual([
      'B.lean:2',
      'C.lean:2',
    ]);
    // a target with an attempt runs only as the primary (the stuck rules judge it there)
    const tried = {
      'B.lean:2': [{ cycle: 1, solved: false, signature: 'B.lean:2:x', snippets: [], emptySearch: false }],
    };
    expect(batchTargets({ ...ctx, blocked: {}, refused: [], attempts: tried }).map((x) => x.id)).toEqual([
      'C.lean:2',
      'D.lean:2',
    ]);
    expect(batchTargets({ ...ctx, options: { ...ctx.options, batchSize: 1 } })).toEqual([]);
    expect(batchTargets({ ...ctx, delegation: 'inline' })).toEqual([]);
  });

  it('workerInput carries full sibling inputs only with batchSize > 1', () => {
    const b = target('B.lean', 2);
    const a2 = target('A.lean', 5);
    const one = cycleContext({ targets: [T1, a2, b] }, { batchSize: 1 });
    expect(workerInput(one).batch).toBeUndefined();
    expect('maxDelegates' in workerInput(one)).toBe(false);
    const two = cycleContext({ targets: [T1, a2, b] }, { batchSize: 2, maxDelegates: 2 });
    const w = workerInput(two);
    expect(w.target.id).toBe('A.lean:2');
    expect(w.maxDelegates).toBe(2);
    expect(w.batch?.map((i) => i.target.id)).toEqual(['B.lean:2']);
    // the sibling's input is built like the primary's, for its own target
    const { target: _t, batch: _b, maxDelegates: _m, ...rest } = w;
    const { target: st, trivial: _tr, preflight: _p, ...srest } = (w.batch ?? [])[0] as typeof w;
    const { trivial: _tr2, preflight: _p2, ...prest } = rest;
    expect(st).toEqual(b);
    expect(srest).toEqual(prest);
  });

  it('absorbWork absorbs each sibling handoff for its own target; a stuck sibling is an attempt, not a blocker', () => {
    const b = target('B.lean', 2);
    const c = target('C.lean', 2);
    const ctx = cycleContext({ targets: [T1, b, c] }, { batchSize: 3 });
    // a sibling is attributed by its dispatch (the runtime's record), never by the worker's echo
    const forTarget = (o: WorkOutcome, id: string): WorkOutcome =>
      o.kind === 'handoff' ? { ...o, dispatch: { ...o.dispatch, target: id } } : o;
    const solvedB = forTarget(
      handoffOutcome(workerHandoff('solved', { target: 'A.lean:2', files_changed: ['/p/B.lean'] }), {
        accepted: ['/p/B.lean'],
      }),
      b.id,
    );
    const stuckC = forTarget(
      handoffOutcome(workerHandoff('stuck', { target: c.id, blocker_signature: 'C.lean:2:omega failed' })),
      c.id,
    );
    const primary = handoffOutcome(workerHandoff('solved'), { batch: [solvedB, stuckC] });
    const u = absorbWork(ctx, primary);
    expect(u.lastWork).toBe(primary);
    expect(u.accepted).toEqual(['/p/A.lean', '/p/B.lean']);
    expect(u.filesChanged).toEqual(['/p/A.lean', '/p/B.lean']);
    expect(u.attempts?.['A.lean:2']?.map((a) => a.solved)).toEqual([true]);
    expect(u.attempts?.['B.lean:2']?.map((a) => a.solved)).toEqual([true]);
    expect(u.attempts?.['C.lean:2']?.map((a) => a.signature)).toEqual(['C.lean:2:omega failed']);
    // the stuck rules judge C.lean:2 when it next runs as the primary: no blocker yet
    expect(u.blocked).toEqual({});
    expect(u.handoffs).toHaveLength(3);
    expect(u.log?.slice(-3)).toEqual([
      'work: A.lean:2 → solved',
      'work: B.lean:2 → solved',
      'work: C.lean:2 → stuck',
    ]);
    // siblings with an attempt are never taken into the next batch
    expect(batchTargets({ ...ctx, ...u, current: T1 } as CycleContext).map((x) => x.id)).toEqual([]);
    // without a batch, absorbWork is what it was
    const plain = absorbWork(ctx, handoffOutcome(workerHandoff('solved')));
    expect(plain.handoffs).toHaveLength(1);
    expect(plain.blocked).toEqual({});
  });
});

describe('a batch sibling that claims solved without an edit', () => {
  it('is verified against its own file: still open there, its claim is downgraded, never "confirmed"', () => {
    const b = target('B.lean', 2);
    const ctx = cycleContext({ targets: [T1, b] }, { batchSize: 2 });
    // B's worker changed nothing and claims solved; only A.lean was edited
    const sib = handoffOutcome(workerHandoff('solved', { target: b.id, files_changed: [] }), {
      accepted: [],
    });
    const sibling: WorkOutcome =
      sib.kind === 'handoff' ? { ...sib, dispatch: { ...sib.dispatch, target: b.id } } : sib;
    const primary = handoffOutcome(workerHandoff('solved'), { batch: [sibling] });
    const c = { ...ctx, ...absorbWork(ctx, primary) } as CycleContext;
    // the edit check reads B.lean too (without it B.lean is not scanned and its target reads as gone)
    const req = verifyRequest(c);
    expect(req.files).toContain('B.lean');
    const u = absorbVerify(c, { now: 1, tier: 'file-fast', targets: [b], errors: [], ok: true });
    expect(u.attempts?.[b.id]?.at(-1)).toMatchObject({ solved: false, signature: 'B.lean:2:not verified' });
    expect(u.log).toContain('verify (file-fast): B.lean:2 not confirmed — B.lean:2 still open');
    expect(u.log).toContain('verify (file-fast): A.lean:2 confirmed');
  });
});

describe('a batch whose primary was refused', () => {
  it('absorbs the siblings: files and baseline in custody, a solved claim not verified', () => {
    const b = target('B.lean', 2);
    const ctx = cycleContext({ targets: [T1, b] }, { batchSize: 2 });
    const sib = handoffOutcome(workerHandoff('solved', { target: b.id, files_changed: ['/p/B.lean'] }), {
      accepted: ['/p/B.lean'],
    });
    const sibling: WorkOutcome =
      sib.kind === 'handoff' ? { ...sib, dispatch: { ...sib.dispatch, target: b.id } } : sib;
    const refused: WorkOutcome = {
      kind: 'fence-violation',
      now: 0,
      detail: 'header fence: A.lean: theorem t: statement changed',
      dispatch: null,
      batch: [sibling],
    };
    const u = absorbWork(ctx, refused);
    expect(u.lastWork).toBe(refused);
    expect(u.accepted).toEqual(['/p/B.lean']);
    expect(u.attempts?.['B.lean:2']).toEqual([
      expect.objectContaining({ solved: false, signature: 'B.lean:2:not verified' }),
    ]);
    expect(u.attempts?.['A.lean:2']).toBeUndefined(); // the refusal's own stuck marking follows
    // without a batch, a refusal is only recorded
    const { batch: _b, ...alone } = refused as WorkOutcome & { batch?: unknown };
    expect(absorbWork(ctx, alone as WorkOutcome)).toEqual({ lastWork: alone, now: 0 });
  });
});

describe('the checkpoint summary of a batch cycle', () => {
  const attempt = (cycle: number, solved: boolean) => ({
    cycle,
    solved,
    signature: solved ? null : 'x',
    snippets: [],
    emptySearch: false,
  });
  it('names the target by its verified outcome, then every other target worked this cycle', () => {
    const ctx = cycleContext({
      lastWork: handoffOutcome(workerHandoff('solved')),
      attempts: {
        'A.lean:2': [attempt(1, true)],
        'B.lean:2': [attempt(1, true)],
        'C.lean:2': [attempt(1, false)],
        'D.lean:2': [attempt(0, true)], // an earlier cycle: not named
      },
    });
    expect(checkpointInput(ctx).summary).toBe('cycle 1: A.lean:2 solved, B.lean:2 solved, C.lean:2 open');
    // a solved claim that verification downgraded is not reported solved
    const downgraded = { ...ctx, attempts: { 'A.lean:2': [attempt(1, false)] } };
    expect(checkpointInput(downgraded).summary).toBe('cycle 1: A.lean:2 not verified');
    // an applied repair diff: repaired, not solved
    const repair = handoffOutcome(
      workerHandoff('solved', { artifacts: [{ kind: 'unified-diff', content: '--- a/A.lean\n' }] }),
    );
    expect(checkpointInput({ ...downgraded, lastWork: repair }).summary).toBe('cycle 1: A.lean:2 repaired');
  });
});

describe('workDispatch (runtime batch wiring)', () => {
  it('a refused primary that does not end the run keeps its siblings; a run-ending one does not', async () => {
    const ok = (id: string): WorkOutcome =>
      ({
        kind: 'handoff',
        now: 0,
        handoff: { target: id, status: 'solved' },
        accepted: [],
        baseline: { schema: 'file-baseline/v1', files: [] },
      }) as never;
    const refusing = (kind: 'fence-violation' | 'protocol-error') => ({
      work: async (i: { target: TargetInfo }) =>
        i.target.id === 'A.lean:2'
          ? { kind, detail: 'header fence: t changed', dispatch: null }
          : ok(i.target.id),
    });
    const input = { target: target('A.lean', 2), batch: [{ target: target('B.lean', 2) }] } as never;
    const signal = new AbortController().signal;
    const fenced = await workDispatch(refusing('fence-violation') as never, input, signal, () => 7);
    expect(fenced.kind).toBe('fence-violation');
    expect(fenced.batch?.map((o) => (o.kind === 'handoff' ? [o.handoff.target, o.now] : o.kind))).toEqual([
      ['B.lean:2', 7],
    ]);
    const ended = await workDispatch(refusing('protocol-error') as never, input, signal, () => 7);
    expect(ended).toEqual({ kind: 'protocol-error', detail: 'header fence: t changed', dispatch: null });
  });

  it('runs a batch sequentially through a port without workBeside, and a sibling violation becomes the outcome', async () => {
    const calls: string[] = [];
    let active = 0;
    let maxActive = 0;
    const ok = (id: string): WorkOutcome =>
      ({
        kind: 'handoff',
        now: 0,
        handoff: { target: id, status: 'solved' },
        accepted: [],
        baseline: { schema: 'file-baseline/v1', files: [] },
      }) as never;
    const port = {
      work: async (i: { target: TargetInfo }) => {
        calls.push(i.target.id);
        active++;
        maxActive = Math.max(maxActive, active);
        await sleep(20);
        active--;
        if (i.target.id === 'C.lean:2')
          return { kind: 'custody-violation' as const, detail: 'wrote A.lean', dispatch: null };
        return ok(i.target.id);
      },
    };
    const input = (tt: TargetInfo) => ({ target: tt }) as never;
    const signal = new AbortController().signal;
    const out = await workDispatch(
      port as never,
      { ...(input(target('A.lean', 2)) as object), batch: [input(target('B.lean', 2))] } as never,
      signal,
      () => 7,
    );
    expect(out.kind).toBe('handoff');
    expect(out.kind === 'handoff' && out.batch?.map((o) => o.kind === 'handoff' && o.handoff.target)).toEqual(
      ['B.lean:2'],
    );
    expect(maxActive).toBe(1);
    const bad = await workDispatch(
      port as never,
      {
        ...(input(target('A.lean', 2)) as object),
        batch: [input(target('B.lean', 2)), input(target('C.lean', 2))],
      } as never,
      signal,
      () => 7,
    );
    expect(bad).toMatchObject({ kind: 'custody-violation', detail: 'batch sibling C.lean:2: wrote A.lean' });
    expect(calls).toEqual(['A.lean:2', 'B.lean:2', 'A.lean:2', 'B.lean:2', 'C.lean:2']);
    // a non-fill role never batches
    calls.length = 0;
    await workDispatch(
      port as never,
      {
        ...(input(target('A.lean', 2)) as object),
        role: 'deep',
        batch: [input(target('B.lean', 2))],
      } as never,
      signal,
      () => 7,
    );
    expect(calls).toEqual(['A.lean:2']);
  });
});
