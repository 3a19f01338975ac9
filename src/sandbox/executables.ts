/**
 * Finding the sandbox's programs on `PATH` (layer 3, effects).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/**
 * The first executable regular file named `name` on `PATH` (or the given list), else null.
 *
 * @example
 * ```ts
 * findExecutable('bwrap'); // '/usr/bin/bwrap'
 * ```
 */
export function findExecutable(name: string, path: string = process.env.PATH ?? ''): string | null {
  for (const dir of path.split(delimiter)) {
    if (dir === '') continue;
    const p = join(dir, name);
    try {
      if (!statSync(p).isFile()) continue;
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      // not here
    }
  }
  return null;
}
