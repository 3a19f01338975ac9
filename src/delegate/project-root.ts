/**
 * The project a delegation watches (layer 3, effects): the folder whose every other file a worker
 * must leave alone. Given by the host, or the git work tree holding the first owned file, or the
 * deepest folder holding every owned file.
 */
import { realpath, stat } from 'node:fs/promises';
import { dirname, relative, resolve, sep } from 'node:path';
import { HandoffError } from '../errors/index.js';
import { runGit } from '../git/index.js';

function commonFolder(paths: readonly string[]): string {
  const split = paths.map((p) => dirname(p).split(sep));
  const first = split[0] ?? [];
  let n = first.length;
  for (const s of split) {
    let i = 0;
    while (i < n && s[i] === first[i]) i++;
    n = i;
  }
  return first.slice(0, n).join(sep) || sep;
}

function inside(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && !rel.startsWith(`..${sep}`) && rel !== '..' && !rel.startsWith(sep);
}

/**
 * The watched project root (a real path): `given` (resolved against the working directory), else
 * the git work tree of the first owned file's folder, else the deepest common folder of the owned
 * files — never the file-system root. Every owned file must lie inside it.
 *
 * @example
 * ```ts
 * await resolveProjectRoot(['/repo/src/a.ts']); // '/repo' (its git work tree)
 * ```
 * @throws HandoffError `invalid_input` (a root that is not a directory, the file-system root, an
 * owned file outside the root).
 */
export async function resolveProjectRoot(owned: readonly string[], given?: string): Promise<string> {
  let root: string;
  if (given !== undefined) {
    const abs = resolve(given);
    const st = await stat(abs).catch(() => null);
    if (st === null || !st.isDirectory()) {
      throw new HandoffError('invalid_input', `projectRoot ${given} is not a directory`, {
        details: { path: abs },
      });
    }
    root = await realpath(abs);
  } else {
    const first = owned[0];
    if (first === undefined)
      throw new HandoffError('invalid_input', 'a dispatch without owned files has no project');
    const top = (await runGit(dirname(first), ['rev-parse', '--show-toplevel'], { allowFail: true }))
      .toString('utf8')
      .trim();
    root = top !== '' ? await realpath(top) : commonFolder(owned);
  }
  if (root === sep) {
    throw new HandoffError(
      'invalid_input',
      'the project root would be the file-system root: pass projectRoot',
      {
        details: { owned: [...owned] },
      },
    );
  }
  const outside = owned.filter((p) => !inside(root, p));
  if (outside.length > 0) {
    throw new HandoffError(
      'invalid_input',
      `owned file(s) outside the project root ${root}: ${outside.join(', ')}`,
      {
        details: { root, outside },
      },
    );
  }
  return root;
}
