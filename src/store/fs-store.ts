/**
 * The file-system {@link Store} (default backend): run-store/v1 under `<root>/runs/<run-id>/`.
 *
 * Durability: an append is acknowledged (`committed`) only after its line was written completely
 * and the journal fsync'd; files published whole (manifest, `.gitignore`, handoff cache) go
 * through temp + fsync + rename + directory fsync; new directory entries are made durable by
 * fsyncing their directory. A failure once writing may have begun is `indeterminate` with the
 * failing `step`. Nothing is ever rewritten or truncated: a damaged journal is reported by
 * `load` and refused by appends (`journal_damaged`).
 */

import { hostname } from 'node:os';
import * as path from 'node:path';
import { canonicalJson } from '../canonical/index.js';
import {
  errnoOf,
  type FsLayer,
  type FsStat,
  fsyncDir,
  nodeFsLayer,
  O,
  publishFile,
  readFileNoFollow,
  readRange,
  StepFailure,
  writeFully,
} from '../durable/index.js';
import type { IdSource } from '../ids/index.js';
import { randomHex } from '../ids/index.js';
import {
  type AppendEventSchema,
  appendEventSchema,
  eventLine,
  lockedAppendRefusal,
  prepareAppend,
} from './append-rules.js';
import {
  buildChainManifest,
  type ChainTail,
  type CreateChainRunInput,
  parseChainJournal,
  startTail,
  tailOf,
} from './chain-rules.js';
import { type BatonCommitPayload, isChainManifest, type StoredManifest } from './chain-schema.js';
import { type RunPaths, resolveStoreRoot, runPaths, type StoreRootInput } from './fs-layout.js';
import { acquireLock, releaseLock } from './fs-lock.js';
import { gitTrackedUnder } from './git-index.js';
import { parseJournal } from './journal-parse.js';
import { buildManifest, RUNTIME_VERSION } from './manifest.js';
import { quoteValue } from './quote-value.js';
import { formatTimestamp, isRunId } from './run-id.js';
import { assembleChainLoad, assembleLoad, contractLoadOnly } from './run-load.js';
import { CACHE_SCHEMA, eventSchemaOf, type HandoffCache } from './schema.js';
import {
  type AnyLoadResult,
  type ChainRunStore,
  type CreateRunInput,
  type LoadResult,
  refused,
  type StoreCode,
  type StoreEventKind,
  type StoreResult,
  storeResult,
} from './store.js';
import { validateHandoffCache, validateStoredManifest } from './validate-payload.js';

/** Options of {@link createFsStore}. Root precedence: `root` → `$HANDOFF_RUN_STORE` → `<projectRoot>/.handoff`. */
export interface FsStoreOptions extends StoreRootInput {
  /**
   * The file-system layer (fault injection in tests). Default: node:fs.
   *
   * @internal
   */
  readonly fs?: FsLayer;
  /** Clock for `created` and event `ts`. */
  readonly now?: () => Date;
  /** The source of a new run id's 8 hex digits (deterministic tests). Default: random (nanoid). */
  readonly runIdSuffix?: IdSource;
  /** Recorded as `plugin_version`. */
  readonly pluginVersion?: string;
  /** Lock diagnostics. */
  readonly pid?: number;
  readonly host?: string;
  /**
   * The `git_tracked` guard: paths under the runs directory that Git tracks (a non-empty answer
   * refuses create). Default: ask the containing repository with `git ls-files` ({@link gitTrackedUnder}).
   */
  readonly gitTracked?: (runsDir: string) => readonly string[];
}

/** The fs store, with its resolved root and the run-directory helper. */
export interface FsStore extends ChainRunStore {
  readonly backend: 'fs';
  /** Directory of a run (no check that it exists). */
  runDirectory(runId: string): string;
  /**
   * Closes the journal descriptors this instance keeps open between appends (at most
   * {@link HELD_JOURNALS}). Optional: they are also closed when the instance is garbage
   * collected, and the store stays usable (the next append reopens the journal).
   *
   * @example
   * ```ts
   * const store = createFsStore({ root });
   * try { await store.append(id, 'note', n); } finally { store.close(); }
   * ```
   */
  close(): void;
}

