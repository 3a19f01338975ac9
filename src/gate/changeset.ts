/**
 * Changeset rules (pure): parsing git's `-z` outputs and merging index-vs-base, worktree-vs-index
 * and untracked listings into one entry per path (added, removed, renamed, modified; staged,
 * unstaged, untracked). Content-identical removed/untracked pairs become unstaged renames.
 */
import { digestOf } from '../canonical/index.js';
import type { ChangeEntry } from './evidence-schema.js';

/** One record of `git diff --name-status -z`. */
export interface NameStatus {
  readonly status: string;
  readonly path: string;
  readonly from: string | null;
}

/** Paths the gate itself writes (ledger, stores) and git's own directory never count as changes. */
export const INTERNAL_PREFIXES: readonly string[] = ['.handoff/', '.git/'];

/**
 * True for paths the collector ignores (the gate's own state, git internals).
 *
 * @example
 * ```ts
 * isInternalPath('.handoff/gate/ledger/p/log/00000001.json'); // true
 * ```
 */
export function isInternalPath(path: string): boolean {
  return INTERNAL_PREFIXES.some((p) => path === p.slice(0, -1) || path.startsWith(p));
}

/**
 * Parses `git diff --name-status -z` output. Rename and copy records carry two paths (old, new).
 *
 * @example
 * ```ts
 * parseNameStatusZ('M\0a.ts\0R100\0old.ts\0new.ts\0');
 * // [{ status: 'M', path: 'a.ts', from: null }, { status: 'R', path: 'new.ts', from: 'old.ts' }]
 * ```
 */
export function parseNameStatusZ(text: string): NameStatus[] {
  const parts = text.split('\0');
  const out: NameStatus[] = [];
  let i = 0;
  while (i < parts.length) {
    const code = parts[i++];
    if (code === undefined || code === '') continue;
    const status = code[0] as string;
    if (status === 'R' || status === 'C') {
      const from = parts[i++] ?? '';
      const path = parts[i++] ?? '';
      out.push({ status, path, from });
    } else {
      out.push({ status, path: parts[i++] ?? '', from: null });
    }
  }
  return out;
}

/**
 * Splits a NUL-separated path list (`git ls-files -z`).
 *
 * @example
 * ```ts
 * splitZ('a\0b c\0'); // ['a', 'b c']
 * ```
 */
export function splitZ(text: string): string[] {
  return text.split('\0').filter((s) => s !== '');
}

interface Draft {
  change: ChangeEntry['change'];
  from: string | null;
  staged: boolean;
  unstaged: boolean;
  untracked: boolean;
}

/**
 * Merges the three listings into change entries (without digests; `sha256` is null). Internal
 * paths are dropped. A path added in the index and deleted in the worktree is not a change of the
 * candidate; a renamed path deleted in the worktree becomes a removal of its origin.
 *
 * @example
 * ```ts
 * mergeChangeset({ staged: [{ status: 'A', path: 'n.ts', from: null }], unstaged: [], untracked: ['u.ts'] });
 * ```
 */
export function mergeChangeset(input: {
  readonly staged: readonly NameStatus[];
  readonly unstaged: readonly NameStatus[];
  readonly untracked: readonly string[];
}): ChangeEntry[] {
  const m = new Map<string, Draft>();
  for (const s of input.staged) {
    const change: Draft['change'] =
      s.status === 'A' || s.status === 'C'
        ? 'added'
        : s.status === 'D'
          ? 'removed'
          : s.status === 'R'
            ? 'renamed'
            : 'modified';
    m.set(s.path, {
      change,
      from: s.status === 'R' ? s.from : null,
      staged: true,
      unstaged: false,
      untracked: false,
    });
  }
  for (const u of input.unstaged) {
    const e = m.get(u.path);
    if (u.status === 'D') {
      if (e === undefined) {
        m.set(u.path, { change: 'removed', from: null, staged: false, unstaged: true, untracked: false });
      } else if (e.change === 'added') {
        m.delete(u.path);
      } else if (e.change === 'renamed' && e.from !== null) {
        m.delete(u.path);
        m.set(e.from, { change: 'removed', from: null, staged: true, unstaged: true, untracked: false });
      } else {
        m.set(u.path, { ...e, change: 'removed', unstaged: true });
      }
    } else if (e === undefined) {
      m.set(u.path, { change: 'modified', from: null, staged: false, unstaged: true, untracked: false });
    } else {
      e.unstaged = true;
    }
  }
  for (const p of input.untracked) {
    if (!m.has(p)) m.set(p, { change: 'added', from: null, staged: false, unstaged: true, untracked: true });
  }
  const out: ChangeEntry[] = [];
  for (const [path, d] of m) {
    if (isInternalPath(path) || (d.from !== null && isInternalPath(d.from))) continue;
    out.push({ path, ...d, sha256: null });
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/**
 * Pairs unstaged removals with untracked additions of identical content (by the removed path's
 * base digest) into renames: a move done without `git mv` is still a rename.
 *
 * @example
 * ```ts
 * pairRenames(entries, new Map([['old.ts', '<sha256 of old.ts at base>']]));
 * ```
 */
export function pairRenames(
  entries: readonly ChangeEntry[],
  baseDigests: ReadonlyMap<string, string>,
): ChangeEntry[] {
  const removed = new Map<string, string>();
  for (const e of entries) {
    const d = baseDigests.get(e.path);
    if (e.change === 'removed' && !e.staged && d !== undefined && !removed.has(d)) removed.set(d, e.path);
  }
  const consumed = new Set<string>();
  const out: ChangeEntry[] = [];
  for (const e of entries) {
    if (e.change === 'added' && e.untracked && e.sha256 !== null) {
      const from = removed.get(e.sha256);
      if (from !== undefined && !consumed.has(from)) {
        consumed.add(from);
        out.push({ ...e, change: 'renamed', from });
        continue;
      }
    }
    out.push(e);
  }
  return out.filter((e) => !(e.change === 'removed' && consumed.has(e.path)));
}

/**
 * The tree digest of a working-tree manifest (`path → content id`, where content ids are
 * `git:<blob id>` for files identical to the index and `sha256:<hex>` for files read from disk).
 *
 * @example
 * ```ts
 * treeDigest(new Map([['a.ts', 'sha256:…']])); // 64 hex
 * ```
 */
export function treeDigest(manifest: ReadonlyMap<string, string>): string {
  const entries = [...manifest.entries()]
    .filter(([p]) => !isInternalPath(p))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return digestOf({ schema: 'gate-tree/v1', entries });
}
