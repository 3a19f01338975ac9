/**
 * The names of a repository's stored objects (layer 3, effects), cheap enough to take around
 * every dispatch: the 256 fan-out folders of `objects/` listed (`ab/cdef…`, never read) and the
 * pack files of `objects/pack/` (`pack/<name>`). Comparing two snapshots names the objects that
 * appeared between them — a planted loose object or pack (object poisoning: bytes stored under an
 * id they do not hash to) shows up as a new name.
 */
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';

const FANOUT = /^[0-9a-f]{2}$/;
const OBJECT_REST = /^[0-9a-f]{38}$|^[0-9a-f]{62}$/;

/**
 * Lists the object names under `commonDir/objects`: `ab/<rest>` for each loose object and
 * `pack/<file>` for each file of `objects/pack`. A missing folder lists nothing; temp files and
 * anything that is not an object name are left out.
 *
 * @example
 * ```ts
 * const before = await looseObjectsSnapshot('/repo/.git');
 * // … the worker runs …
 * newObjects(before, await looseObjectsSnapshot('/repo/.git')); // ['3f/9c…'] when one was planted
 * ```
 */
export async function looseObjectsSnapshot(commonDir: string): Promise<ReadonlySet<string>> {
  const objects = join(commonDir, 'objects');
  const out = new Set<string>();
  const top = await readdir(objects).catch(() => [] as string[]);
  for (const d of top) {
    if (!FANOUT.test(d)) continue;
    for (const f of await readdir(join(objects, d)).catch(() => [] as string[]))
      if (OBJECT_REST.test(f)) out.add(`${d}/${f}`);
  }
  for (const f of await readdir(join(objects, 'pack')).catch(() => [] as string[]))
    if (f.startsWith('pack-')) out.add(`pack/${f}`);
  return out;
}

/**
 * The names in `after` that `before` does not hold, sorted (pure).
 *
 * @example
 * ```ts
 * newObjects(new Set(['ab/01']), new Set(['ab/01', 'cd/02'])); // ['cd/02']
 * ```
 */
export function newObjects(before: ReadonlySet<string>, after: ReadonlySet<string>): string[] {
  return [...after].filter((n) => !before.has(n)).sort();
}

/**
 * The object id of a loose object name (`ab/cdef…` → `abcdef…`); null for a pack file's name.
 *
 * @example
 * ```ts
 * objectIdOfName('ab/cdef'); // 'abcdef'
 * objectIdOfName('pack/pack-1.pack'); // null
 * ```
 */
export function objectIdOfName(name: string): string | null {
  return name.startsWith('pack/') ? null : name.replace('/', '');
}
