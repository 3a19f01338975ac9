/**
 * The workspace watch (layer 3, effects): what a worker could change besides its owned files, in
 * three zones, snapshotted right before a dispatch and compared after it returns (and again at
 * the checkpoint):
 * - `project` — every entry of the project tree except the owned files, the run store and the
 *   build-output folders in {@link UNWATCHED_DIRS}; regular files by mode and sha256, symbolic
 *   links by target (a directory swapped for a link, or a new link, is a change);
 * - `git` — the repository's control files a worker could turn against the runtime or the user
 *   (config, hooks, info, refs, HEAD, packed-refs, the index by its entries, …; not objects or
 *   logs), and every other `.git` found in the project (a nested repository's control files; a
 *   `.git` that appears is a change);
 * - `store` — every file under the run store's root (the runtime writes nothing there while a
 *   worker runs: progress goes to the invocation state file).
 *
 * Cost follows the change, not the project: snapshots go through a stat index
 * (src/runtime/stat-index.ts) that hashes only paths whose stat changed, plus racy entries.
 *
 * Without a sandbox, what a refused worker wrote is undone ({@link restoreWorkspace}): git control
 * files and the run store from bytes kept at dispatch; in the project, a created file is removed
 * (and the folders it created, once empty), a file that was clean in git is read back from git
 * (verified against the sha256 the watch recorded), any other file from bytes kept at dispatch
 * when small enough — the rest is named, never skipped silently.
 */
import { mkdirSync, rmdirSync } from 'node:fs';
import { lstat, rename, rm, symlink } from 'node:fs/promises';
import { basename, dirname, join, relative, sep } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import { runGit } from '../git/index.js';
import { containedStarts } from '../process/index.js';
import { gitIndexFingerprint, parseGitIndex } from './git-index-entries.js';
import { restoreFile, restoreTmpPath } from './owned-files.js';
import {
  createStatIndex,
  entryAt,
  indexedEntry,
  type KeptState,
  kindOf,
  nowNs,
  type StatIndex,
  statStamp,
  walkSync,
} from './stat-index.js';

/** Project folders a worker's toolchain may write (dependencies, build output); never committed by the runtime. */
export const UNWATCHED_DIRS: readonly string[] = ['node_modules', 'dist', '.lake'];

/** Paths under a git directory that git itself rewrites during ordinary reads; not watched. */
const GIT_TRANSIENT =
  /^(objects\/(?!info\/)|index\.lock$|logs\/|COMMIT_EDITMSG$|FETCH_HEAD$|ORIG_HEAD$|gc\.log$|lost-found\/|rr-cache\/)/;

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

const indexes = new WeakMap<WatchZones, StatIndex>();

/**
 * The stat index the watch uses for `zones` when the caller passes none: one per zones object,
 * created on first use.
 *
 * @example
 * ```ts
 * statIndexOf(custody.zones).hashes; // files hashed so far in this run
 * ```
 */
export function statIndexOf(zones: WatchZones): StatIndex {
  let index = indexes.get(zones);
  if (index === undefined) {
    index = createStatIndex();
    indexes.set(zones, index);
  }
  return index;
}

/** What one snapshot knows beyond its fingerprints: each key's restore state, the project's folders. */
interface SnapshotState {
  readonly index: StatIndex;
  /** The index generation of the snapshot (what each path's entry was then: `entryAt`). */
  readonly gen: number;
  readonly dirs: Set<string>;
  readonly zones: WatchZones;
  /** The watch's sequence number when the snapshot was taken. */
  readonly seq: number;
  /** {@link containedStarts} when the snapshot was taken. */
  readonly starts: number;
}
/** Orders snapshots and restores of one process (a restore between two snapshots is part of their change). */
let watchSeq = 0;
/**
 * The keys each restore put back, per zones object: a concurrent sibling's restore can undo a
 * write before this dispatch's watch looks again — the write still happened in its window.
 */
const restoreLog = new WeakMap<
  WatchZones,
  { readonly seq: number; readonly from: number | undefined; readonly keys: readonly string[] }[]
>();
const states = new WeakMap<WorkspaceSnapshot, SnapshotState>();
const lastSnapshot = new WeakMap<WatchZones, WorkspaceSnapshot>();
/** Per zones: every project path some snapshot left out (the only project files the runtime writes). */
const everExcluded = new WeakMap<WatchZones, Set<string>>();

