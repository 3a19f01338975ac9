/**
 * The git checkpointer (layer 3): stages only the accepted files and commits
 * `checkpoint: <summary>`; never creates an empty commit; never runs a blocked git command
 * (seed 002 § Safety). Git runs through execFile with argument arrays.
 */
import { execFile } from 'node:child_process';
import { relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { HandoffError } from '../errors/index.js';
import type { CheckpointerPort } from './ports.js';

const run = promisify(execFile);

/** Message of a skipped checkpoint (seed 002 § Checkpoint Logic). */
export const NO_CHANGES_MESSAGE = 'No changes this cycle — skipping checkpoint';

/**
 * True when `args` is one of the seed's blocked git commands: push, commit --amend,
 * checkout --, restore, reset --hard, clean (and `gh pr create` is never run by this runtime).
 *
 * @example
 * ```ts
 * isBlockedGit(['commit', '--amend']); // true
 * isBlockedGit(['commit', '-m', 'checkpoint: x']); // false
 * ```
 */
export function isBlockedGit(args: readonly string[]): boolean {
  const sub = args.find((a) => !a.startsWith('-') && !args[args.indexOf(a) - 1]?.startsWith('-c'));
  if (sub === undefined) return false;
  const after = args.slice(args.indexOf(sub) + 1);
  switch (sub) {
    case 'push':
    case 'restore':
    case 'clean':
      return true;
    case 'commit':
      return after.includes('--amend');
    case 'checkout':
      return after.includes('--');
    case 'reset':
      return after.includes('--hard');
    default:
      return false;
  }
}

/**
 * Runs git with an argument array in `cwd`, refusing blocked commands.
 *
 * @example
 * ```ts
 * await git('/repo', ['status', '--porcelain']);
 * ```
 * @throws HandoffError `blocked_git` for a blocked command; `io_error` when git fails.
 */
export async function git(cwd: string, args: readonly string[]): Promise<string> {
  if (isBlockedGit(args))
    throw new HandoffError('blocked_git', `refusing blocked git command: git ${args.join(' ')}`);
  try {
    const { stdout } = await run('git', [...args], { cwd, maxBuffer: 16 * 1024 * 1024 });
    return stdout;
  } catch (e) {
    throw new HandoffError(
      'io_error',
      `git ${args[0] ?? ''} failed: ${(e as { stderr?: string }).stderr ?? String(e)}`,
      {
        details: { args: [...args] },
      },
    );
  }
}

async function identityArgs(cwd: string): Promise<string[]> {
  try {
    await git(cwd, ['config', 'user.email']);
    return [];
  } catch {
    return ['-c', 'user.name=handoff-runtime', '-c', 'user.email=handoff-runtime@localhost'];
  }
}

/**
 * True when `dir` is inside a git work tree.
 *
 * @example
 * ```ts
 * await isGitRepo('/repo'); // true
 * ```
 */
export async function isGitRepo(dir: string): Promise<boolean> {
  try {
    return (await git(dir, ['rev-parse', '--is-inside-work-tree'])).trim() === 'true';
  } catch {
    return false;
  }
}

/**
 * The git checkpointer for `projectRoot`.
 *
 * @example
 * ```ts
 * const cp = createGitCheckpointer('/repo');
 * await cp.checkpoint({ cycle: 1, files: ['/repo/A.lean'], summary: 'A.lean:3 solved', commit: 'auto' });
 * ```
 */
export function createGitCheckpointer(projectRoot: string): CheckpointerPort {
  return {
    async checkpoint(input) {
      const rel = input.files.map((f) => relative(projectRoot, resolve(projectRoot, f)));
      if (input.commit === 'never' || rel.length === 0) {
        return { committed: false, commit: null, message: NO_CHANGES_MESSAGE };
      }
      await git(projectRoot, ['add', '--', ...rel]);
      const diff = await git(projectRoot, ['diff', '--cached', '--name-only', '--', ...rel]);
      if (diff.trim() === '') return { committed: false, commit: null, message: NO_CHANGES_MESSAGE };
      const message = `checkpoint: ${input.summary}`;
      await git(projectRoot, [
        ...(await identityArgs(projectRoot)),
        'commit',
        '-q',
        '-m',
        message,
        '--',
        ...rel,
      ]);
      const sha = (await git(projectRoot, ['rev-parse', 'HEAD'])).trim();
      return { committed: true, commit: sha, message };
    },
  };
}
