/**
 * A throwaway git project for the worker tests: `src/greeting.ts` with a `TODO(agent)` marker, a
 * Lean file with a `sorry` for the cycle runtime, and a README, committed.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, readFile, realpath, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const GREETING = "export const greeting = 'TODO(agent)';\n";
export const LEAN = 'theorem a : 1 = 1 := by\n  sorry\n';
export const README = 'A demo project.\n';

/** Creates and commits the project; resolves to its real path. */
export async function createProject(prefix: string): Promise<string> {
  const dir = await realpath(await mkdtemp(join(tmpdir(), prefix)));
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'greeting.ts'), GREETING);
  await writeFile(join(dir, 'A.lean'), LEAN);
  await writeFile(join(dir, 'README.md'), README);
  const git = (args: readonly string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git(['init', '-q']);
  git(['add', '-A']);
  git(['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', 'commit', '-q', '-m', 'init']);
  return dir;
}

/** Replaces `from` with `to` in `file` (what an Edit tool call does). */
export async function edit(file: string, from: string, to: string): Promise<void> {
  await writeFile(file, (await readFile(file, 'utf8')).replace(from, to));
}

/** The run directories of the file-system store under `dir/.handoff`. */
export async function runDirs(dir: string): Promise<string[]> {
  const entries = await readdir(join(dir, '.handoff'), { withFileTypes: true });
  return entries.filter((e) => e.isDirectory()).map((e) => join(dir, '.handoff', e.name));
}