function noteExcluded(zones: WatchZones, rels: ReadonlySet<string>): void {
  let all = everExcluded.get(zones);
  if (all === undefined) {
    all = new Set();
    everExcluded.set(zones, all);
  }
  for (const r of rels) all.add(r);
}

/** Largest git-control or store file whose bytes are kept (the git index: {@link MAX_KEPT_INDEX}). */
const MAX_KEPT = 4 * 1024 * 1024;
const MAX_KEPT_INDEX = 256 * 1024 * 1024;

/** The blob ids the repository's index gives the project's files (project-relative paths), cached by the index file's stamp. */
const oidCache = new WeakMap<StatIndex, { key: string; oids: ReadonlyMap<string, string> }>();

function indexOids(index: StatIndex, zones: WatchZones, takenNs: bigint): ReadonlyMap<string, string> {
  const gitDir = zones.gitDirs[0];
  if (gitDir === undefined || basename(gitDir) !== '.git') return new Map();
  const prefix = relative(dirname(gitDir), zones.projectRoot).split(sep).join('/');
  if (prefix.startsWith('..')) return new Map();
  const file = join(gitDir, 'index');
  const st = statStamp(file);
  if (st === null) return new Map();
  const key = `${st.size}:${st.mtimeNs}:${st.ctimeNs}:${st.ino}`;
  const hit = oidCache.get(index);
  if (hit?.key === key) return hit.oids;
  const oids = new Map<string, string>();
  // the git zone's entry for the index (its bytes kept): read now only when it changed
  const e = indexedEntry(index, file, st, takenNs, gitIndexPolicy);
  const bytes = e.kept.kind === 'file' ? e.kept.bytes : null;
  const head = prefix === '' ? '' : `${prefix}/`;
  for (const e of (bytes === null ? null : parseGitIndex(bytes)) ?? []) {
    if ((e.flags & 0x3000) !== 0 || !e.path.startsWith(head)) continue;
    if (e.mode !== 0o100644 && e.mode !== 0o100755) continue;
    oids.set(e.path.slice(head.length), e.oid);
  }
  oidCache.set(index, { key, oids });
  return oids;
}

const gitIndexPolicy = {
  keepUpTo: MAX_KEPT_INDEX,
  special: (bytes: Buffer) => {
    const fp = gitIndexFingerprint(bytes);
    return fp === null ? null : `index:${fp}`;
  },
};
const gitFilePolicy = { keepUpTo: MAX_KEPT };

/** Indexes one git directory's control files under `git:<abs>` keys. */
function snapGitDir(index: StatIndex, g: string, takenNs: bigint, out: Map<string, string>): void {
  walkSync(g, (rel, abs, isDir) => {
    if (rel !== 'objects' && GIT_TRANSIENT.test(isDir ? `${rel}/` : rel)) return false;
    if (isDir) return true;
    const st = statStamp(abs);
    if (st === null) {
      out.set(`git:${abs}`, 'unlisted');
      return;
    }
    const e = indexedEntry(index, abs, st, takenNs, rel === 'index' ? gitIndexPolicy : gitFilePolicy);
    out.set(`git:${abs}`, e.fp);
  });
}

/**
 * Snapshots the three zones; `owned` (absolute paths) are left out of the project zone. Hashes
 * only what changed since `index` last saw it (default: the index kept for `zones`,
 * {@link statIndexOf}).
 *
 * @example
 * ```ts
 * const before = await snapshotWorkspace(zones, ['/repo/A.lean']);
 * ```
 */
export async function snapshotWorkspace(
  zones: WatchZones,
  owned: readonly string[],
  index: StatIndex = statIndexOf(zones),
): Promise<WorkspaceSnapshot> {
  return snapshotWorkspaceSync(zones, owned, index);
}

/**
 * {@link snapshotWorkspace}, synchronously (the walk is synchronous either way).
 *
 * @example
 * ```ts
 * const before = snapshotWorkspaceSync(zones, ['/repo/A.lean']);
 * ```
 */
