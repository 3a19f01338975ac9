/**
 * Running git for the collector: the runtime's hardened git ({@link runGit}: argument arrays,
 * hooks and fsmonitor off, no inherited `GIT_*` environment, no optional locks) with failures
 * coded `git_failed`; binary-safe `-z` output as bytes.
 */
import { runGit } from '../git/index.js';

/** Git's empty tree, the base of a repository without commits. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * Runs `git <args>` in `cwd` and resolves to stdout as a Buffer.
 *
 * @example
 * ```ts
 * const out = await git('/repo', ['ls-files', '-z']);
 * ```
 * @throws HandoffError `git_failed` with git's stderr.
 */
export function git(
  cwd: string,
  args: readonly string[],
  options: { allowFail?: boolean } = {},
): Promise<Buffer> {
  return runGit(cwd, args, {
    code: 'git_failed',
    ...(options.allowFail ? { allowFail: true } : {}),
  });
}
