/**
 * One fs store instance's shared state, and where its runs are: the file-system layer, the root,
 * the clock (event and lock timestamps formatted once per second), the lock body, the path,
 * descriptor and manifest caches, and `locateRun` — the containment check every append and load
 * starts with (runs/ and the run directory must be real directories, never symlinks).
 */
import { canonicalJson } from '../canonical/index.js';
import { errnoOf, type FsLayer, type FsStat } from '../durable/index.js';
import type { IdSource } from '../ids/index.js';
import { HeldJournals } from './fs-held-journals.js';
import { HeldLocks } from './fs-held-locks.js';
import { type RunPaths, runPaths } from './fs-layout.js';
import type { ManifestCache } from './fs-manifest.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId } from './run-id.js';
import { refused, type StoreCode, type StoreResult } from './store.js';

/**
 * The settled settings of one store instance (defaults applied by `createFsStore`).
 *
 * @example
 * ```ts
 * const ctx = createFsContext({ fsl: nodeFsLayer(), root: '/p/.handoff', now: () => new Date(), … });
 * ```
 */
export interface FsSettings {
  readonly fsl: FsLayer;
  readonly root: string;
  readonly now: () => Date;
  readonly runIdSuffix: IdSource | undefined;
  readonly pluginVersion: string;
  readonly pid: number;
  readonly host: string;
  readonly gitTracked: (runsDir: string) => readonly string[];
  /** Keep each run's lock across mutations until close or exit (see `fs-held-locks.ts`). */
  readonly holdLocks?: boolean;
}

/**
 * One store instance: its settings, caches and clock helpers.
 *
 * @example
 * ```ts
 * const p = ctx.pathsOf(runId); acquireLock(ctx.fsl, p.lock, ctx.lockBody(ctx.stamp()));
 * ```
 */
export interface FsContext extends FsSettings {
  /** Journal states and held descriptors. */
  readonly journals: HeldJournals;
  /** The run locks held across mutations (`holdLocks`), or null: one lock per mutation. */
  readonly locks: HeldLocks | null;
  /** Validated manifests by run id (immutable files: keyed by inode and size). */
  readonly manifests: ManifestCache;
  /** The current time as `YYYY-MM-DDTHH:MM:SSZ` (formatted once per second). */
  stamp(): string;
  /** The lock's diagnostic body `{acquired, host, pid}` as one canonical line (rebuilt when `acquired` changes). */
  lockBody(acquired: string): Buffer;
  /** The paths of a run (cached). */
  pathsOf(runId: string): RunPaths;
}

/**
 * Builds the context of one store instance.
 *
 * @example
 * ```ts
 * const ctx = createFsContext(settings);
 * ctx.stamp(); // '2026-11-30T10:00:00Z'
 * ```
 */
export function createFsContext(settings: FsSettings): FsContext {
  const { fsl, root, now, pid, host } = settings;
  // event and lock timestamps have second precision: format once per second
  let stampSecond = Number.NaN;
  let stampText = '';
  // the lock's diagnostic body, written with one write(2); rebuilt when the second changes
  let lockBodyStamp = '';
  let lockBodyBytes = Buffer.alloc(0);
  const pathCache = new Map<string, RunPaths>();
  return {
    ...settings,
    journals: new HeldJournals(fsl),
    locks: settings.holdLocks === true ? new HeldLocks(fsl) : null,
    manifests: new Map(),
    stamp() {
      const d = now();
      const second = Math.floor(d.getTime() / 1000);
      if (second !== stampSecond) {
        stampText = formatTimestamp(d); // throws for an invalid clock value, as before
        stampSecond = second;
      }
      return stampText;
    },
    lockBody(acquired) {
      if (acquired !== lockBodyStamp) {
        lockBodyBytes = Buffer.from(`${canonicalJson({ pid, host, acquired })}\n`);
        lockBodyStamp = acquired;
      }
      return lockBodyBytes;
    },
    pathsOf(runId) {
      let p = pathCache.get(runId);
      if (p === undefined) {
        p = runPaths(root, runId);
        if (pathCache.size > 1000) pathCache.clear();
        pathCache.set(runId, p);
      }
      return p;
    },
  };
}