export function snapshotWorkspaceSync(
  zones: WatchZones,
  owned: readonly string[],
  index: StatIndex = statIndexOf(zones),
): WorkspaceSnapshot {
  const takenNs = nowNs();
  const gen = ++index.gen;
  const out = new Map<string, string>();
  const dirs = new Set<string>();
  const root = zones.projectRoot;
  const ownedRel = new Set(owned.map((p) => relative(root, p).split(sep).join('/')));
  const storeRel = zones.storeRoot === null ? null : relative(root, zones.storeRoot).split(sep).join('/');
  const gitDirSet = new Set(zones.gitDirs);
  const oids = indexOids(index, zones, takenNs);
  const project = { keepUpTo: index.keepEach };
  walkSync(root, (rel, abs, isDir, name) => {
    if (name === '.git') {
      if (gitDirSet.has(abs)) return false;
      if (isDir) {
        // a nested repository (or one that appeared): its control files are git state
        out.set(`git:${abs}/`, 'dir');
        snapGitDir(index, abs, takenNs, out);
        return false;
      }
      const st = statStamp(abs);
      if (st === null) return;
      const e = indexedEntry(index, abs, st, takenNs, gitFilePolicy);
      out.set(`git:${abs}`, e.fp);
      return;
    }
    if (storeRel !== null && rel === storeRel) return false;
    if (isDir) {
      if (UNWATCHED_DIRS.includes(name)) return false;
      dirs.add(rel);
      return true;
    }
    if (ownedRel.has(rel)) return;
    const key = `project:${rel}`;
    const st = statStamp(abs);
    if (st === null) {
      // listed but not stat-able (e.g. a name that is not valid UTF-8): still a path
      out.set(key, 'unlisted');
      return;
    }
    const oid = oids.get(rel);
    const e = indexedEntry(index, abs, st, takenNs, project, true, oid);
    out.set(key, e.fp);
  });
  return finishSnapshot(zones, index, takenNs, out, { gen, dirs }, ownedRel);
}

/**
 * The zones every snapshot walks afresh (git's control files, the run store), then the snapshot
 * recorded as the zones' last look: its state, the paths it left out.
 */
function finishSnapshot(
  zones: WatchZones,
  index: StatIndex,
  takenNs: bigint,
  out: Map<string, string>,
  s: { readonly gen: number; readonly dirs: Set<string> },
  excluded: ReadonlySet<string>,
): WorkspaceSnapshot {
  for (const g of zones.gitDirs) snapGitDir(index, g, takenNs, out);
  snapStore(index, zones, takenNs, out);
  noteExcluded(zones, excluded);
  states.set(out, { index, zones, seq: ++watchSeq, starts: containedStarts(), ...s });
  lastSnapshot.set(zones, out);
  return out;
}

/** Indexes the run store's files under `store:<rel>` keys. */
function snapStore(index: StatIndex, zones: WatchZones, takenNs: bigint, out: Map<string, string>): void {
  if (zones.storeRoot === null) return;
  walkSync(zones.storeRoot, (rel, abs, isDir) => {
    if (isDir) return true;
    const st = statStamp(abs);
    if (st === null) {
      out.set(`store:${rel}`, 'unlisted');
      return;
    }
    const e = indexedEntry(index, abs, st, takenNs, gitFilePolicy);
    out.set(`store:${rel}`, e.fp);
  });
}

/**
 * The snapshot a dispatch starts from: the last snapshot of `zones` carried over when nothing but
 * the runtime's own writes can have changed the project since — no process started through
 * src/process since it was taken (a check command, a planner, another worker: any of them may have
 * written anywhere) and no restore ran — else a fresh {@link snapshotWorkspaceSync}. Carrying
 * costs O(files the runtime wrote): the project zone is the last snapshot's, with every path a
 * snapshot of `zones` ever left out (owned files: the only project files the runtime writes
 * between dispatches) stat'ed again; git's control files and the run store are walked again
 * (small, and the runtime writes them at every checkpoint and journal write).
 *
 * Sound for detection: the baseline never postdates the dispatch's start, so every write in the
 * dispatch's window still differs from it; a write between the last look and the dispatch (a
 * late writer left by an earlier worker) is charged to this dispatch and undone with its changes
 * instead of being taken into the baseline unseen. One project walk per dispatch instead of two.
 *
 * @example
 * ```ts
 * const before = snapshotForDispatch(zones, owned); // O(owned) after the previous dispatch's after-walk
 * ```
 */