/** How many journal descriptors one {@link FsStore} keeps open between appends (least recently used are closed). */
export const HELD_JOURNALS = 8;

/**
 * What this instance knows about a run's journal: the inode it validated, the size validated so
 * far and the last seq in it, and (between appends) the open descriptor of that inode. `ino` -1:
 * created empty by this instance, inode not yet seen.
 */
interface JournalState {
  fd: number | null;
  ino: number;
  dev: number;
  size: number;
  lastSeq: number;
  /** Chain runs: the last committed baton's revision and fingerprint at `lastSeq`. */
  tail: ChainTail | null;
}

/** A journal open for appending under the lock, or the refusal that ends the append. */
type OpenedJournal =
  | { readonly ok: true; readonly state: JournalState & { fd: number } }
  | { readonly ok: false; readonly result: StoreResult };

/** Held journal descriptors of collected stores are closed (each store registers its map). */
const heldJournals = new FinalizationRegistry<{ fsl: FsLayer; journals: Map<string, JournalState> }>(
  ({ fsl, journals }) => closeHeld(fsl, journals),
);

function closeHeld(fsl: FsLayer, journals: Map<string, JournalState>): void {
  for (const s of journals.values()) {
    if (s.fd === null) continue;
    try {
      fsl.close(s.fd);
    } catch {
      // nothing pending on it: every acknowledged line was fsync'd before it was kept open
    }
    s.fd = null;
  }
}

interface ManifestCacheEntry {
  ino: number;
  size: number;
  manifest: StoredManifest;
}

function isSymlinkOrNotDir(st: FsStat): boolean {
  return st.isSymbolicLink() || !st.isDirectory();
}

/**
 * Creates the file-system store.
 *
 * @example
 * ```ts
 * const store = createFsStore({ projectRoot: '/repo' }); // root /repo/.handoff
 * const c = await store.createRun({ dispatch, now: '2026-11-30T10:00:00Z' });
 * const a = await store.append(c.run_id!, 'note', { kind: 'candidate', text: 'simp', lean: null });
 * a.outcome; // 'committed' (exit 0) | 'nothing_written' (3) | 'indeterminate' (6)
 * ```
 */
