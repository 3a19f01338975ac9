/**
 * The canonical owned paths of a dispatch (layer 3, effects): absolute, through the real path of
 * their folder (so `/tmp/x` on a host where `/tmp` is a link becomes its real location, which is
 * what custody compares), and never a link, directory or special file itself.
 */
import { lstat, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import { HandoffError } from '../errors/index.js';

/**
 * Resolves every owned path against `cwd` and through its folder's real path. Refuses an empty
 * list or path, a folder that does not exist, and a path that is a symbolic link, a directory or a
 * special file (custody holds regular files, present or absent).
 *
 * @example
 * ```ts
 * await canonicalOwnedPaths(['src/a.ts'], '/tmp/app'); // ['/private/tmp/app/src/a.ts'] on macOS
 * ```
 * @throws HandoffError `usage` (no paths, an empty or non-string path), `invalid_input` (a missing
 * folder, a path that is not a regular file).
 */
export async function canonicalOwnedPaths(paths: readonly string[], cwd: string): Promise<string[]> {
  if (!Array.isArray(paths) || paths.length === 0) {
    throw new HandoffError('usage', 'ownedFiles needs at least one path: an empty custody can guard nothing');
  }
  const out: string[] = [];
  for (const p of paths) {
    if (typeof p !== 'string' || p === '' || p.includes('\0')) {
      throw new HandoffError('usage', `not an owned path: ${JSON.stringify(p)}`);
    }
    const abs = resolve(cwd, p);
    const folder = await realpath(dirname(abs)).catch(() => null);
    if (folder === null) {
      throw new HandoffError(
        'invalid_input',
        `the folder of owned file ${p} does not exist; create it first`,
        {
          details: { path: abs },
        },
      );
    }
    const real = join(folder, basename(abs));
    const st = await lstat(real).catch(() => null);
    if (st !== null && !st.isFile()) {
      const kind = st.isSymbolicLink()
        ? 'a symbolic link'
        : st.isDirectory()
          ? 'a directory'
          : 'a special file';
      throw new HandoffError('invalid_input', `owned file ${p} is ${kind}; name the regular file itself`, {
        details: { path: real },
      });
    }
    out.push(real);
  }
  return out;
}