export function snapshotForDispatch(
  zones: WatchZones,
  owned: readonly string[],
  index: StatIndex = statIndexOf(zones),
): WorkspaceSnapshot {
  const last = lastSnapshot.get(zones);
  const ls = last === undefined ? undefined : states.get(last);
  const restoredSince = (restoreLog.get(zones) ?? []).some((e) => ls !== undefined && e.seq > ls.seq);
  if (
    last === undefined ||
    ls === undefined ||
    ls.index !== index ||
    ls.starts !== containedStarts() ||
    restoredSince ||
    ls.gen < index.undoFloor
  )
    return snapshotWorkspaceSync(zones, owned, index);
  const takenNs = nowNs();
  const gen = ++index.gen;
  const root = zones.projectRoot;
  const out = new Map<string, string>();
  const nested: string[] = [];
  for (const [k, v] of last) {
    if (k.startsWith('project:')) out.set(k, v);
    else if (k.startsWith('git:') && k.endsWith('/.git/')) nested.push(k.slice(4, -1));
    else if (k.startsWith('git:') && basename(k) === '.git') nested.push(k.slice(4));
  }
  const dirs = new Set(ls.dirs);
  const ownedRel = new Set(owned.map((p) => relative(root, p).split(sep).join('/')));
  const oids = indexOids(index, zones, takenNs);
  const project = { keepUpTo: index.keepEach };
  for (const rel of new Set([...(everExcluded.get(zones) ?? []), ...ownedRel])) {
    const key = `project:${rel}`;
    if (ownedRel.has(rel)) {
      out.delete(key);
      continue;
    }
    const abs = join(root, rel);
    const st = statStamp(abs);
    if (st === null) {
      out.delete(key);
      continue;
    }
    out.set(key, indexedEntry(index, abs, st, takenNs, project, true, oids.get(rel)).fp);
    for (let d = dirname(rel); d !== '.' && d !== ''; d = dirname(d)) dirs.add(d);
  }
  for (const abs of nested) {
    const st = statStamp(abs);
    if (st === null) continue;
    if (kindOf(st) === 0o040000) {
      out.set(`git:${abs}/`, 'dir');
      snapGitDir(index, abs, takenNs, out);
    } else out.set(`git:${abs}`, indexedEntry(index, abs, st, takenNs, gitFilePolicy).fp);
  }
  return finishSnapshot(zones, index, takenNs, out, { gen, dirs }, ownedRel);
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
  const changed = new Set<string>();
  for (const [k, v] of a) if (b.get(k) !== v) changed.add(k);
  for (const k of b.keys()) if (!a.has(k)) changed.add(k);
  // what a restore of the same zones put back between the two snapshots changed in this window too
  const sa = states.get(a);
  const sb = states.get(b);
  if (sa !== undefined && sb !== undefined && sa.zones === sb.zones) {
    // (a restore from this same `a`'s kept state is this window's own undo, not a write in it)
    for (const e of restoreLog.get(sa.zones) ?? [])
      if (e.seq > sa.seq && e.seq < sb.seq && e.from !== sa.seq) for (const k of e.keys) changed.add(k);
  }
  const keys = [...changed].sort();
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

/**
 * What a restore needs of every watched path at one moment (keys as in {@link snapshotWorkspace}):
 * kept bytes (git control files, run store, small project files not clean in git), a link's
 * target, `git` for a project file git holds (restored from git, verified), `large` for a file
 * over the keep bounds, `special` for what cannot be put back (a FIFO, a socket, a device).
 */
export type ZoneBytes = ReadonlyMap<string, KeptState>;

const keptDirs = new WeakMap<ZoneBytes, ReadonlySet<string>>();
const keptFrom = new WeakMap<ZoneBytes, number>();

/**
 * What a restore needs, as of `snapshot` (default: the last snapshot taken of `zones`, or a fresh
 * one). Nothing is read again: the snapshot's stat index kept it.
 *
 * @example
 * ```ts
 * const before = await snapshotWorkspace(zones, owned);
 * const kept = await captureZoneBytes(zones, before);
 * ```
 */
export async function captureZoneBytes(zones: WatchZones, snapshot?: WorkspaceSnapshot): Promise<ZoneBytes> {
  let snap = snapshot ?? lastSnapshot.get(zones) ?? snapshotWorkspaceSync(zones, []);
  let state = states.get(snap);
  if (state === undefined) {
    snap = snapshotWorkspaceSync(zones, []);
    state = states.get(snap) as SnapshotState;
  }
  const out = new SnapshotKept(snap, state, zones);
  keptDirs.set(out, state.dirs);
  keptFrom.set(out, state.seq);
  return out;
}

/**
 * A snapshot's restore state, read from its stat index on demand (`entryAt`): nothing is copied
 * per snapshot, so capturing it costs nothing at 80,000 files.
 */
class SnapshotKept implements ReadonlyMap<string, KeptState> {
  constructor(
    private readonly snap: WorkspaceSnapshot,
    private readonly state: SnapshotState,
    private readonly zones: WatchZones,
  ) {}
  get size(): number {
    return this.snap.size;
  }
  get(key: string): KeptState | undefined {
    const fp = this.snap.get(key);
    if (fp === undefined || fp === 'unlisted') return undefined;
    if (fp === 'dir') return { kind: 'special' };
    const colon = key.indexOf(':');
    const zone = key.slice(0, colon);
    const path = key.slice(colon + 1);
    const abs =
      zone === 'git'
        ? path
        : zone === 'store'
          ? join(this.zones.storeRoot as string, path)
          : join(this.zones.projectRoot, path);
    const e = entryAt(this.state.index, abs, this.state.gen);
    // null: the bounded undo log no longer reaches this snapshot — named as too large to keep
    if (e === null) return { kind: 'large' };
    return e === undefined || e.fp !== fp ? { kind: 'large' } : e.kept;
  }
  has(key: string): boolean {
    return this.get(key) !== undefined;
  }
  forEach(fn: (value: KeptState, key: string, map: ReadonlyMap<string, KeptState>) => void): void {
    for (const [k, v] of this.entries()) fn(v, k, this);
  }
  *entries(): MapIterator<[string, KeptState]> {
    for (const k of this.snap.keys()) {
      const v = this.get(k);
      if (v !== undefined) yield [k, v];
    }
  }
  *keys(): MapIterator<string> {
    for (const [k] of this.entries()) yield k;
  }
  *values(): MapIterator<KeptState> {
    for (const [, v] of this.entries()) yield v;
  }
  [Symbol.iterator](): MapIterator<[string, KeptState]> {
    return this.entries();
  }
}

/** What {@link restoreWorkspace} did, as keys of {@link workspaceChanges} per zone prefix (`project:B.lean`). */
export interface RestoreReport {
  /** Paths put back (or removed, when the worker created them). */
  readonly restored: readonly string[];
  /** Paths whose bytes were over the keep bounds at dispatch. */
  readonly tooLarge: readonly string[];
  /** Paths that could not be put back (a failed write, a special file, a folder swapped for a link, …). */
  readonly failed: readonly string[];
}

/**
 * Whether every folder from `base` down to `abs`'s parent is a real folder, creating the missing
 * ones (a restore puts a file back only below real folders, never through a link).
 *
 * @example
 * ```ts
 * safeParent('/repo', '/repo/src/a.ts'); // true: /repo/src is (now) a real folder
 * ```
 */
export function safeParent(base: string, abs: string): boolean {
  const rel = relative(base, dirname(abs));
  if (rel.startsWith('..')) return false;
  let cur = base;
  for (const part of rel === '' ? [] : rel.split(sep)) {
    cur = join(cur, part);
    const st = statStamp(cur);
    if (st === null) {
      try {
        mkdirSync(cur);
      } catch {
        return false;
      }
      continue;
    }
    if (kindOf(st) !== 0o040000) return false;
  }
  return true;
}

async function putBack(
  base: string,
  abs: string,
  want: KeptState,
  projectRoot: string,
  rel: string,
): Promise<'ok' | 'large' | 'failed'> {
  if (want.kind === 'large') return 'large';
  if (want.kind === 'special') return 'failed';
  if (!safeParent(base, abs)) return 'failed';
  const st = await lstat(abs).catch(() => null);
  if (st?.isDirectory()) await rm(abs, { recursive: true, force: true });
  if (want.kind === 'link') {
    const tmp = restoreTmpPath(abs);
    await symlink(want.to, tmp);
    await rename(tmp, abs);
    return 'ok';
  }
  if (want.kind === 'file') {
    restoreFile(abs, want.bytes, want.mode);
    return 'ok';
  }
  // clean in git at dispatch: HEAD's blob or the index's, whichever has the recorded sha256
  for (const spec of [`HEAD:./${rel}`, `:./${rel}`]) {
    const blob = await runGit(projectRoot, ['cat-file', 'blob', spec], { allowFail: true });
    if (sha256Hex(blob) === want.sha256) {
      restoreFile(abs, blob, want.mode);
      return 'ok';
    }
  }
  return 'failed';
}

/**
 * Undoes `changes` (from a snapshot `kept` was captured with) in every zone: git control files
 * first (so the repository is the dispatch's before anything is read from it), then the run store,
 * then the project. A created path is removed (a created nested `.git` with everything in it; a
 * project folder that did not exist at dispatch once it is empty again); a changed or removed one
 * gets its kept bytes or link back, or — a project file clean in git — git's blob, verified against
 * the sha256 recorded at dispatch. Nothing is written through a folder swapped for a link.
 *
 * @example
 * ```ts
 * await restoreWorkspace(zones, kept, workspaceChanges(before, after));
 * // { restored: ['project:B.lean'], tooLarge: [], failed: [] }
 * ```
 */
export async function restoreWorkspace(
  zones: WatchZones,
  kept: ZoneBytes,
  changes: WorkspaceChanges,
): Promise<RestoreReport> {
  const restored: string[] = [];
  const tooLarge: string[] = [];
  const failed: string[] = [];
  const root = zones.projectRoot;
  const baseOfGit = (p: string) =>
    zones.gitDirs.find((g) => p.startsWith(`${g}/`)) ??
    (p.includes('/.git/') ? p.slice(0, p.lastIndexOf('/.git/') + 5) : dirname(p));
  const targets = [
    ...changes.git.map((p) => ({ key: `git:${p}`, abs: p, base: baseOfGit(p), rel: '' })),
    ...(zones.storeRoot === null
      ? []
      : changes.store.map((p) => ({
          key: `store:${p}`,
          abs: join(zones.storeRoot as string, p),
          base: zones.storeRoot as string,
          rel: p,
        }))),
    ...changes.project.map((p) => ({ key: `project:${p}`, abs: join(root, p), base: root, rel: p })),
  ];
  const createdDirs = new Set<string>();
  const dirs = keptDirs.get(kept);
  // removals first: a created link or folder on the way is gone before anything is written below it
  for (const t of targets) {
    if (kept.has(t.key)) continue;
    try {
      if (t.key.startsWith('git:') || safeParentNoCreate(t.base, t.abs)) {
        await rm(t.abs, { recursive: true, force: true });
        restored.push(t.key);
      } else failed.push(t.key);
    } catch {
      failed.push(t.key);
    }
    if (t.key.startsWith('project:') && dirs !== undefined) {
      for (let d = dirname(t.rel); d !== '.' && d !== '' && !dirs.has(d); d = dirname(d)) createdDirs.add(d);
    }
  }
  for (const d of [...createdDirs].sort((a, b) => b.length - a.length)) {
    try {
      rmdirSync(join(root, d));
    } catch {
      // not empty (something unwatched is in it) or already gone: left as it is
    }
  }
  for (const t of targets) {
    const want = kept.get(t.key);
    if (want === undefined) continue;
    try {
      const r = await putBack(t.base, t.abs, want, root, t.rel);
      (r === 'ok' ? restored : r === 'large' ? tooLarge : failed).push(t.key);
    } catch {
      failed.push(t.key);
    }
  }
  const log = restoreLog.get(zones) ?? [];
  log.push({ seq: ++watchSeq, from: keptFrom.get(kept), keys: targets.map((t) => t.key) });
  restoreLog.set(zones, log.slice(-64));
  return { restored, tooLarge, failed };
}

function safeParentNoCreate(base: string, abs: string): boolean {
  const rel = relative(base, dirname(abs));
  if (rel.startsWith('..')) return false;
  let cur = base;
  for (const part of rel === '' ? [] : rel.split(sep)) {
    cur = join(cur, part);
    const st = statStamp(cur);
    if (st === null) return true; // nothing below a missing folder to remove
    if (kindOf(st) !== 0o040000) return false;
  }
  return true;
}

/**
 * Undoes the changes to every zone ({@link restoreWorkspace}); resolves to the keys it could not
 * restore (a file over the keep bounds, or a failed write).
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
  const r = await restoreWorkspace(zones, kept, changes);
  return [...r.tooLarge, ...r.failed];
}
