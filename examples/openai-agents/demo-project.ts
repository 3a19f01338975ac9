/**
 * The example's project: two source files with a `TODO(agent)` marker and a README, committed to
 * a fresh git repository.
 */
import { execFileSync } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * The marker the sub-agent replaces.
 *
 * @example
 * ```ts
 * `export const greeting = '${MARKER}';`;
 * ```
 */
export const MARKER = 'TODO(agent)';

/**
 * Writes the demo project into `dir` (which must exist) and commits it.
 *
 * @example
 * ```ts
 * await createDemoProject('/tmp/app');
 * ```
 */
export async function createDemoProject(dir: string): Promise<void> {
  await mkdir(join(dir, 'src'), { recursive: true });
  await writeFile(join(dir, 'src', 'greeting.ts'), `export const greeting = '${MARKER}';\n`);
  await writeFile(join(dir, 'src', 'farewell.ts'), `export const farewell = '${MARKER}';\n`);
  await writeFile(join(dir, 'README.md'), 'A demo project for handoff-runtime/openai-agents.\n');
  const git = (args: readonly string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
  git(['init', '-q']);
  git(['add', '-A']);
  git([
    '-c',
    'user.name=demo',
    '-c',
    'user.email=demo@example.invalid',
    'commit',
    '-q',
    '-m',
    'demo project',
  ]);
}
