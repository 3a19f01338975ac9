/**
 * The apply rule of a writable layer (layer 1, pure): which of a sandboxed worker's changes reach
 * the host. An owned file written as a regular file is taken (its bytes from the layer); an owned
 * file deleted is deleted on the host only when the dispatch allows it. Everything else — other
 * project files, `.git/…`, `.handoff/…`, a replaced directory, a symbolic link, FIFO, socket or
 * device planted anywhere (an owned path included), anything left in the private `$HOME` — is a
 * violation, named path by path, and discarded: it never reaches the host. What a toolchain wrote
 * under a build folder (`buildDirs`) is discarded too, without a violation.
 */
import type { LayerChanges } from './layer-entry.js';

/**
 * What to do with one layer.
 *
 * @example
 * ```ts
 * const { take, discarded }: LayerPlan = planLayer(changes, owned, { allowDelete: false });
 * ```
 */
export interface LayerPlan {
  /** Owned paths (project-relative) whose bytes the host takes from the layer. */
  readonly take: readonly string[];
  /** Owned paths the host deletes. */
  readonly remove: readonly string[];
  /** Everything discarded, as named in the violation (`B.lean`, `x (symlink)`, `~/.bashrc`). */
  readonly discarded: readonly string[];
  /** Discarded without a violation: what the worker's toolchain wrote under a build folder. */
  readonly quiet: readonly string[];
}

/**
 * Options of {@link planLayer}.
 *
 * @example
 * ```ts
 * const o: PlanLayerOptions = { allowDelete: true, buildDirs: ['node_modules', 'dist', '.lake'] };
 * ```
 */
export interface PlanLayerOptions {
  /** Whether an owned file deleted in the layer is deleted on the host (else a violation). */
  readonly allowDelete: boolean;
  /** What the worker left in its private `$HOME` (reported as `~/…`, always discarded). */
  readonly home?: LayerChanges;
  /**
   * Folder names (at any depth) whose contents a toolchain legitimately writes — dependencies and
   * build output (`node_modules`, `dist`, `.lake`): discarded like the rest, but not a violation.
   */
  readonly buildDirs?: readonly string[];
}

/**
 * Plans the application of a layer (pure).
 *
 * @example
 * ```ts
 * planLayer({ written: ['A.lean', 'B.lean'], deleted: [], opaqueDirs: [], specials: [] },
 *   new Set(['A.lean']), { allowDelete: false });
 * // { take: ['A.lean'], remove: [], discarded: ['B.lean'], quiet: [] }
 * ```
 */
export function planLayer(changes: LayerChanges, owned: ReadonlySet<string>, o: PlanLayerOptions): LayerPlan {
  const take: string[] = [];
  const remove: string[] = [];
  const discarded: string[] = [];
  const quiet: string[] = [];
  const build = new Set(o.buildDirs ?? []);
  const drop = (path: string, named: string) => {
    if (build.size > 0 && !owned.has(path) && path.split('/').some((c) => build.has(c))) quiet.push(path);
    else discarded.push(named);
  };
  const special = new Set(changes.specials.map((s) => s.path));
  for (const p of changes.written) {
    if (owned.has(p) && !special.has(p)) take.push(p);
    else drop(p, p);
  }
  for (const p of changes.deleted) {
    if (owned.has(p) && o.allowDelete) remove.push(p);
    else drop(p, `${p} (deleted)`);
  }
  for (const p of changes.opaqueDirs) drop(p, `${p}/ (directory replaced)`);
  for (const s of changes.specials) drop(s.path, `${s.path} (${s.kind})`);
  const home = o.home;
  if (home !== undefined) {
    for (const p of home.written) discarded.push(`~/${p}`);
    for (const s of home.specials) discarded.push(`~/${s.path} (${s.kind})`);
  }
  return { take, remove, discarded, quiet };
}

/**
 * The violation naming what a layer's application discarded, or null when nothing was (pure).
 * Long lists keep their first 20 names and say how many there were.
 *
 * @example
 * ```ts
 * discardedViolation(['B.lean', '.git/config']);
 * // 'files outside the owned set were written and discarded: B.lean, .git/config'
 * ```
 */
export function discardedViolation(discarded: readonly string[]): string | null {
  if (discarded.length === 0) return null;
  const shown = discarded.slice(0, 20).join(', ');
  const more = discarded.length > 20 ? `, … (${discarded.length} in all)` : '';
  return `files outside the owned set were written and discarded: ${shown}${more}`;
}
