/**
 * The names of a repository's stored objects (layer 3, effects), cheap enough to take around
 * every dispatch: the 256 fan-out folders of `objects/` listed (`ab/cdef…`, never read) and the
 * pack files of `objects/pack/` (`pack/<name>`). Comparing two snapshots names the objects that
 * appeared between them — a planted loose object or pack (object poisoning: bytes stored under an
 * id they do not hash to) shows up as a new name.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';

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

/** The largest inflated loose object {@link looseObjectIsAuthentic} inflates (a zip bomb is not authentic). */
export const LOOSE_OBJECT_CHECK_LIMIT = 256 * 1024 * 1024;

/**
 * True when the loose object `name` (`ab/cdef…`) under `commonDir/objects` inflates to bytes that
 * hash to its id (what git never checks on read); false for a planted, corrupt, oversized or
 * unreadable one. Pack names are not checked (true).
 *
 * @example
 * ```ts
 * await looseObjectIsAuthentic('/repo/.git', '3f/9c…'); // false for a planted object
 * ```
 */
export async function looseObjectIsAuthentic(commonDir: string, name: string): Promise<boolean> {
  const id = objectIdOfName(name);
  if (id === null) return true;
  try {
    const raw = await readFile(join(commonDir, 'objects', name));
    const full = inflateSync(raw, { maxOutputLength: LOOSE_OBJECT_CHECK_LIMIT });
    return (
      createHash(id.length === 64 ? 'sha256' : 'sha1')
        .update(full)
        .digest('hex') === id
    );
  } catch {
    return false;
  }
}

/**
 * Removes, among `names`, the loose objects that are not authentic ({@link looseObjectIsAuthentic}):
 * objects stored under an id their bytes do not hash to are useless to git and poison any later
 * commit of the honest bytes (`git add` finds the id present and keeps the planted bytes).
 * Resolves to the names removed and those that could not be.
 *
 * @example
 * ```ts
 * await removePlantedObjects('/repo/.git', ['3f/9c…']); // { removed: ['3f/9c…'], failed: [] }
 * ```
 */
export async function removePlantedObjects(
  commonDir: string,
  names: readonly string[],
): Promise<{ removed: string[]; failed: string[] }> {
  const removed: string[] = [];
  const failed: string[] = [];
  for (const n of names) {
    if (objectIdOfName(n) === null || (await looseObjectIsAuthentic(commonDir, n))) continue;
    try {
      await rm(join(commonDir, 'objects', n), { force: true });
      removed.push(n);
    } catch {
      failed.push(n);
    }
  }
  return { removed, failed };
}
