/**
 * Helpers for the end-to-end runs: a temporary git project and paths of the workers.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Handoff, validateHandoff } from '../../src/contract/index.js';

export const TS_WORKER = fileURLToPath(
  new URL('../../dist/examples/workers/solver-worker.js', import.meta.url),
);
export const PY_WORKER = fileURLToPath(new URL('../../examples/workers/solver_worker.py', import.meta.url));
export const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));

/** Creates a git repository with `files` committed; returns its path and a cleanup. */
export async function gitProject(
  files: Record<string, string>,
): Promise<{ dir: string; cleanup: () => Promise<void> }> {
  const dir = await mkdtemp(join(tmpdir(), 'handoff-e2e-'));
  for (const [p, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, p)), { recursive: true });
    await writeFile(join(dir, p), text);
  }
  const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'pipe' });
  git('init', '-q');
  git('add', '-A');
  git('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', 'init');
  return { dir, cleanup: () => rm(dir, { recursive: true, force: true }) };
}

/**
 * Runs `body` in a fresh {@link gitProject} of `files`, removing it afterwards (also on failure).
 *
 * @example
 * ```ts
 * await withGitProject(EASY, async (p) => expect(gitLog(p.dir)).toEqual(['init']));
 * ```
 */
export async function withGitProject<T>(
  files: Record<string, string>,
  body: (p: { dir: string }) => Promise<T>,
): Promise<T> {
  const p = await gitProject(files);
  try {
    return await body(p);
  } finally {
    await p.cleanup();
  }
}

/** `git log --format=%s` lines. */
export function gitLog(dir: string): string[] {
  return execFileSync('git', ['log', '--format=%s'], { cwd: dir, encoding: 'utf8' }).trim().split('\n');
}

export const EASY = {
  'A.lean': 'theorem a : 1 = 1 := by\n  sorry -- hint: rfl\n',
  'B.lean':
    'theorem b : 2 = 2 := by\n  sorry -- hint: rfl\n\ntheorem c : True := by\n  sorry -- hint: trivial\n',
};
export const HARD = { 'H.lean': 'theorem h (n : Nat) : n ^ n ≥ 2 ^ n := by\n  sorry\n' };

/** The final handoff a `handoff run --json` printed, validated (throws with the issues otherwise). */
export function handoffOf(stdout: string): Handoff {
  const v = validateHandoff(JSON.parse(stdout) as unknown);
  if (!v.ok) throw new Error(`invalid final handoff: ${JSON.stringify(v.issues)}`);
  return v.value;
}

/** `handoff run` arguments for the whole project of `dir` with `worker` (a command line). */
export const runArgs = (dir: string, worker: string, ...more: string[]): string[] => [
  'run',
  '--project',
  dir,
  '--target',
  '.',
  '--scope',
  'project',
  '--mode',
  'autoprove',
  '--worker',
  worker,
  ...more,
];
