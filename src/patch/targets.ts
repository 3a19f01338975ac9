/**
 * The scope check of a patch (layer 1, pure): which project-relative files a patch touches, and
 * whether it may touch them. A patch comes from an untrusted worker, so its paths are data to be
 * judged: relative, inside the project, free of control characters, the same file on both sides,
 * and in the allowed set — anything else is refused, never normalized into something acceptable.
 */
import type { FilePatch } from './parse.js';
import { escapeControls, type PatchError, patchFailure } from './patch-error.js';

/**
 * One target of a patch: its project-relative path (prefix `a/`/`b/` removed) and its patch.
 *
 * @example
 * ```ts
 * const t: PatchTarget = { path: 'src/A.lean', patch };
 * ```
 */
export interface PatchTarget {
  readonly path: string;
  readonly patch: FilePatch;
}

/**
 * What {@link patchTargets} returns.
 *
 * @example
 * ```ts
 * const r: PatchTargetsResult = patchTargets(files, ['A.lean']);
 * ```
 */
export type PatchTargetsResult =
  | { readonly ok: true; readonly files: readonly PatchTarget[] }
  | { readonly ok: false; readonly error: PatchError };

/**
 * Why `p` is not a safe project-relative path, or null when it is: empty, absolute (`/…`, `C:…`,
 * `\\\\…`), a backslash, a control character (NUL included), an empty, `.` or `..` segment, or a
 * `.git` segment (any case).
 *
 * @example
 * ```ts
 * unsafePathReason('src/A.lean'); // null
 * unsafePathReason('../etc/passwd'); // 'a ".." segment'
 * ```
 */
export function unsafePathReason(p: string): string | null {
  if (typeof p !== 'string' || p === '') return 'an empty path';
  if (/[\u0000-\u001f\u007f-\u009f]/.test(p)) return 'a control character';
  if (p.startsWith('/') || /^[A-Za-z]:/.test(p)) return 'an absolute path';
  if (p.includes('\\')) return 'a backslash';
  for (const seg of p.split('/')) {
    if (seg === '') return 'an empty segment';
    if (seg === '..') return 'a ".." segment';
    if (seg === '.') return 'a "." segment';
    if (seg.toLowerCase() === '.git') return 'a ".git" segment';
  }
  return null;
}

function stripped(p: string | null, prefix: string, strip: boolean): string | null {
  if (p === null) return null;
  return strip && p.startsWith(prefix) ? p.slice(prefix.length) : p;
}

/**
 * Resolves and judges the files of a parsed patch against `allowed` (project-relative paths, the
 * repair dispatch's owned files). The `a/` and `b/` prefixes are removed when the patch uses them
 * (git style: both sides, or the one real side of a creation/deletion); then every path must pass
 * {@link unsafePathReason} (`unsafe_path`), `---` and `+++` must name the same file
 * (`path_mismatch`), no file may appear twice (`duplicate_file`) and each must be in `allowed`
 * (`out_of_scope`). Never throws.
 *
 * @example
 * ```ts
 * const p = parsePatch(diff);
 * if (p.ok) patchTargets(p.files, ['A.lean']); // { ok: true, files: [{ path: 'A.lean', patch }] }
 * ```
 */
export function patchTargets(patch: readonly FilePatch[], allowed: readonly string[]): PatchTargetsResult {
  try {
    const allow = new Set(allowed);
    const seen = new Set<string>();
    const files: PatchTarget[] = [];
    for (const f of patch) {
      const git =
        f.kind === 'modify'
          ? (f.oldPath?.startsWith('a/') ?? false) && (f.newPath?.startsWith('b/') ?? false)
          : f.kind === 'create'
            ? (f.newPath?.startsWith('b/') ?? false)
            : (f.oldPath?.startsWith('a/') ?? false);
      const oldP = stripped(f.oldPath, 'a/', git);
      const newP = stripped(f.newPath, 'b/', git);
      for (const p of [oldP, newP]) {
        if (p === null) continue;
        const why = unsafePathReason(p);
        if (why !== null) {
          return patchFailure({ code: 'unsafe_path', message: `refused: ${why}`, file: escapeControls(p) });
        }
      }
      if (oldP !== null && newP !== null && oldP !== newP) {
        return patchFailure({
          code: 'path_mismatch',
          message: `--- names ${JSON.stringify(oldP)} but +++ names ${JSON.stringify(newP)}`,
          file: newP,
        });
      }
      const path = (newP ?? oldP) as string;
      if (seen.has(path)) {
        return patchFailure({ code: 'duplicate_file', message: 'the file is patched twice', file: path });
      }
      seen.add(path);
      if (!allow.has(path)) {
        return patchFailure({ code: 'out_of_scope', message: 'not a file this patch may touch', file: path });
      }
      files.push({ path, patch: f });
    }
    if (files.length === 0) return patchFailure({ code: 'no_files', message: 'the patch touches no file' });
    return { ok: true, files };
  } catch (e) {
    return patchFailure({
      code: 'internal',
      message: `scope check defect: ${e instanceof Error ? e.message : String(e)}`,
    });
  }
}
