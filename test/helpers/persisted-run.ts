/**
 * A real persisted cycle run for the tests that read a run back (`handoff audit`, `handoff
 * inspect`): a git project with the given files (`.handoff/` ignored), `runProject` with an
 * in-process worker that replaces each owned file's `sorry` with `rfl`, and the persistence
 * recorder over the project's fs store (the cycle machine's trace recorded with every journal
 * write, as `handoff run --persist` does). The clock is fixed (one second per reading).
 */
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { advanceBaseline } from '../../src/baseline/index.js';
import { type Dispatch, type Handoff, handoffFor } from '../../src/contract/index.js';
import { createPersistRecorder } from '../../src/runtime/persist-recorder.js';
import { runProject } from '../../src/runtime/project-run.js';

/** Where a {@link persistedRun} left its project, store and run. */
export interface PersistedRun {
  /** The project directory (a git repository; remove it when done). */
  readonly dir: string;
  /** The run store's root (`<dir>/.handoff`). */
  readonly root: string;
  readonly runId: string;
  /** The final handoff's status. */
  readonly status: string;
}

/** The in-process worker: `sorry` → `rfl` in the first owned file, baseline advanced. */
export async function solveBySorryToRfl(d: Dispatch): Promise<{ handoff: Handoff }> {
  const f = d.owned_files[0] as string;
  await writeFile(f, (await readFile(f, 'utf8')).replace('sorry', 'rfl'));
  const b = await advanceBaseline(d.file_baseline, [f]);
  return { handoff: handoffFor(d, { files_changed: [f], file_baseline: b }) };
}

/**
 * Creates the project from `files` in a fresh temporary directory named after `prefix` and runs
 * it persisted to its end.
 *
 * @example
 * ```ts
 * const { dir, root, runId } = await persistedRun('handoff-audit-', { 'A.lean': 'theorem a : 1 = 1 := by\n  sorry\n' });
 * ```
 */
export async function persistedRun(
  prefix: string,
  files: Readonly<Record<string, string>>,
): Promise<PersistedRun> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text);
  await writeFile(join(dir, '.gitignore'), '.handoff/\n');
  execFileSync('git', ['init', '-q'], { cwd: dir });
  execFileSync('git', ['add', '-A'], { cwd: dir });
  execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init'], {
    cwd: dir,
  });
  const recorder = await createPersistRecorder({ projectRoot: dir });
  let t = Date.parse('2026-12-01T12:00:00Z');
  try {
    const r = await runProject({
      projectRoot: dir,
      flags: { target: '.', scope: 'project', mode: 'autoprove' },
      worker: { inProcess: solveBySorryToRfl },
      recorder,
      clock: () => (t += 1000),
    });
    return { dir, root: recorder.storageRoot, runId: r.runId, status: r.handoff.status };
  } finally {
    await recorder.dispose();
  }
}
