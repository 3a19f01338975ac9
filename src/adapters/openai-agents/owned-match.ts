/**
 * Which owned file a sub-agent's path names (layer 1 rules, no I/O): a sub-agent's tool gets a
 * path from the model; it acts on an owned file of the current dispatch only when the path names
 * exactly one — by its absolute path, or a relative path that is a whole-segment suffix of it.
 */
import { isAbsolute, normalize, sep } from 'node:path';

/**
 * The owned file `path` names, or why it names none: an absolute path must be an owned path
 * itself; a relative one, once normalized, must not climb (`..`) and must end exactly one owned
 * path on a segment boundary (`src/a.ts` names `/repo/src/a.ts`, `a.ts` too when it is the only
 * `a.ts`).
 *
 * @example
 * ```ts
 * matchOwned(['/repo/src/a.ts'], 'src/a.ts'); // { ok: true, path: '/repo/src/a.ts' }
 * matchOwned(['/repo/src/a.ts'], '../etc/passwd').ok; // false
 * ```
 */
export function matchOwned(
  owned: readonly string[],
  path: unknown,
): { readonly ok: true; readonly path: string } | { readonly ok: false; readonly detail: string } {
  if (typeof path !== 'string' || path === '' || path.includes('\0')) {
    return { ok: false, detail: 'not a file path' };
  }
  const shown = JSON.stringify(path.length > 200 ? `${path.slice(0, 200)}…` : path);
  if (isAbsolute(path)) {
    const abs = normalize(path);
    return owned.includes(abs)
      ? { ok: true, path: abs }
      : { ok: false, detail: `${shown} is not an owned file` };
  }
  const rel = normalize(path);
  if (rel === '..' || rel.startsWith(`..${sep}`) || rel === '.') {
    return { ok: false, detail: `${shown} is not an owned file` };
  }
  const hits = owned.filter((o) => o.endsWith(`${sep}${rel}`));
  if (hits.length === 1 && hits[0] !== undefined) return { ok: true, path: hits[0] };
  if (hits.length > 1)
    return { ok: false, detail: `${shown} names more than one owned file; use the full path` };
  return { ok: false, detail: `${shown} is not an owned file` };
}
