/**
 * Prior-run compatibility (layer 1, pure): mode family, target path semantics and the project
 * containment of owned files.
 */
import { isAbsolute, relative, resolve } from 'node:path';

/**
 * Mode family: `golf` vs proving (`prove`, `autoprove`).
 *
 * @example
 * ```ts
 * modeFamily('autoprove'); // 'proving'
 * ```
 */
export function modeFamily(mode: string): 'golf' | 'proving' {
  return mode === 'golf' ? 'golf' : 'proving';
}

/**
 * The file part of a target: only a trailing `:<line>` is a location suffix (never a drive prefix).
 *
 * @example
 * ```ts
 * targetFile('Foo.lean:42'); // 'Foo.lean'
 * targetFile('C:Foo.lean'); // 'C:Foo.lean'
 * ```
 */
export function targetFile(target: string): string {
  const m = /^(.*):([0-9]+)$/.exec(target);
  return m !== null && m[1] !== '' ? (m[1] as string) : target;
}

/**
 * True when `path` lies inside `root` by whole path components (lexically; both absolute).
 *
 * @example
 * ```ts
 * isInside('/p/src/A.lean', '/p'); // true
 * isInside('/p2/A.lean', '/p'); // false
 * ```
 */
export function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/**
 * Target compatibility of a prior task with the current one. File scope: the same file (a prior
 * `Foo.lean:42` widens to all of `Foo.lean`). Project/changed scope: the prior file inside the
 * current target directory by whole components. Otherwise: the identical target.
 *
 * @example
 * ```ts
 * compatibleTarget({ target: 'A/Foo.lean:42' }, { target: 'A/Foo.lean', scope: 'file' }, '/p'); // true
 * compatibleTarget({ target: 'A/Foo.lean' }, { target: 'A/Foo2.lean', scope: 'file' }, '/p'); // false
 * ```
 */
export function compatibleTarget(
  prior: { target: string },
  current: { target: string; scope: string },
  projectRoot: string,
): boolean {
  const pf = resolve(projectRoot, targetFile(prior.target));
  if (current.scope === 'file') return pf === resolve(projectRoot, targetFile(current.target));
  if (current.scope === 'project' || current.scope === 'changed') {
    return isInside(pf, resolve(projectRoot, current.target === '' ? '.' : targetFile(current.target)));
  }
  return prior.target === current.target;
}

/**
 * Normalizes intended owned files: absolute against the project root, deduplicated, sorted.
 *
 * @example
 * ```ts
 * normalizeOwned(['b.lean', '/p/a.lean', 'b.lean'], '/p'); // ['/p/a.lean', '/p/b.lean']
 * ```
 */
export function normalizeOwned(files: readonly string[], projectRoot: string): string[] {
  return [...new Set(files.map((f) => resolve(projectRoot, f)))].sort();
}
