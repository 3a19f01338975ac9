/**
 * The files a tool call may own (layer 3, adapter): the model chooses the arguments, so the owned
 * paths they name are contained before any dispatch — inside the tool's root, through no link, not
 * in git's control folder or the run store, and, when the host narrows it, only files it allows.
 */
import { lstat, realpath } from 'node:fs/promises';
import { dirname, isAbsolute, relative, resolve, sep } from 'node:path';
import { describeThrown } from '../../delegate/describe-thrown.js';

/**
 * Where a tool call's owned files must lie.
 *
 * @example
 * ```ts
 * const s: OwnedScope = { root: '/repo', allow: (rel) => rel.startsWith('src/') };
 * ```
 */
export interface OwnedScope {
  /** The directory every owned file must be inside (a real path is taken of it). */
  readonly root: string;
  /** Further folders no owned file may be in (the run store's directory). */
  readonly forbidden?: readonly string[];
  /** The host's narrowing: called with the root-relative path (`/` separators); false refuses it. */
  readonly allow?: (relativePath: string) => boolean;
}

/**
 * The contained owned paths (absolute, real folder), or why the arguments are refused.
 *
 * @example
 * ```ts
 * const c: Contained = await containOwnedFiles(['src/a.ts'], { root: '/repo' });
 * ```
 */
export type Contained =
  | { readonly ok: true; readonly paths: readonly string[] }
  | { readonly ok: false; readonly detail: string };

/** Folders custody never hands to a worker: git's control files. */
const NEVER_OWNED = new Set(['.git']);

/** A model-chosen path as it appears in a message: JSON-quoted (no control characters), at most 200 characters. */
function shown(p: string): string {
  const q = JSON.stringify(p);
  return q.length > 200 ? `${q.slice(0, 199)}…` : q;
}

function within(root: string, p: string): boolean {
  const rel = relative(root, p);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/** The absolute path of one contained owned file, or why it is refused. */
type One = { readonly abs: string } | { readonly refused: string };

async function containOne(
  p: unknown,
  root: string,
  scope: OwnedScope,
  forbidden: readonly string[],
): Promise<One> {
  const no = (refused: string): One => ({ refused });
  if (typeof p !== 'string' || p === '' || p.includes('\0'))
    return no(`not a file path: ${JSON.stringify(p)}`);
  const abs = resolve(root, p);
  if (!within(root, abs)) return no(`owned file ${shown(p)} is outside ${root}`);
  const rel = relative(root, abs);
  const parts = rel.split(sep);
  if (parts.some((s) => NEVER_OWNED.has(s))) return no(`owned file ${shown(p)} is in git's control folder`);
  // every folder on the way, and the file itself, must be what it says: no link anywhere
  let at = root;
  for (const [i, part] of parts.entries()) {
    at = resolve(at, part);
    const st = await lstat(at).catch(() => null);
    if (st === null) {
      if (i < parts.length - 1) return no(`the folder of owned file ${shown(p)} does not exist`);
      break;
    }
    if (st.isSymbolicLink())
      return no(`owned file ${shown(p)} goes through a symbolic link (${shown(relative(root, at))})`);
    if (i < parts.length - 1 && !st.isDirectory())
      return no(`owned file ${shown(p)}: ${shown(relative(root, at))} is not a folder`);
    if (i === parts.length - 1 && !st.isFile()) return no(`owned file ${shown(p)} is not a regular file`);
  }
  const real = resolve(await realpath(dirname(abs)), parts.at(-1) ?? '');
  if (real !== abs) return no(`owned file ${shown(p)} does not resolve to itself`);
  if (forbidden.some((f) => abs === f || within(f, abs)))
    return no(`owned file ${shown(p)} is in the run store`);
  const posix = parts.join('/');
  if (scope.allow !== undefined && scope.allow(posix) !== true)
    return no(`owned file ${shown(posix)} is not one this tool allows`);
  return { abs };
}

/**
 * Contains the owned paths a tool call asks for (relative paths resolve against `scope.root`):
 * each must be a string naming a regular file (or an absent one, in an existing folder) strictly
 * inside the root — no `..` escape, no absolute path elsewhere, no symbolic link as the file or as
 * any folder on its way, nothing under `.git` or a forbidden folder — and pass `scope.allow`.
 * Never throws: a failing `allow` or file system refuses the call.
 *
 * @example
 * ```ts
 * await containOwnedFiles(['../../etc/passwd'], { root: '/repo' });
 * // { ok: false, detail: 'owned file ../../etc/passwd is outside /repo' }
 * ```
 */
export async function containOwnedFiles(paths: unknown, scope: OwnedScope): Promise<Contained> {
  try {
    if (!Array.isArray(paths) || paths.length === 0)
      return { ok: false, detail: 'the call names no owned file' };
    const root = await realpath(resolve(scope.root));
    const forbidden = await Promise.all(
      (scope.forbidden ?? []).map(async (f) => realpath(resolve(f)).catch(() => resolve(f))),
    );
    const out: string[] = [];
    for (const p of paths as readonly unknown[]) {
      const r = await containOne(p, root, scope, forbidden);
      if ('refused' in r) return { ok: false, detail: r.refused };
      if (out.includes(r.abs)) return { ok: false, detail: `owned file ${shown(String(p))} is named twice` };
      out.push(r.abs);
    }
    return { ok: true, paths: out };
  } catch (e) {
    return { ok: false, detail: `the owned files cannot be checked: ${describeThrown(e)}` };
  }
}