export function createFsStore(options: FsStoreOptions = {}): FsStore {
  const fsl = options.fs ?? nodeFsLayer();
  const root = resolveStoreRoot(options);
  const now = options.now ?? (() => new Date());
  const pluginVersion = options.pluginVersion ?? RUNTIME_VERSION;
  const gitTracked = options.gitTracked ?? gitTrackedUnder;
  const pid = options.pid ?? process.pid;
  const host = options.host ?? hostname();
  const journals = new Map<string, JournalState>();
  /** Forgets a run's journal state, closing its held descriptor. */
  const forget = (runId: string): void => {
    const s = journals.get(runId);
    journals.delete(runId);
    if (s?.fd != null) {
      try {
        fsl.close(s.fd);
      } catch {
        // nothing pending on it
      }
    }
  };
  /** Records a run's journal state (most recently used last), keeping at most HELD_JOURNALS descriptors open. */
  const remember = (runId: string, state: JournalState): void => {
    journals.delete(runId);
    journals.set(runId, state);
    let held = 0;
    for (const s of journals.values()) if (s.fd !== null) held++;
    for (const [id, s] of journals) {
      if (held <= HELD_JOURNALS) break;
      if (s.fd === null || id === runId) continue;
      try {
        fsl.close(s.fd);
      } catch {
        // nothing pending on it
      }
      s.fd = null;
      held--;
    }
    if (journals.size > 1000) {
      for (const [id, s] of journals) {
        if (journals.size <= 1000) break;
        if (s.fd === null) journals.delete(id);
      }
    }
  };
  // event and lock timestamps have second precision: format once per second
  let stampSecond = Number.NaN;
  let stampText = '';
  const stamp = (): string => {
    const d = now();
    const second = Math.floor(d.getTime() / 1000);
    if (second !== stampSecond) {
      stampText = formatTimestamp(d); // throws for an invalid clock value, as before
      stampSecond = second;
    }
    return stampText;
  };
  // the lock's diagnostic body, written with one write(2); rebuilt when the second changes
  let lockBodyStamp = '';
  let lockBodyBytes = Buffer.alloc(0);
  const lockBody = (acquired: string): Buffer => {
    if (acquired !== lockBodyStamp) {
      lockBodyBytes = Buffer.from(`${canonicalJson({ pid, host, acquired })}\n`);
      lockBodyStamp = acquired;
    }
    return lockBodyBytes;
  };
  const manifests = new Map<string, ManifestCacheEntry>();
  const pathCache = new Map<string, RunPaths>();
  const pathsOf = (runId: string): RunPaths => {
    let p = pathCache.get(runId);
    if (p === undefined) {
      p = runPaths(root, runId);
      if (pathCache.size > 1000) pathCache.clear();
      pathCache.set(runId, p);
    }
    return p;
  };

  const posixOnly = (runId: string | null): StoreResult | null =>
    fsl.platform === 'win32'
      ? refused(
          runId,
          'unsupported_platform',
          'mutations need POSIX file semantics (O_EXCL, fsync of directories)',
        )
      : null;

  /** Storage root as recorded: its real path when it exists. */
  function recordedRoot(): string {
    try {
      return fsl.realpath(root);
    } catch {
      return root;
    }
  }

  /** Locates a run directory for reading or mutating; returns a refusal code or the paths. */
  function locate(
    runId: string,
  ): { ok: true; paths: RunPaths } | { ok: false; code: StoreCode; detail: string } {
    if (!isRunId(runId))
      return { ok: false, code: 'bad_run_id', detail: `not a run id: ${quoteValue(runId)}` };
    const p = pathsOf(runId);
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

  /** Reads and validates the manifest (cached by inode and size: manifests are immutable). */
  function readManifest(
    runId: string,
    p: RunPaths,
  ): { ok: true; manifest: StoredManifest } | { ok: false; code: StoreCode; detail: string } {
    let st: FsStat;
    try {
      st = fsl.lstat(p.manifest);
    } catch (e) {
      return errnoOf(e) === 'ENOENT'
        ? { ok: false, code: 'incomplete_run', detail: 'manifest.json is missing' }
        : { ok: false, code: 'incomplete_run', detail: `manifest.json unreadable: ${errnoOf(e)}` };
    }
    if (st.isSymbolicLink()) return { ok: false, code: 'containment', detail: 'manifest.json is a symlink' };
    const cached = manifests.get(runId);
    if (cached !== undefined && cached.ino === st.ino && cached.size === st.size) {
      return { ok: true, manifest: cached.manifest };
    }
    let bytes: Buffer | null;
    try {
      bytes = readFileNoFollow(fsl, p.manifest);
    } catch (e) {
      return {
        ok: false,
        code: 'incomplete_run',
        detail: `manifest.json unreadable: ${errnoOf(e) || String(e)}`,
      };
    }
    if (bytes === null) return { ok: false, code: 'incomplete_run', detail: 'manifest.json is missing' };
    let value: unknown;
    try {
      value = JSON.parse(bytes.toString('utf8'));
    } catch {
      return { ok: false, code: 'incomplete_run', detail: 'manifest.json is not JSON' };
    }
    const m = validateStoredManifest(value);
    if (!m.ok) {
      return {
        ok: false,
        code: 'incomplete_run',
        detail: `manifest.json is invalid: ${m.issues
          .slice(0, 3)
          .map((i) => `${i.path || '(root)'}: ${i.message}`)
          .join('; ')}`,
      };
    }
    if (m.value.run_id !== runId) {
      return {
        ok: false,
        code: 'integrity_failure',
        detail: `manifest run_id ${m.value.run_id} does not match directory ${runId}`,
      };
    }
    manifests.set(runId, { ino: st.ino, size: st.size, manifest: m.value });
    return { ok: true, manifest: m.value };
  }

  /**
   * Creates the store root, runs/ and runs/.gitignore when needed (each made durable); null when
   * the store is ready, else the refusal (run id null: the caller sets it).
   */
  function ensureStore(): StoreResult | null {
    const parent = path.dirname(root);
    try {
      if (!fsl.lstat(fsl.realpath(parent)).isDirectory()) throw new Error('not a directory');
    } catch {
      return refused(null, 'no_parent_anchor', `the storage root's parent ${parent} does not exist`);
    }
    let created = false;
    try {
      fsl.mkdir(root);
      created = true;
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST')
        return refused(null, 'no_storage_root', `cannot create ${root}: ${errnoOf(e)}`);
    }
    try {
      if (created) fsyncDir(fsl, parent, 'root_parent_fsync');
    } catch (e) {
      return refused(null, 'store_init_unsynced', (e as Error).message);
    }
    const runs = path.join(root, 'runs');
    let runsCreated = false;
    try {
      fsl.mkdir(runs);
      runsCreated = true;
    } catch (e) {
      if (errnoOf(e) !== 'EEXIST')
        return refused(null, 'no_runs_dir', `cannot create ${runs}: ${errnoOf(e)}`);
    }
    let runsSt: FsStat;
    try {
      runsSt = fsl.lstat(runs);
    } catch (e) {
      return refused(null, 'no_runs_dir', `cannot stat ${runs}: ${errnoOf(e)}`);
    }
    if (isSymlinkOrNotDir(runsSt))
      return refused(null, 'containment', `${runs} is a symlink or not a directory`);
    try {
      if (runsCreated) fsyncDir(fsl, root, 'root_fsync');
    } catch (e) {
      return refused(null, 'store_init_unsynced', (e as Error).message);
    }
    let hasIgnore = false;
    try {
      fsl.lstat(path.join(runs, '.gitignore'));
      hasIgnore = true;
    } catch {
      hasIgnore = false;
    }
    if (!hasIgnore) {
      try {
        // unlocked and possibly concurrent with another creator: a private temp name; losing the
        // rename race to an identical publication is fine
        publishFile(fsl, path.join(runs, '.gitignore'), Buffer.from('*\n'), {
          label: 'gitignore',
          tmpPath: path.join(runs, `.gitignore.${pid}.${randomHex(8)}.tmp`),
        });
      } catch (e) {
        const step = e instanceof StepFailure ? e.step : 'gitignore';
        return refused(
          null,
          step === 'gitignore_dir_fsync' ? 'publish_unsynced' : 'gitignore_write_failed',
          (e as Error).message,
        );
      }
    }
    return null;
  }

  function createSync(input: CreateRunInput): StoreResult {
    const b = buildManifest(input, {
      storageRoot: recordedRoot(),
      pluginVersion,
      now,
      runIdSuffix: options.runIdSuffix,
    });
    if (!b.ok) return refused(b.run_id, b.code, b.detail);
    return publishRun(b.manifest);
  }

  function createChainSync(input: CreateChainRunInput): StoreResult {
    const b = buildChainManifest(input, {
      storageRoot: recordedRoot(),
      pluginVersion,
      now,
      runIdSuffix: options.runIdSuffix,
    });
    if (!b.ok) return refused(b.run_id, b.code, b.detail);
    return publishRun(b.manifest);
  }

  /** Publishes a validated manifest as a new run (lock, empty journal, manifest, directory fsyncs). */
  function publishRun(built: StoredManifest): StoreResult {
    const b = { manifest: built };
    const platform = posixOnly(b.manifest.run_id);
    if (platform !== null) return platform;
    // ignore rules never untrack: refuse a store whose runs/ is (partly) in a Git index
    const tracked = gitTracked(path.join(root, 'runs'));
    if (tracked.length > 0) {
      return refused(
        b.manifest.run_id,
        'git_tracked',
        `${tracked.length} path(s) under ${path.join(root, 'runs')} are in the Git index (e.g. ${tracked[0]}); untrack them or choose another --root`,
      );
    }
    const notReady = ensureStore();
    if (notReady !== null) return { ...notReady, run_id: b.manifest.run_id };
    // the root may have been created just now: record its real path
    const manifest: StoredManifest = { ...b.manifest, storage_root: recordedRoot() };
    const runId = manifest.run_id;
    const p = runPaths(root, runId);
    const dirOut = { run_directory: p.dir };
    try {
      fsl.mkdir(p.dir);
    } catch (e) {
      if (errnoOf(e) === 'EEXIST') return refused(runId, 'run_exists', `run ${runId} already exists`);
      return refused(runId, 'write_failed', `cannot create run directory: ${errnoOf(e) || String(e)}`);
    }
    const created: string[] = [];
    const cleanup = (): void => {
      for (const f of [...created].reverse()) {
        try {
          fsl.unlink(f);
        } catch {
          // best effort: an unpublished run stays incomplete_run, never a false run
        }
      }
      try {
        fsl.rmdir(p.dir);
      } catch {
        // best effort
      }
    };
    const lock = acquireLock(fsl, p.lock, lockBody(stamp()));
    if (!lock.ok) {
      cleanup();
      return refused(runId, lock.code, lock.detail);
    }
    created.push(p.lock);
    // empty journal first, then the manifest: a published manifest always has its journal
    try {
      const fd = fsl.open(p.events, O.O_WRONLY | O.O_CREAT | O.O_EXCL | O.O_NOFOLLOW, 0o644);
      created.push(p.events);
      try {
        fsl.fsync(fd);
      } finally {
        fsl.close(fd);
      }
    } catch (e) {
      cleanup();
      return refused(runId, 'write_failed', `cannot create events.jsonl: ${errnoOf(e) || String(e)}`);
    }
    try {
      publishFile(fsl, p.manifest, Buffer.from(`${canonicalJson(manifest)}\n`), {
        label: 'manifest',
        tmpPath: `${p.manifest}.tmp`,
        reuseTmp: true,
      });
    } catch (e) {
      const step = e instanceof StepFailure ? e.step : 'manifest';
      if (step === 'manifest_dir_fsync') {
        // published but not known durable: the run may or may not survive a crash
        releaseLock(fsl, p.lock);
        return storeResult('indeterminate', runId, { ...dirOut, step, detail: (e as Error).message });
      }
      cleanup();
      return refused(
        runId,
        step === 'manifest_rename' ? 'write_failed' : 'temp_unavailable',
        (e as Error).message,
      );
    }
    try {
      fsyncDir(fsl, p.runs, 'runs_dir_fsync');
    } catch (e) {
      releaseLock(fsl, p.lock);
      return storeResult('indeterminate', runId, {
        ...dirOut,
        step: (e as StepFailure).step,
        detail: (e as Error).message,
      });
    }
    remember(runId, {
      fd: null,
      ino: -1,
      dev: -1,
      size: 0,
      lastSeq: 0,
      tail: isChainManifest(manifest) ? startTail(manifest) : null,
    });
    const warn = releaseLock(fsl, p.lock);
    return storeResult('committed', runId, warn === null ? dirOut : { ...dirOut, detail: warn });
  }

  /**
   * Under the lock: the run's journal open for appending, with its next seq learnt by validating
   * the bytes this instance has not validated yet (all of them on first use).
   *
   * Between appends the descriptor stays open. Reusing it requires that the journal path still
   * names that very file (lstat of the path: same inode and device, a regular file, so a journal
   * replaced, renamed away or swapped for a symlink is never written through a stale descriptor)
   * and that its size is the one validated (fstat; bytes another writer appended are validated
   * first, a shrunken file is reopened and validated whole). Anything else closes it and takes
   * the full path: open with O_NOFOLLOW and validate.
   */
  function openJournal(runId: string, p: RunPaths, manifest: StoredManifest): OpenedJournal {
    const held = journals.get(runId);
    if (held !== undefined && held.fd !== null) {
      let same = false;
      let size = -1;
      try {
        const named = fsl.lstat(p.events);
        const st = fsl.fstat(held.fd);
        same =
          named.isFile() &&
          named.ino === st.ino &&
          named.dev === st.dev &&
          st.ino === held.ino &&
          st.dev === held.dev;
        size = st.size;
      } catch {
        same = false;
      }
      if (same && size === held.size) return { ok: true, state: held as JournalState & { fd: number } };
      if (same && size > held.size) return validateTail(runId, manifest, held.fd, held, size);
      forget(runId);
    }
    let fd: number;
    try {
      fd = fsl.open(p.events, O.O_RDWR | O.O_APPEND | O.O_NOFOLLOW);
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'ENOENT')
        return { ok: false, result: refused(runId, 'integrity_failure', 'events.jsonl is missing') };
      if (code === 'ELOOP')
        return { ok: false, result: refused(runId, 'containment', 'events.jsonl is a symlink') };
      return {
        ok: false,
        result: refused(runId, 'journal_unreadable', `cannot open events.jsonl: ${code || String(e)}`),
      };
    }
    /** A refusal after the open: the descriptor is closed (through the state that holds it, if any). */
    const refuse = (result: StoreResult): OpenedJournal => {
      const mine = journals.get(runId);
      if (mine?.fd === fd) forget(runId);
      else {
        try {
          fsl.close(fd);
        } catch {
          // read side only so far
        }
      }
      return { ok: false, result };
    };
    try {
      const st = fsl.fstat(fd);
      if (!st.isFile()) return refuse(refused(runId, 'containment', 'events.jsonl is not a regular file'));
      const known = journals.get(runId);
      const sameFile =
        known !== undefined && (known.ino === -1 || (known.ino === st.ino && known.dev === st.dev));
      const start = isChainManifest(manifest) ? startTail(manifest) : null;
      const base: JournalState =
        sameFile && st.size >= known.size
          ? {
              fd,
              ino: st.ino,
              dev: st.dev,
              size: known.size,
              lastSeq: known.lastSeq,
              tail: known.tail ?? start,
            }
          : { fd, ino: st.ino, dev: st.dev, size: 0, lastSeq: 0, tail: start };
      if (base.size === st.size) {
        remember(runId, base);
        return { ok: true, state: base as JournalState & { fd: number } };
      }
      const v = validateTail(runId, manifest, fd, base, st.size);
      return v.ok ? v : refuse(v.result);
    } catch (e) {
      return refuse(
        refused(runId, 'journal_unreadable', `cannot read events.jsonl: ${errnoOf(e) || String(e)}`),
      );
    }
  }

  /** Validates the journal bytes from `known.size` to `size` (appended by others); refuses damage. */
  function validateTail(
    runId: string,
    manifest: StoredManifest,
    fd: number,
    known: JournalState,
    size: number,
  ): OpenedJournal {
    const from = known.size;
    let bytes: Buffer;
    try {
      bytes = readRange(fsl, fd, from, size);
    } catch (e) {
      forget(runId);
      return {
        ok: false,
        result: refused(runId, 'journal_unreadable', `cannot read events.jsonl: ${errnoOf(e) || String(e)}`),
      };
    }
    const first = known.lastSeq + 1;
    const parsed = isChainManifest(manifest)
      ? parseChainJournal(bytes, manifest, first, first, known.tail ?? startTail(manifest))
      : parseJournal(bytes, runId, eventSchemaOf(manifest), first, first);
    if (parsed.damage !== null || bytes.length !== size - from) {
      forget(runId);
      const d = parsed.damage;
      return {
        ok: false,
        result: refused(
          runId,
          'journal_damaged',
          d === null ? 'events.jsonl changed while reading' : `journal damaged (${d.code}): ${d.detail}`,
        ),
      };
    }
    const state: JournalState = {
      fd,
      ino: known.ino,
      dev: known.dev,
      size,
      lastSeq: known.lastSeq + parsed.events.length,
      tail: 'tail' in parsed ? parsed.tail : known.tail,
    };
    remember(runId, state);
    return { ok: true, state: state as JournalState & { fd: number } };
  }

  function appendSync(
    runId: string,
    kind: StoreEventKind,
    payload: unknown,
    withCache: boolean,
  ): StoreResult {
    if (!isRunId(runId)) return refused(null, 'bad_run_id', `not a run id: ${quoteValue(runId)}`);
    // shape first, before touching the store (cites and the baton sequence again under the lock)
    const prepared = prepareAppend(runId, kind, payload);
    if (!prepared.ok) return prepared.result;
    const { commit, payloadText: text } = prepared.value;
    const platform = posixOnly(runId);
    if (platform !== null) return platform;
    const loc = locate(runId);
    if (!loc.ok) return refused(runId, loc.code, loc.detail);
    const p = loc.paths;
    const m = readManifest(runId, p);
    if (!m.ok) return refused(runId, m.code, m.detail);
    const manifest = m.manifest;
    const schema = appendEventSchema(runId, manifest, kind, commit);
    if (!schema.ok) return schema.result;
    const ts = stamp();
    const lock = acquireLock(fsl, p.lock, lockBody(ts));
    if (!lock.ok) return refused(runId, lock.code, lock.detail);
    let result: StoreResult;
    try {
      result = appendLocked(
        runId,
        p,
        manifest,
        schema.eventSchema,
        kind,
        payload,
        commit,
        text,
        ts,
        withCache,
      );
    } catch (e) {
      forget(runId);
      result = storeResult('indeterminate', runId, {
        step: 'unexpected',
        detail: String((e as Error)?.message ?? e),
      });
    }
    const warn = releaseLock(fsl, p.lock);
    if (warn !== null)
      return { ...result, detail: result.detail === undefined ? warn : `${result.detail}; ${warn}` };
    return result;
  }

  function appendLocked(
    runId: string,
    p: RunPaths,
    manifest: StoredManifest,
    eventSchema: AppendEventSchema,
    kind: StoreEventKind,
    payload: unknown,
    commit: BatonCommitPayload | null,
    payloadText: string,
    ts: string,
    withCache: boolean,
  ): StoreResult {
    const opened = openJournal(runId, p, manifest);
    if (!opened.ok) return opened.result;
    const state = opened.state;
    const fd = state.fd;
    const seq = state.lastSeq + 1;
    const refusal = lockedAppendRefusal(runId, manifest, eventSchema, kind, payload, commit, state.tail, seq);
    if (refusal !== null) return refusal;
    // canonical text is ASCII, so latin1 encoding is exact
    const line = `${eventLine(kind, payloadText, eventSchema, seq, ts)}\n`;
    const bytes = Buffer.from(line, 'latin1');
    try {
      writeFully(fsl, fd, bytes, 'write');
    } catch (e) {
      const sf = e as StepFailure;
      let size = -1;
      if (sf.bytesWritten === 0) {
        try {
          size = fsl.fstat(fd).size;
        } catch {
          size = -1;
        }
      }
      forget(runId);
      if (size === state.size) return refused(runId, 'write_failed', sf.message);
      return storeResult('indeterminate', runId, { seq, step: 'write', detail: sf.message });
    }
    try {
      fsl.fsync(fd);
    } catch (e) {
      forget(runId);
      return storeResult('indeterminate', runId, {
        seq,
        step: 'fsync',
        detail: `fsync failed: ${errnoOf(e) || String(e)}`,
      });
    }
    // durable: keep the descriptor for the next append
    state.size += bytes.length;
    state.lastSeq = seq;
    if (commit !== null) state.tail = tailOf(commit.baton);
    if (!withCache) return storeResult('committed', runId, { seq });
    const cache: HandoffCache = { schema: CACHE_SCHEMA, seq, payload: payload as HandoffCache['payload'] };
    try {
      publishFile(fsl, p.cache, Buffer.from(`${canonicalJson(cache)}\n`), {
        label: 'cache',
        tmpPath: `${p.cache}.tmp`,
        reuseTmp: true,
      });
    } catch (e) {
      return storeResult('journal_only', runId, {
        seq,
        step: e instanceof StepFailure ? e.step : 'cache',
        detail: `handoff event committed; handoff cache not confirmed: ${(e as Error).message}`,
      });
    }
    return storeResult('committed', runId, { seq });
  }

  function loadSync(runId: string): AnyLoadResult {
    if (!isRunId(runId))
      return {
        ok: false,
        code: 'bad_run_id',
        run_id: null,
        detail: `not a run id: ${quoteValue(runId)}`,
      };
    const loc = locate(runId);
    if (!loc.ok) return { ok: false, code: loc.code, run_id: runId, detail: loc.detail };
    const p = loc.paths;
    const m = readManifest(runId, p);
    if (!m.ok) return { ok: false, code: m.code, run_id: runId, detail: m.detail };
    const manifest = m.manifest;
    let fd: number;
    try {
      fd = fsl.open(p.events, O.O_RDONLY | O.O_NOFOLLOW);
    } catch (e) {
      const code = errnoOf(e);
      if (code === 'ENOENT')
        return { ok: false, code: 'integrity_failure', run_id: runId, detail: 'events.jsonl is missing' };
      if (code === 'ELOOP')
        return { ok: false, code: 'containment', run_id: runId, detail: 'events.jsonl is a symlink' };
      return {
        ok: false,
        code: 'journal_unreadable',
        run_id: runId,
        detail: `cannot open events.jsonl: ${code}`,
      };
    }
    let bytes: Buffer;
    try {
      const st = fsl.fstat(fd);
      if (!st.isFile())
        return {
          ok: false,
          code: 'containment',
          run_id: runId,
          detail: 'events.jsonl is not a regular file',
        };
      bytes = readRange(fsl, fd, 0, st.size);
    } catch (e) {
      return {
        ok: false,
        code: 'journal_unreadable',
        run_id: runId,
        detail: `cannot read events.jsonl: ${errnoOf(e) || String(e)}`,
      };
    } finally {
      try {
        fsl.close(fd);
      } catch {
        // read-only
      }
    }
    if (isChainManifest(manifest)) {
      const parsed = parseChainJournal(bytes, manifest);
      const warnings = manifest.storage_root !== recordedRoot() ? ['storage_root_differs'] : [];
      return { ok: true, value: assembleChainLoad(manifest, parsed.events, parsed.damage, warnings) };
    }
    const parsed = parseJournal(bytes, runId, eventSchemaOf(manifest));
    let cache: HandoffCache | null | 'invalid' = null;
    const warnings: string[] = [];
    try {
      const c = readFileNoFollow(fsl, p.cache);
      if (c !== null) {
        const v = validateHandoffCache(JSON.parse(c.toString('utf8')));
        cache = v.ok ? v.value : 'invalid';
      }
    } catch {
      cache = 'invalid';
    }
    if (manifest.storage_root !== recordedRoot()) warnings.push('storage_root_differs');
    return { ok: true, value: assembleLoad(manifest, parsed.events, parsed.damage, cache, warnings) };
  }

  const guard = <T>(fn: () => T, fallback: (e: unknown) => T): T => {
    try {
      return fn();
    } catch (e) {
      return fallback(e);
    }
  };

  const store: FsStore = {
    backend: 'fs',
    root,
    runDirectory: (runId) => runPaths(root, runId).dir,
    close: () => closeHeld(fsl, journals),
    async createRun(input) {
      return guard(
        () => createSync(input),
        (e) =>
          storeResult('indeterminate', null, {
            step: 'unexpected',
            detail: String((e as Error)?.message ?? e),
          }),
      );
    },
    async append(runId, kind, payload) {
      return guard(
        () => appendSync(runId, kind, payload, false),
        (e) =>
          storeResult('indeterminate', isRunId(runId) ? runId : null, {
            step: 'unexpected',
            detail: String((e as Error)?.message ?? e),
          }),
      );
    },
    async setHandoff(runId, payload) {
      return guard(
        () => appendSync(runId, 'handoff', payload, true),
        (e) =>
          storeResult('indeterminate', isRunId(runId) ? runId : null, {
            step: 'unexpected',
            detail: String((e as Error)?.message ?? e),
          }),
      );
    },
    async createChainRun(input) {
      return guard(
        () => createChainSync(input),
        (e) =>
          storeResult('indeterminate', null, {
            step: 'unexpected',
            detail: String((e as Error)?.message ?? e),
          }),
      );
    },
    async load(runId): Promise<LoadResult> {
      return contractLoadOnly(runId, await store.loadRun(runId));
    },
    async loadRun(runId) {
      return guard<AnyLoadResult>(
        () => loadSync(runId),
        (e) => ({
          ok: false,
          code: 'journal_unreadable',
          run_id: isRunId(runId) ? runId : null,
          detail: String(e),
        }),
      );
    },
    async listRuns() {
      try {
        const runs = path.join(root, 'runs');
        if (fsl.lstat(runs).isSymbolicLink()) return [];
        return fsl
          .readdir(runs)
          .filter((n) => isRunId(n))
          .filter((n) => {
            try {
              return !isSymlinkOrNotDir(fsl.lstat(path.join(runs, n)));
            } catch {
              return false;
            }
          })
          .sort();
      } catch {
        return [];
      }
    },
    async isLocked(runId) {
      if (!isRunId(runId)) return false;
      try {
        fsl.lstat(runPaths(root, runId).lock);
        return true;
      } catch {
        return false;
      }
    },
  };
  heldJournals.register(store, { fsl, journals });
  return store;
}
