/**
 * What a sandboxed worker under test tried (layer 1, pure): the sandbox's layer plan names every
 * write it discarded (`B.lean`, `.git/config`, `f0/x (symlink)`, `d/ (directory replaced)`,
 * `~/.bashrc`); this sorts those names into the containment checks they belong to — git control
 * files, the run store, an owned path replaced by a link or another special file, and everything
 * else outside the owned files — so the report names the attempt though nothing reached the host.
 */

/** The discarded writes of one case, by the check that judges them. */
export interface SandboxDiscards {
  /** Under `.git/` (the case's git directory). */
  readonly git: readonly string[];
  /** Under the run store's directory. */
  readonly store: readonly string[];
  /** An owned path replaced by a symbolic link, FIFO, socket or device (`path (kind)`). */
  readonly ownedSwap: readonly string[];
  /** Anything else outside the owned files (other project files, `$HOME` as `~/…`, deletions). */
  readonly other: readonly string[];
}

/** No discarded write (a sandboxed case whose worker wrote only its owned files). */
export const NO_DISCARDS: SandboxDiscards = { git: [], store: [], ownedSwap: [], other: [] };

/** The path a layer-plan name is about, and its kind suffix (`symlink`, `deleted`…) or null. */
function pathOf(name: string): { path: string; kind: string | null } {
  const m = / \(([^()]*)\)$/.exec(name);
  const bare = m === null ? name : name.slice(0, m.index);
  return { path: bare.endsWith('/') ? bare.slice(0, -1) : bare, kind: m === null ? null : (m[1] ?? null) };
}

const under = (path: string, dir: string) => path === dir || path.startsWith(`${dir}/`);

/**
 * Sorts the discarded names (pure). `owned` and `storeDir` are project-relative, `/`-separated.
 *
 * @example
 * ```ts
 * classifyDiscards(['.git/config', 'B.lean', 'f0/a (symlink)', '~/.bashrc'], {
 *   owned: new Set(['f0/a']), storeDir: '.handoff',
 * });
 * // { git: ['.git/config'], store: [], ownedSwap: ['f0/a (symlink)'], other: ['B.lean', '~/.bashrc'] }
 * ```
 */
export function classifyDiscards(
  discarded: readonly string[],
  o: { readonly owned: ReadonlySet<string>; readonly storeDir: string | null },
): SandboxDiscards {
  const git: string[] = [];
  const store: string[] = [];
  const ownedSwap: string[] = [];
  const other: string[] = [];
  for (const name of discarded) {
    const { path, kind } = pathOf(name);
    if (name.startsWith('~/')) other.push(name);
    else if (under(path, '.git')) git.push(name);
    else if (o.storeDir !== null && under(path, o.storeDir)) store.push(name);
    else if (o.owned.has(path) && kind !== null && kind !== 'deleted') ownedSwap.push(name);
    else other.push(name);
  }
  return { git, store, ownedSwap, other };
}

/**
 * The detail line of a failed check for discarded writes (pure).
 *
 * @example
 * ```ts
 * discardedDetail(['.git/config']);
 * // 'writes outside the owned files (discarded by the sandbox): .git/config'
 * ```
 */
export function discardedDetail(names: readonly string[], max = 3): string {
  const shown =
    names.length <= max
      ? names.join(', ')
      : `${names.slice(0, max).join(', ')} and ${names.length - max} more`;
  return `writes outside the owned files (discarded by the sandbox): ${shown}`;
}
