/**
 * The workspace watch (layer 3, effects): what a worker could change besides its owned files, in
 * three zones, snapshotted right before a dispatch and compared after it returns (and again at
 * the checkpoint):
 * - `project` — every entry of the project tree except the owned files, `.git`, the run store and
 *   the build-output folders in {@link UNWATCHED_DIRS}; regular files by mode and sha256,
 *   symbolic links by target (a directory swapped for a link, or a new link, is a change);
 * - `git` — the repository's control files a worker could turn against the runtime or the user
 *   (config, hooks, info, refs, HEAD, packed-refs, …; not objects, the index or logs);
 * - `store` — every file under the run store's root (the runtime writes nothing there while a
 *   worker runs: progress goes to the invocation state file).
 */
import { lstat, readdir, readFile, readlink, rename, rm, symlink } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import { runGit } from '../git/index.js';
import { restoreFile, restoreTmpPath } from './owned-files.js';

/** Project folders a worker's toolchain may write (dependencies, build output); never committed by the runtime. */
export const UNWATCHED_DIRS: readonly string[] = ['node_modules', 'dist', '.lake'];

/** Paths under a git directory that git itself rewrites during ordinary reads; not watched. */
const GIT_TRANSIENT =
  /^(objects\/(?!info\/)|index$|index\.lock$|logs\/|COMMIT_EDITMSG$|FETCH_HEAD$|ORIG_HEAD$|gc\.log$|lost-found\/|rr-cache\/)/;

/** The zones of one watch. */
export interface WatchZones {
  /** The project root (a realpath). */
  readonly projectRoot: string;
  /** The repository's git directories (`--absolute-git-dir` and the common dir), if any. */
  readonly gitDirs: readonly string[];
  /** The fs run store's root, when the run persists to one. */
  readonly storeRoot: string | null;
}

/** A snapshot: `<zone>:<path>` → fingerprint. */
export type WorkspaceSnapshot = ReadonlyMap<string, string>;

/** Changed keys per zone (created, changed or removed), sorted. */
export interface WorkspaceChanges {
  readonly project: readonly string[];
  readonly git: readonly string[];
  readonly store: readonly string[];
}

/**
 * The git directories of the repository containing `root` (empty outside a repository).
 *
 * @example
 * ```ts
 * await gitDirsOf('/repo'); // ['/repo/.git']
 * ```
 */
export async function gitDirsOf(root: string): Promise<string[]> {
  const out = await runGit(root, ['rev-parse', '--absolute-git-dir', '--git-common-dir'], {
    allowFail: true,
  });
  const lines = out
    .toString('utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => (l.startsWith('/') ? l : join(root, l)));
  return [...new Set(lines)];
}

async function fingerprint(abs: string): Promise<string | null> {
  const st = await lstat(abs).catch(() => null);
  if (st === null) return null;
  if (st.isSymbolicLink()) return `link:${await readlink(abs).catch(() => '?')}`;
  if (st.isFile()) {
    const buf = await readFile(abs).catch(() => null);
    const h = buf === null ? 'unreadable' : sha256Hex(buf);
    return `file:${(st.mode & 0o7777).toString(8)}:${h}`;
  }
  if (st.isDirectory()) return null;
  return `special:${st.mode.toString(8)}`;
}

async function walk(
  base: string,
  skip: (rel: string, isDir: boolean) => boolean,
  put: (rel: string, fp: string) => void,
): Promise<void> {
  const stack = [base];
  while (stack.length > 0) {
    const dir = stack.pop() as string;
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      const abs = join(dir, e.name);
      const rel = relative(base, abs).split(sep).join('/');
      const isDir = e.isDirectory();
      if (skip(rel, isDir)) continue;
      if (isDir) {
        stack.push(abs);
        continue;
      }
      const fp = await fingerprint(abs);
      if (fp !== null) put(rel, fp);
    }
  }
}

/**
 * Snapshots the three zones; `owned` (absolute paths) are left out of the project zone.
 *
 * @example
 * ```ts
 * const before = await snapshotWorkspace(zones, ['/repo/A.lean']);
 * ```
 */
export async function snapshotWorkspace(
  zones: WatchZones,
  owned: readonly string[],
): Promise<WorkspaceSnapshot> {
  const out = new Map<string, string>();
  const ownedRel = new Set(owned.map((p) => relative(zones.projectRoot, p).split(sep).join('/')));
  const storeRel =
    zones.storeRoot === null ? null : relative(zones.projectRoot, zones.storeRoot).split(sep).join('/');
  await walk(
    zones.projectRoot,
    (rel, isDir) => {
      const name = rel.slice(rel.lastIndexOf('/') + 1);
      if (name === '.git') return true;
      if (storeRel !== null && rel === storeRel) return true;
      if (isDir && UNWATCHED_DIRS.includes(name)) return true;
      return !isDir && ownedRel.has(rel);
    },
    (rel, fp) => out.set(`project:${rel}`, fp),
  );
  for (const g of zones.gitDirs) {
    await walk(
      g,
      (rel, isDir) => rel !== 'objects' && GIT_TRANSIENT.test(isDir ? `${rel}/` : rel),
      (rel, fp) => out.set(`git:${join(g, rel)}`, fp),
    );
  }
  if (zones.storeRoot !== null) {
    const root = zones.storeRoot;
    await walk(
      root,
      () => false,
      (rel, fp) => out.set(`store:${rel}`, fp),
    );
  }
  return out;
}

