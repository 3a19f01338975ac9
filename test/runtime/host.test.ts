import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, emptyEvidence, type Handoff, handoffFor } from '../../src/contract/index.js';
import { HandoffError } from '../../src/errors/index.js';
import { createDelegatingWorker } from '../../src/runtime/delegating-worker.js';
import { git } from '../../src/runtime/git-checkpointer.js';
import { createMarkerDiagnostics } from '../../src/runtime/marker-diagnostics.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import type { DiagnosticsPort } from '../../src/runtime/ports.js';
import { runProject } from '../../src/runtime/project-run.js';
import { roleWorkerInput } from '../helpers/role-project.js';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-host-'));
  await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

function handoff(d: Dispatch, over: Partial<Handoff> = {}): Handoff {
  return handoffFor(d, over);
}

async function solve(d: Dispatch): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoff(d, { files_changed: [f], file_baseline: b }) };
}

let t = 0;
const clock = () => (t += 1000);

/** The target of the delegating-worker cases (their input: `roleWorkerInput(dir, A2)`). */
const A2 = { file: 'A.lean', line: 2, goal: 'sorry' };

describe('runProject with in-process workers', () => {
  it('solves, commits a checkpoint, and reports a deterministic run id', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solve },
      runId: 'run-test-1',
      clock,
    });
    expect(r.runId).toBe('run-test-1');
    expect(r.handoff.status).toBe('solved');
    expect(r.context.checkpoints).toHaveLength(1);
    expect(execFileSync('git', ['log', '--format=%s', '-1'], { cwd: dir, encoding: 'utf8' })).toMatch(
      /^checkpoint: cycle 1: A\.lean:2 solved/,
    );
  });

  it('a permission denial aborts delegation and falls back to the inline worker', async () => {
    let delegated = 0;
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: {
        inProcess: async (d) => {
          delegated++;
          return {
            handoff: handoff(d, {
              status: 'stopped',
              stop_reason: 'operational-error',
              stop_detail: 'permission denied: Edit',
              next_action: 'stop',
            }),
          };
        },
      },
      inlineWorker: solve,
      clock,
    });
    expect(delegated).toBe(1);
    expect(r.handoff.status).toBe('solved');
    expect(r.context.log).toContain('work: permission denied — delegation aborted, continuing inline');
  });

  it('--commit=never leaves changes in the working tree; a thrown worker is an operational stop', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: { inProcess: solve },
      clock,
    });
    expect(r.handoff.status).toBe('solved');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim()).toBe('init');
    await writeFile(join(dir, 'A.lean'), 'x := sorry\n');
    const bad = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: {
        inProcess: async () => {
          throw new Error('boom');
        },
      },
      clock,
    });
    expect(bad.handoff).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
    expect(bad.handoff.stop_detail).toMatch(/in-process worker threw: boom/);
  });

  it('refuses to start checkpoints outside git, and never runs a blocked git command', async () => {
    const plain = await mkdtemp(join(tmpdir(), 'handoff-nogit-'));
    try {
      await writeFile(join(plain, 'A.lean'), 'sorry\n');
      await expect(
        runProject({
          projectRoot: plain,
          flags: { target: '.', scope: 'project', mode: 'autoprove' },
          worker: { inProcess: solve },
        }),
      ).rejects.toMatchObject({ code: 'usage' });
    } finally {
      await rm(plain, { recursive: true, force: true });
    }
    await expect(git(dir, ['push'])).rejects.toMatchObject({ code: 'blocked_git' });
    await expect(git(dir, ['commit', '--amend', '-m', 'x'])).rejects.toMatchObject({ code: 'blocked_git' });
  });

  it('reports worker progress to the display hook and the persistence controller, in order', async () => {
    const seen: string[] = [];
    const recorder = await createPersistRecorder({
      projectRoot: dir,
      clock: () => new Date(Date.UTC(2026, 10, 30)),
    });
    try {
      const r = await runProject({
        projectRoot: dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove' },
        worker: {
          inProcess: async (d) => {
            const done = await solve(d);
            return {
              ...done,
              progress: [
                { schema: 'run-persist-progress/v1', attempted_tools: ['probe-tool'] },
                {
                  schema: 'run-persist-progress/v1',
                  files_changed: done.handoff.files_changed,
                  file_baseline: done.handoff.file_baseline,
                },
              ],
            };
          },
        },
        recorder,
        onWorkerProgress: (p, d) =>
          seen.push(`${d.target} ${JSON.stringify(p.attempted_tools ?? p.files_changed)}`),
        clock,
      });
      expect(r.handoff.status).toBe('solved');
      expect(seen).toEqual([`A.lean:2 ["probe-tool"]`, `A.lean:2 ${JSON.stringify([join(dir, 'A.lean')])}`]);
      // the controller absorbed the progress as parent knowledge (the handoff never named the tool)
      const status = (await recorder.status()) as unknown as { accumulated: { attempted_tools: string[] } };
      expect(status.accumulated.attempted_tools).toContain('probe-tool');
    } finally {
      await recorder.dispose();
    }
  });

  it('asks diagnostics the lightest tier per question: file-deps only when the edit changed imports', async () => {
    const asked: string[] = [];
    const marker = createMarkerDiagnostics({ projectRoot: dir, target: '.', scope: 'project' });
    const diag: DiagnosticsPort = {
      diagnose: async (i) => {
        asked.push(`${i.question}:${i.tier}`);
        return marker.diagnose(i);
      },
    };
    const importing = async (d: Dispatch) => {
      const f = d.owned_files[0] as string;
      await writeFile(f, `import Std\n${(await readFile(f, 'utf8')).replace('sorry', 'rfl')}`);
      const b = await advanceBaseline(d.file_baseline, [f]);
      return { handoff: handoff(d, { files_changed: [f], file_baseline: b }) };
    };
    const run = (inProcess: typeof solve) =>
      runProject({
        projectRoot: dir,
        flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
        worker: { inProcess },
        diagnostics: diag,
        clock,
        // proof work may change imports only with the grant (docs/fence.md)
        fenceGrants: ['fence:imports'],
      });
    expect((await run(solve)).handoff.status).toBe('solved');
    expect(asked).toEqual([
      'discover:file-fast',
      'discover:file-fast',
      'edit:file-fast',
      'checkpoint:project',
      'discover:file-fast',
    ]);
    await writeFile(join(dir, 'A.lean'), 'theorem a : 1 = 1 := by\n  sorry\n');
    asked.length = 0;
    const r = await run(importing);
    expect(r.handoff.status).toBe('solved');
    expect(asked).toContain('edit:file-deps');
    expect(asked).not.toContain('edit:file-fast');
    expect(r.context.log).toContain('verify (file-deps): A.lean:2 confirmed');
  });

  it('a solved claim the diagnostics contradict counts as a failed attempt', async () => {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never', maxCycles: 2 },
      worker: { inProcess: async (d) => ({ handoff: handoff(d) }) },
      clock,
    });
    expect(r.context.log).toContain('verify (file-fast): A.lean:2 not confirmed — A.lean:2 still open');
    expect(r.context.attempts['A.lean:2']?.map((a) => a.solved)).toEqual([false, false]);
    expect(r.handoff.status).not.toBe('solved');
  });

  it("grants searches from the tracker's budget and the fallback only after 2 inconclusive searches", async () => {
    const caps: string[][] = [];
    let n = 0;
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never', maxCycles: 3 },
      worker: {
        inProcess: async (d) => {
          caps.push(d.capabilities);
          n++;
          return {
            handoff: handoff(d, {
              status: 'stuck',
              blocker_kind: 'proof',
              blocker_class: 'arithmetic',
              blocker_signature: `A.lean:2:e${n}`,
              // two empty searches first; then the granted fallback (no LSP search left to run)
              attempted_tools: n === 1 ? ['lsp-search'] : ['fallback:smart-search'],
              evidence: {
                ...emptyEvidence(),
                queries: n === 1 ? ['q1', 'q2'] : [],
                attempts: [{ snippet: `s${n}`, result: 'fail' }],
              },
              next_action: 'stop',
              new_evidence_required_for_rerun: 'x',
            }),
          };
        },
      },
      clock,
    });
    expect(caps).toEqual([
      ['marker-diagnostics', 'search-budget:2'],
      ['marker-diagnostics', 'search-budget:2', 'search-fallback'],
      ['marker-diagnostics', 'search-budget:2', 'search-fallback'],
    ]);
    expect(r.handoff.stop_reason).toBe('max-cycles');
  });

  it('a fallback before the gate opened, or searches past the budget, stop the run as a protocol error', async () => {
    const stuckWith = (queries: string[], tools: string[]) => async (d: Dispatch) => ({
      handoff: handoff(d, {
        status: 'stuck',
        blocker_kind: 'proof',
        blocker_class: 'arithmetic',
        blocker_signature: 'A.lean:2:x',
        attempted_tools: tools,
        evidence: { ...emptyEvidence(), queries },
        next_action: 'stop',
        new_evidence_required_for_rerun: 'x',
      }),
    });
    const early = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: { inProcess: stuckWith(['q'], ['fallback:smart-search']) },
      clock,
    });
    expect(early.handoff).toMatchObject({ status: 'stopped', stop_reason: 'protocol-error' });
    expect(early.handoff.stop_detail).toMatch(
      /search budget: script fallback .* before the fallback gate opened/,
    );
    const greedy = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove', commit: 'never' },
      worker: { inProcess: stuckWith(['a', 'b', 'c'], ['lsp']) },
      clock,
    });
    expect(greedy.handoff.stop_detail).toMatch(/ran 3 searches; its search budget was 2/);
  });

  it('a progress refusal while the worker still runs becomes a protocol error, never an unhandled rejection', async () => {
    const worker = createDelegatingWorker({
      projectRoot: dir,
      scratch: dir,
      transport: {
        async run(d, _signal, onProgress) {
          onProgress?.({ schema: 'run-persist-progress/v1', files_changed: ['/elsewhere'] });
          onProgress?.({ schema: 'run-persist-progress/v1', attempted_tools: ['later'] });
          await new Promise((r) => setTimeout(r, 30)); // the refusal lands while the worker runs
          return { kind: 'output', progress: [], handoff: handoff(d) };
        },
      },
      onProgress: async (p) => {
        if (p.files_changed) throw new HandoffError('invalid_progress', 'progress_outside_ownership');
        throw new Error('a line after the refusal must not be submitted');
      },
    });
    const out = await worker.work(await roleWorkerInput(dir, A2), new AbortController().signal);
    expect(out).toMatchObject({ kind: 'protocol-error' });
    expect((out as { detail: string }).detail).toBe('worker progress rejected: progress_outside_ownership');
  });

  it('a progress sink failing otherwise ends the run, and what the worker wrote to owned files and git is put back', async () => {
    const file = join(dir, 'A.lean');
    const original = await readFile(file, 'utf8');
    const config = join(dir, '.git', 'config');
    const configBefore = await readFile(config, 'utf8');
    const worker = createDelegatingWorker({
      projectRoot: dir,
      scratch: dir,
      transport: {
        async run(d, _signal, onProgress) {
          await writeFile(file, original.replace('sorry', 'rfl'));
          await writeFile(config, `${configBefore}[core]\n\thooksPath = /tmp/evil\n`);
          onProgress?.({ schema: 'run-persist-progress/v1', attempted_tools: ['x'] });
          return { kind: 'output', progress: [], handoff: handoff(d) };
        },
      },
      onProgress: async () => {
        throw new HandoffError('persist_stop', 'the state file is unwritable');
      },
    });
    await expect(
      worker.work(await roleWorkerInput(dir, A2), new AbortController().signal),
    ).rejects.toMatchObject({ code: 'persist_stop' });
    expect(await readFile(file, 'utf8')).toBe(original);
    expect(await readFile(config, 'utf8')).toBe(configBefore);
  });
});
