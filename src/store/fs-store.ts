/**
 * The file-system {@link Store} (default backend): run-store/v1 under `<root>/runs/<run-id>/`.
 *
 * Durability: an append is acknowledged (`committed`) only after its line was written completely
 * and the journal fsync'd; files published whole (manifest, `.gitignore`, handoff cache) go
 * through temp + fsync + rename + directory fsync; new directory entries are made durable by
 * fsyncing their directory. A failure once writing may have begun is `indeterminate` with the
 * failing `step`. Nothing is ever rewritten or truncated: a damaged journal is reported by
 * `load` and refused by appends (`journal_damaged`).
 *
 * This file wires one instance together; the concerns live beside it: `fs-context.ts` (the
 * instance's state, run location and containment), `fs-held-journals.ts` (the journal descriptor
 * cache), `fs-manifest.ts` (reading manifests), `fs-create.ts`, `fs-append.ts` (one append plan,
 * then the locked append) and `fs-load.ts`; the durable-file mechanics are src/durable's.
 */

import { hostname } from 'node:os';
import * as path from 'node:path';
import { type FsLayer, nodeFsLayer } from '../durable/index.js';
import type { IdSource } from '../ids/index.js';
import { appendSync } from './fs-append.js';
import { appendBatchSync } from './fs-batch.js';
import { createFsContext, isSymlinkOrNotDir } from './fs-context.js';
import { createChainRunSync, createRunSync } from './fs-create.js';
import { closeWhenCollected, HELD_JOURNALS } from './fs-held-journals.js';
import { resolveStoreRoot, runPaths, type StoreRootInput } from './fs-layout.js';
import { loadBatchesSync, loadSync } from './fs-load.js';
import { gitTrackedUnder } from './git-index.js';
import { RUNTIME_VERSION } from './manifest.js';
import { isRunId } from './run-id.js';
import { contractLoadOnly } from './run-load.js';
import {
  type AnyLoadResult,
  type BatchesLoadResult,
  type BatchStore,
  type ChainRunStore,
  type LoadResult,
  type StoreResult,
  storeResult,
} from './store.js';

export { HELD_JOURNALS };

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
  /**
   * Keep each run's `.lock` from this instance's first mutation of the run until {@link FsStore.close}
   * or process exit, instead of creating and removing it around every mutation (the spec's
   * default, used when false). For a writer that owns its runs: other processes get `busy` for
   * the whole time, and reuse reads the run as active. Before each mutation one `lstat` checks the
   * lock is still this instance's file. Durability is unchanged (every event fsync'd before it is
   * acknowledged). Default false. See docs/store.md § Held run locks.
   */
  readonly holdLocks?: boolean;
}

/** The fs store, with its resolved root and the run-directory helper. */
export interface FsStore extends ChainRunStore {
  readonly backend: 'fs';
  appendBatch: BatchStore['appendBatch'];
  readBatches: BatchStore['readBatches'];
  /** Directory of a run (no check that it exists). */
  runDirectory(runId: string): string;
  /**
   * Closes the journal descriptors this instance keeps open between appends (at most
   * {@link HELD_JOURNALS}) and, with `holdLocks`, removes the run locks it holds (each only if
   * `.lock` is still the file it created). Optional: descriptors are also closed when the
   * instance is garbage collected and held locks removed on process exit, and the store stays
   * usable (the next append reopens the journal and takes the lock again).
   *
   * @example
   * ```ts
   * const store = createFsStore({ root });
   * try { await store.append(id, 'note', n); } finally { store.close(); }
   * ```
   */
  close(): void;
}

const unexpected = (runId: string | null, e: unknown): StoreResult =>
  storeResult('indeterminate', runId, { step: 'unexpected', detail: String((e as Error)?.message ?? e) });

/** Runs a synchronous operation; an exception becomes `fallback`'s result (the Store contract never throws). */
function guard<T>(fn: () => T, fallback: (e: unknown) => T): T {
  try {
    return fn();
  } catch (e) {
    return fallback(e);
  }
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
  const ctx = createFsContext({
    fsl,
    root,
    now: options.now ?? (() => new Date()),
    runIdSuffix: options.runIdSuffix,
    pluginVersion: options.pluginVersion ?? RUNTIME_VERSION,
    pid: options.pid ?? process.pid,
    host: options.host ?? hostname(),
    gitTracked: options.gitTracked ?? gitTrackedUnder,
    holdLocks: options.holdLocks === true,
  });
  const runIdOrNull = (runId: string): string | null => (isRunId(runId) ? runId : null);

  const store: FsStore = {
    backend: 'fs',
    root,
    runDirectory: (runId) => runPaths(root, runId).dir,
    close: () => {
      ctx.journals.closeAll();
      ctx.locks?.releaseAll();
    },
    async createRun(input) {
      return guard(
        () => createRunSync(ctx, input),
        (e) => unexpected(null, e),
      );
    },
    async append(runId, kind, payload) {
      return guard(
        () => appendSync(ctx, runId, kind, payload, false),
        (e) => unexpected(runIdOrNull(runId), e),
      );
    },
    async appendBatch(runId, entries, options) {
      return guard(
        () => appendBatchSync(ctx, runId, entries, options),
        (e) => unexpected(runIdOrNull(runId), e),
      );
    },
    async readBatches(runId) {
      return guard<BatchesLoadResult>(
        () => loadBatchesSync(ctx, runId),
        (e) => ({ ok: false, code: 'journal_unreadable', run_id: runIdOrNull(runId), detail: String(e) }),
      );
    },
    async setHandoff(runId, payload) {
      return guard(
        () => appendSync(ctx, runId, 'handoff', payload, true),
        (e) => unexpected(runIdOrNull(runId), e),
      );
    },
    async createChainRun(input) {
      return guard(
        () => createChainRunSync(ctx, input),
        (e) => unexpected(null, e),
      );
    },
    async load(runId): Promise<LoadResult> {
      return contractLoadOnly(runId, await store.loadRun(runId));
    },
    async loadRun(runId) {
      return guard<AnyLoadResult>(
        () => loadSync(ctx, runId),
        (e) => ({ ok: false, code: 'journal_unreadable', run_id: runIdOrNull(runId), detail: String(e) }),
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
  closeWhenCollected(store, ctx.journals);
  return store;
}
