/**
 * Pure path rules of the baseline primitive: lexical absolutization against a working directory
 * and the resolution of `--only` / advance selectors to stored entry paths.
 */
import { isAbsolute, resolve } from 'node:path';
import { inputRefusal } from './refusal.js';
import type { FileBaseline } from './schema.js';

/**
 * Validates a working directory option: absolute, no NUL byte.
 *
 * @example
 * ```ts
 * requireCwd(undefined); // process.cwd()
 * requireCwd('rel'); // throws HandoffError 'usage'
 * ```
 * @throws HandoffError `usage` (exit 2).
 */
export function requireCwd(cwd: string | undefined): string {
  const dir = cwd ?? process.cwd();
  if (!isAbsolute(dir) || dir.includes('\0')) {
    throw inputRefusal('usage', `cwd must be an absolute path, got ${JSON.stringify(dir)}`, { cwd: dir });
  }
  return dir;
}

/**
 * The absolute lexical form of `path` (resolved against `cwd`, `.`/`..` and repeated or trailing
 * slashes normalized, symlinks NOT resolved).
 *
 * @example
 * ```ts
 * absoluteLexical('src/../a b.txt', '/repo'); // '/repo/a b.txt'
 * ```
 * @throws HandoffError `usage` for an empty path or one containing a NUL byte.
 */
export function absoluteLexical(path: string, cwd: string): string {
  if (typeof path !== 'string' || path === '') {
    throw inputRefusal('usage', 'a path must be a non-empty string', { path });
  }
  if (path.includes('\0')) throw inputRefusal('usage', 'a path must not contain a NUL byte', { path });
  return resolve(cwd, path);
}

/** Selectors resolved against a baseline. */
export interface ResolvedBaselineSelectors {
  /** Stored entry paths selected, in baseline order, each once. */
  readonly selected: readonly string[];
  /** Selector arguments that name no entry, in argument order. */
  readonly unknown: readonly string[];
}

/**
 * Resolves selector arguments (`--only` values, advance paths) to stored entry paths: an exact
 * stored path wins; otherwise the argument is made absolute against `cwd` (lexically) and must
 * equal a stored path. Symlinks are never followed, so a selector cannot rebind to a decoy.
 *
 * @example
 * ```ts
 * resolveBaselineSelectors(baseline, ['A.lean', '/elsewhere/B'], '/repo');
 * // { selected: ['/repo/A.lean'], unknown: ['/elsewhere/B'] }
 * ```
 */
export function resolveBaselineSelectors(
  baseline: FileBaseline,
  selectors: readonly string[],
  cwd: string,
): ResolvedBaselineSelectors {
  const stored = new Set(baseline.files.map((f) => f.path));
  const picked = new Set<string>();
  const unknown: string[] = [];
  for (const s of selectors) {
    if (stored.has(s)) {
      picked.add(s);
      continue;
    }
    const abs = typeof s === 'string' && s !== '' && !s.includes('\0') ? resolve(cwd, s) : undefined;
    if (abs !== undefined && stored.has(abs)) picked.add(abs);
    else unknown.push(s);
  }
  return { selected: baseline.files.map((f) => f.path).filter((p) => picked.has(p)), unknown };
}
