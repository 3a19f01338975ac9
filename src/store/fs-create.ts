/**
 * Creating a run in the fs store: refuse a runs/ directory that Git tracks, make the store root,
 * runs/ and runs/.gitignore exist durably, then — under the new run's lock — publish the empty
 * journal first and the manifest after it (temp + fsync + rename + directory fsync), so a run
 * with a manifest always has a journal. A refused create removes what it made (best effort);
 * nothing published is ever removed.
 */
import * as path from 'node:path';
import { canonicalJsonUtf8 } from '../canonical/index.js';
import {
  createExclusiveFile,
  errnoOf,
  type FsStat,
  fsyncDir,
  publishFile,
  StepFailure,
} from '../durable/index.js';
import { randomHex } from '../ids/index.js';
import { buildChainManifest, type CreateChainRunInput, startTail } from './chain-rules.js';
import { isChainManifest, type StoredManifest } from './chain-schema.js';
import { type FsContext, isSymlinkOrNotDir, posixOnly, recordedRoot } from './fs-context.js';
import { runPaths } from './fs-layout.js';
import { acquireLock, releaseLock } from './fs-lock.js';
import { buildManifest } from './manifest.js';
import { type CreateRunInput, refused, type StoreResult, storeResult } from './store.js';

const EMPTY = new Uint8Array(0);

/**
 * Creates a run-contract run (`createRun`): builds and validates the manifest, then publishes it.
 *
 * @example
 * ```ts
 * const r = createRunSync(ctx, { dispatch, now: '2026-11-30T10:00:00Z' }); // committed | nothing_written | indeterminate
 * ```
 */
export function createRunSync(ctx: FsContext, input: CreateRunInput): StoreResult {
  const b = buildManifest(input, {
    storageRoot: recordedRoot(ctx),
    pluginVersion: ctx.pluginVersion,
    now: ctx.now,
    runIdSuffix: ctx.runIdSuffix,
  });
  if (!b.ok) return refused(b.run_id, b.code, b.detail);
  return publishRun(ctx, b.manifest);
}

/**
 * Creates a chain run (`createChainRun`): builds and validates the chain manifest, then publishes it.
 *
 * @example
 * ```ts
 * const r = createChainRunSync(ctx, { chainId, contract, stages, startBaton });
 * ```
 */
export function createChainRunSync(ctx: FsContext, input: CreateChainRunInput): StoreResult {
  const b = buildChainManifest(input, {
    storageRoot: recordedRoot(ctx),
    pluginVersion: ctx.pluginVersion,
    now: ctx.now,
    runIdSuffix: ctx.runIdSuffix,
  });
  if (!b.ok) return refused(b.run_id, b.code, b.detail);
  return publishRun(ctx, b.manifest);
}

/**
 * Creates the store root, runs/ and runs/.gitignore when needed (each made durable); null when
 * the store is ready, else the refusal (run id null: the caller sets it).
 */
function ensureStore(ctx: FsContext): StoreResult | null {
  const { fsl, root } = ctx;
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
    if (errnoOf(e) !== 'EEXIST') return refused(null, 'no_runs_dir', `cannot create ${runs}: ${errnoOf(e)}`);
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
        tmpPath: path.join(runs, `.gitignore.${ctx.pid}.${randomHex(8)}.tmp`),
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

/** Publishes a validated manifest as a new run (lock, empty journal, manifest, directory fsyncs). */
function publishRun(ctx: FsContext, built: StoredManifest): StoreResult {
  const { fsl, root } = ctx;
  const platform = posixOnly(ctx, built.run_id);
  if (platform !== null) return platform;
  // ignore rules never untrack: refuse a store whose runs/ is (partly) in a Git index
  const tracked = ctx.gitTracked(path.join(root, 'runs'));
  if (tracked.length > 0) {
    return refused(
      built.run_id,
      'git_tracked',
      `${tracked.length} path(s) under ${path.join(root, 'runs')} are in the Git index (e.g. ${tracked[0]}); untrack them or choose another --root`,
    );
  }
  const notReady = ensureStore(ctx);
  if (notReady !== null) return { ...notReady, run_id: built.run_id };
  // the root may have been created just now: record its real path
  const manifest: StoredManifest = { ...built, storage_root: recordedRoot(ctx) };
  const runId = manifest.run_id;
  // serialized before anything is made: the reference's raw UTF-8 form
  let manifestBytes: Buffer;
  try {
    manifestBytes = Buffer.from(`${canonicalJsonUtf8(manifest)}\n`, 'utf8');
  } catch (e) {
    return refused(runId, 'invalid_payload', `the manifest cannot be written: ${(e as Error).message}`);
  }
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
  const lock = acquireLock(fsl, p.lock, ctx.lockBody(ctx.stamp()));
  if (!lock.ok) {
    cleanup();
    return refused(runId, lock.code, lock.detail);
  }
  created.push(p.lock);
  // empty journal first, then the manifest: a published manifest always has its journal (a
  // journal that cannot be fsync'd or closed is removed again by createExclusiveFile)
  const journal = createExclusiveFile(fsl, p.events, EMPTY, { sync: true });
  if (!journal.ok) {
    cleanup();
    return refused(
      runId,
      'write_failed',
      `cannot create events.jsonl: ${errnoOf(journal.cause) || String(journal.cause)}`,
    );
  }
  created.push(p.events);
  try {
    publishFile(fsl, p.manifest, manifestBytes, {
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
  ctx.journals.remember(runId, {
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
