/**
 * Running git for the collector: `execFile` with argument arrays only (paths are data), no
 * optional locks (the collector never writes the index), binary-safe `-z` output.
 */
import { execFile } from 'node:child_process';
import { HandoffError } from '../errors/index.js';

/** Git's empty tree, the base of a repository without commits. */
export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * Runs `git <args>` in `cwd` and resolves to stdout as a Buffer.
 *
 * @example
 * ```ts
 * const out = await git('/repo', ['ls-files', '-z']);
 * ```
 * @throws HandoffError `git_failed` (exit 4) with git's stderr.
 */
export function git(
  cwd: string,
  args: readonly string[],
  options: { allowFail?: boolean } = {},
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile(
      'git',
      [...args],
      {
        cwd,
        encoding: 'buffer',
        maxBuffer: 512 * 1024 * 1024,
        env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', GIT_TERMINAL_PROMPT: '0' },
      },
      (err, stdout, stderr) => {
        if (err !== null) {
          if (options.allowFail === true) {
            resolve(Buffer.alloc(0));
            return;
          }
          reject(
            new HandoffError(
              'git_failed',
              `git ${args[0] ?? ''} failed: ${stderr.toString('utf8').trim() || err.message}`,
              {
                details: { args: [...args], cwd, exit_code: 4 },
                cause: err,
              },
            ),
          );
          return;
        }
        resolve(stdout);
      },
    );
  });
}
