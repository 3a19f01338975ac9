/**
 * On-disk layout of the fs backend and the storage-root precedence:
 *
 * ```
 * <root>/                      default <project>/.handoff
 *   runs/.gitignore            "*" — published on first create
 *   runs/<run-id>/manifest.json   immutable
 *   runs/<run-id>/events.jsonl    append-only, one canonical JSON line per event
 *   runs/<run-id>/handoff.json    disposable cache of the last set-handoff
 *   runs/<run-id>/batches.jsonl   batch records of group commits (run-store-batch/v1), when any
 *   runs/<run-id>/.lock           present while a mutation runs (never broken); with holdLocks, while
 *                                 its writer holds the run (fs-held-locks.ts)
 *   runs/<run-id>/*.tmp           temp files of whole-file publication
 * ```
 */
import * as path from 'node:path';

/** Environment variable naming the storage root. */
export const RUN_STORE_ENV = 'HANDOFF_RUN_STORE';
/** Default store directory name under the project root. */
export const DEFAULT_STORE_DIR = '.handoff';
/** File names inside a run directory. */
export const RUN_FILES = {
  manifest: 'manifest.json',
  events: 'events.jsonl',
  cache: 'handoff.json',
  batches: 'batches.jsonl',
  lock: '.lock',
} as const;

/** Inputs of {@link resolveStoreRoot}. */
export interface StoreRootInput {
  /** Explicit root (`--root`, `--run-store`); wins over everything. */
  readonly root?: string | undefined;
  /** Project root (`--project-root`); the default root is `<project>/.handoff`. */
  readonly projectRoot?: string | undefined;
  /** Environment (for `HANDOFF_RUN_STORE`). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Base for relative paths and the default project root. */
  readonly cwd?: string;
}

/**
 * Resolves the storage root: explicit root → `$HANDOFF_RUN_STORE` → `<project>/.handoff`
 * (project defaulting to cwd). The result is absolute and lexically normalized.
 *
 * @example
 * ```ts
 * resolveStoreRoot({ projectRoot: '/p', env: {} }); // '/p/.handoff'
 * resolveStoreRoot({ root: 'store', cwd: '/w', env: { HANDOFF_RUN_STORE: '/x' } }); // '/w/store'
 * ```
 */
export function resolveStoreRoot(input: StoreRootInput = {}): string {
  const cwd = input.cwd ?? process.cwd();
  if (input.root !== undefined && input.root !== '') return path.resolve(cwd, input.root);
  const fromEnv = (input.env ?? process.env)[RUN_STORE_ENV];
  if (fromEnv !== undefined && fromEnv !== '') return path.resolve(cwd, fromEnv);
  return path.join(path.resolve(cwd, input.projectRoot ?? '.'), DEFAULT_STORE_DIR);
}

/** Paths of one run. */
export interface RunPaths {
  readonly runs: string;
  readonly dir: string;
  readonly manifest: string;
  readonly events: string;
  readonly cache: string;
  /** The batch sidecar (`batches.jsonl`): one record per recorded batch. */
  readonly batches: string;
  readonly lock: string;
}

/**
 * Paths of a run under `root` (the run id must already be validated).
 *
 * @example
 * ```ts
 * runPaths('/p/.handoff', '20261130T100000Z-0a1b2c3d').events; // '/p/.handoff/runs/20261130T100000Z-0a1b2c3d/events.jsonl'
 * ```
 */
export function runPaths(root: string, runId: string): RunPaths {
  const runs = path.join(root, 'runs');
  const dir = path.join(runs, runId);
  return {
    runs,
    dir,
    manifest: path.join(dir, RUN_FILES.manifest),
    events: path.join(dir, RUN_FILES.events),
    cache: path.join(dir, RUN_FILES.cache),
    batches: path.join(dir, RUN_FILES.batches),
    lock: path.join(dir, RUN_FILES.lock),
  };
}
