/**
 * The store a read-only verb over one stored run reads (`handoff inspect`, `handoff audit`):
 * `--root DIR` (alias `--run-store`) or `--project DIR` (alias `--project-root`), else
 * `$HANDOFF_RUN_STORE`, else `<cwd>/.handoff` — each given at most once, never both — and the
 * refusal when the store cannot serve the run: a malformed id or one the store does not hold is a
 * refusal (exit 3), anything else an I/O failure (exit 4).
 */
import { HandoffError } from '../errors/index.js';
import { createFsStore, type FsStore, type StoreCode } from '../store/index.js';
import { optionalString, type ParsedArgs } from './args.js';
import type { CliIo } from './io.js';

/** The parseArgs options of the store flags. */
export const RUN_STORE_OPTIONS = {
  root: { type: 'string' },
  'run-store': { type: 'string' },
  project: { type: 'string' },
  'project-root': { type: 'string' },
} as const;

/** Store codes that mean "this store has no such run" (or a malformed id): refusals, exit 3. */
const UNKNOWN_RUN: readonly StoreCode[] = ['bad_run_id', 'no_such_run', 'no_runs_dir', 'no_storage_root'];

/**
 * Opens the fs store the flags name.
 *
 * @example
 * ```ts
 * const { values } = parseVerbArgs(argv, { ...RUN_STORE_OPTIONS, json: { type: 'boolean' } });
 * const store = runStoreOf(values, io);
 * ```
 * @throws HandoffError `usage` when a flag is given twice or both a root and a project are.
 */
export function runStoreOf(values: ParsedArgs['values'], io: CliIo): FsStore {
  const roots = [optionalString(values, 'root'), optionalString(values, 'run-store')].filter(
    (x): x is string => x !== undefined,
  );
  const projects = [optionalString(values, 'project'), optionalString(values, 'project-root')].filter(
    (x): x is string => x !== undefined,
  );
  if (roots.length > 1 || projects.length > 1)
    throw new HandoffError('usage', 'give the store root once (--root or --run-store) and the project once');
  if (roots.length > 0 && projects.length > 0)
    throw new HandoffError('usage', 'give --root or --project, not both');
  return createFsStore({ root: roots[0], projectRoot: projects[0], env: io.env, cwd: io.cwd });
}

/**
 * The error for a run the store could not serve: the store's code when it means an unknown or
 * malformed run id (exit 3), else `io_error` (exit 4); the store's code, the run and the root in
 * `details`.
 *
 * @example
 * ```ts
 * if (!loaded.ok) throw runUnavailable('inspect', runId, store, loaded);
 * ```
 */
export function runUnavailable(
  verb: string,
  runId: string,
  store: FsStore,
  failure: { readonly code: StoreCode; readonly detail?: string },
): HandoffError {
  return new HandoffError(
    UNKNOWN_RUN.find((c) => c === failure.code) ?? 'io_error',
    `cannot ${verb} ${runId}: ${failure.code}${failure.detail ? ` (${failure.detail})` : ''}`,
    { details: { code: failure.code, run_id: runId, root: store.root } },
  );
}