/**
 * True for a symlink or anything but a directory (a runs or run directory that is not contained).
 *
 * @example
 * ```ts
 * if (isSymlinkOrNotDir(fsl.lstat(runs))) refuse('containment');
 * ```
 */
export function isSymlinkOrNotDir(st: FsStat): boolean {
  return st.isSymbolicLink() || !st.isDirectory();
}

/**
 * The `unsupported_platform` refusal on Windows (mutations need O_EXCL and directory fsync), else null.
 *
 * @example
 * ```ts
 * const r = posixOnly(ctx, runId); if (r !== null) return r;
 * ```
 */
export function posixOnly(ctx: FsContext, runId: string | null): StoreResult | null {
  return ctx.fsl.platform === 'win32'
    ? refused(
        runId,
        'unsupported_platform',
        'mutations need POSIX file semantics (O_EXCL, fsync of directories)',
      )
    : null;
}

/**
 * The storage root as recorded in manifests: its real path when it exists.
 *
 * @example
 * ```ts
 * recordedRoot(ctx); // '/real/p/.handoff'
 * ```
 */
export function recordedRoot(ctx: FsContext): string {
  try {
    return ctx.fsl.realpath(ctx.root);
  } catch {
    return ctx.root;
  }
}

/**
 * Where a run is, or why it cannot be used: the run directory for reading or mutating, after
 * checking the run id and that runs/ and the run directory are real directories (fast path: two
 * lstats); otherwise the precise refusal (`no_storage_root`, `no_runs_dir`, `no_such_run`,
 * `containment`, `bad_run_id`).
 *
 * @example
 * ```ts
 * const loc = locateRun(ctx, runId);
 * if (!loc.ok) return refused(runId, loc.code, loc.detail);
 * ```
 */
export function locateRun(
  ctx: FsContext,
  runId: string,
): { ok: true; paths: RunPaths } | { ok: false; code: StoreCode; detail: string } {
  const { fsl, root } = ctx;
  if (!isRunId(runId)) return { ok: false, code: 'bad_run_id', detail: `not a run id: ${quoteValue(runId)}` };
  const p = ctx.pathsOf(runId);
  const stat = (file: string): FsStat | 'absent' | 'error' => {
    try {
      return fsl.lstat(file);
    } catch (e) {
      return errnoOf(e) === 'ENOENT' ? 'absent' : 'error';
    }
  };
  // fast path (every append): the run directory and runs/ are real directories
  const dirSt = stat(p.dir);
  if (dirSt !== 'absent' && dirSt !== 'error' && !isSymlinkOrNotDir(dirSt)) {
    const runsSt = stat(p.runs);
    if (runsSt !== 'absent' && runsSt !== 'error' && !isSymlinkOrNotDir(runsSt))
      return { ok: true, paths: p };
  }
  // slow path: say precisely what is missing or not contained
  let rootSt: FsStat | 'absent' | 'error';
  try {
    rootSt = fsl.lstat(fsl.realpath(root));
  } catch (e) {
    rootSt = errnoOf(e) === 'ENOENT' ? 'absent' : 'error';
  }
  if (rootSt === 'absent')
    return { ok: false, code: 'no_storage_root', detail: `no storage root at ${root}` };
  if (rootSt === 'error' || !rootSt.isDirectory())
    return {
      ok: false,
      code: 'no_storage_root',
      detail: `storage root ${root} is not a readable directory`,
    };
  const runsSt = stat(p.runs);
  if (runsSt === 'absent')
    return { ok: false, code: 'no_runs_dir', detail: `no runs directory at ${p.runs}` };
  if (runsSt === 'error') return { ok: false, code: 'no_runs_dir', detail: `cannot stat ${p.runs}` };
  if (isSymlinkOrNotDir(runsSt))
    return { ok: false, code: 'containment', detail: `${p.runs} is a symlink or not a directory` };
  const dirSt2 = stat(p.dir);
  if (dirSt2 === 'absent') return { ok: false, code: 'no_such_run', detail: `no run ${runId} in ${root}` };
  if (dirSt2 === 'error') return { ok: false, code: 'no_such_run', detail: `cannot stat ${p.dir}` };
  if (isSymlinkOrNotDir(dirSt2))
    return {
      ok: false,
      code: 'containment',
      detail: `run directory ${p.dir} is a symlink or not a directory`,
    };
  return { ok: true, paths: p };
}