/**
 * The keys that differ between two snapshots, per zone (pure).
 *
 * @example
 * ```ts
 * workspaceChanges(before, after).git; // ['/repo/.git/hooks/pre-commit']
 * ```
 */
export function workspaceChanges(a: WorkspaceSnapshot, b: WorkspaceSnapshot): WorkspaceChanges {
  const keys = [...new Set([...a.keys(), ...b.keys()])].filter((k) => a.get(k) !== b.get(k)).sort();
  const of = (zone: string) =>
    keys.filter((k) => k.startsWith(`${zone}:`)).map((k) => k.slice(zone.length + 1));
  return { project: of('project'), git: of('git'), store: of('store') };
}

/**
 * One line describing the changes, or null when there are none (pure).
 *
 * @example
 * ```ts
 * describeWorkspaceChanges({ project: [], git: ['/r/.git/config'], store: [] });
 * // 'the worker changed git state: /r/.git/config'
 * ```
 */
export function describeWorkspaceChanges(c: WorkspaceChanges): string | null {
  const parts: string[] = [];
  const list = (xs: readonly string[]) =>
    `${xs.slice(0, 8).join(', ')}${xs.length > 8 ? `, … (${xs.length})` : ''}`;
  if (c.project.length > 0) parts.push(`the worker wrote outside its owned files: ${list(c.project)}`);
  if (c.git.length > 0) parts.push(`the worker changed git state: ${list(c.git)}`);
  if (c.store.length > 0) parts.push(`the worker wrote into the run store: ${list(c.store)}`);
  return parts.length === 0 ? null : parts.join('; ');
}

/** The bytes of the runtime's own zones (git control files, run store) at one moment. */
export type ZoneBytes = ReadonlyMap<
  string,
  | { readonly kind: 'file'; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'link'; readonly to: string }
  /** Existed, but over the size limit: watched by hash only. */
  | { readonly kind: 'large' }
>;

/** Files larger than this are watched by hash only and cannot be put back. */
const MAX_KEPT = 4 * 1024 * 1024;

/**
 * Keeps the bytes of every file of the git and store zones (keys as in {@link snapshotWorkspace}),
 * so a worker's change to them can be undone exactly.
 *
 * @example
 * ```ts
 * const kept = await captureZoneBytes(zones);
 * ```
 */
export async function captureZoneBytes(zones: WatchZones): Promise<ZoneBytes> {
  const out = new Map<
    string,
    { kind: 'file'; bytes: Buffer; mode: number } | { kind: 'link'; to: string } | { kind: 'large' }
  >();
  const keep = async (key: string, abs: string) => {
    const st = await lstat(abs).catch(() => null);
    if (st === null) return;
    if (st.isSymbolicLink()) out.set(key, { kind: 'link', to: await readlink(abs) });
    else if (st.isFile() && st.size <= MAX_KEPT) {
      out.set(key, { kind: 'file', bytes: await readFile(abs), mode: st.mode & 0o7777 });
    } else out.set(key, { kind: 'large' });
  };
  for (const g of zones.gitDirs) {
    const pending: Promise<void>[] = [];
    await walk(
      g,
      (rel, isDir) => rel !== 'objects' && GIT_TRANSIENT.test(isDir ? `${rel}/` : rel),
      (rel) => pending.push(keep(`git:${join(g, rel)}`, join(g, rel))),
    );
    await Promise.all(pending);
  }
  if (zones.storeRoot !== null) {
    const root = zones.storeRoot;
    const pending: Promise<void>[] = [];
    await walk(
      root,
      () => false,
      (rel) => pending.push(keep(`store:${rel}`, join(root, rel))),
    );
    await Promise.all(pending);
  }
  return out;
}

/**
 * Undoes the changes to the git and store zones: a changed file gets its kept bytes back (written
 * beside it and renamed over it), a created one is removed. Resolves to the keys it could not
 * restore (a file over the size limit, or a failed write).
 *
 * @example
 * ```ts
 * await restoreZones(zones, kept, workspaceChanges(before, after)); // []
 * ```
 */
export async function restoreZones(
  zones: WatchZones,
  kept: ZoneBytes,
  changes: WorkspaceChanges,
): Promise<string[]> {
  const failed: string[] = [];
  const targets = [
    ...changes.git.map((p) => ({ key: `git:${p}`, abs: p })),
    ...(zones.storeRoot === null
      ? []
      : changes.store.map((p) => ({ key: `store:${p}`, abs: join(zones.storeRoot as string, p) }))),
  ];
  for (const { key, abs } of targets) {
    const want = kept.get(key);
    try {
      const st = await lstat(abs).catch(() => null);
      if (want === undefined) {
        // created by the worker
        if (st !== null) await rm(abs, { recursive: true, force: true });
        continue;
      }
      if (want.kind === 'large') {
        failed.push(key);
        continue;
      }
      if (st?.isDirectory()) await rm(abs, { recursive: true, force: true });
      if (want.kind === 'link') {
        const tmp = restoreTmpPath(abs);
        await symlink(want.to, tmp);
        await rename(tmp, abs);
      } else restoreFile(abs, want.bytes, want.mode);
    } catch {
      failed.push(key);
    }
  }
  return failed;
}
