/**
 * Path globs for `allowed_writes` and permitted reads (pure). Supported syntax: `**` (any number
 * of path segments), `*` (within one segment), `?` (one character), everything else literal.
 * A pattern ending in `/` matches everything below that directory.
 */

const cache = new Map<string, RegExp>();

function compile(glob: string): RegExp {
  const hit = cache.get(glob);
  if (hit !== undefined) return hit;
  const g = glob.endsWith('/') ? `${glob}**` : glob;
  let re = '^';
  for (let i = 0; i < g.length; i++) {
    const ch = g[i] as string;
    if (ch === '*') {
      if (g[i + 1] === '*') {
        i++;
        if (g[i + 1] === '/') {
          i++;
          re += '(?:.*/)?';
        } else {
          re += '.*';
        }
      } else {
        re += '[^/]*';
      }
    } else if (ch === '?') {
      re += '[^/]';
    } else {
      re += ch.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  const out = new RegExp(`${re}$`);
  cache.set(glob, out);
  return out;
}

/**
 * True when the repository-relative `path` matches `glob`.
 *
 * @example
 * ```ts
 * globMatch('src/**', 'src/a/b.ts'); // true
 * globMatch('src/*.ts', 'src/a/b.ts'); // false
 * ```
 */
export function globMatch(glob: string, path: string): boolean {
  return compile(glob).test(path);
}

/**
 * True when `path` matches at least one of `globs`.
 *
 * @example
 * ```ts
 * matchesAny(['docs/', 'src/**'], 'docs/a.md'); // true
 * ```
 */
export function matchesAny(globs: readonly string[], path: string): boolean {
  return globs.some((g) => globMatch(g, path));
}
