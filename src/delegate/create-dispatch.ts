/**
 * `createDispatch` (layer 3, effects): a host's task as a validated run-contract/v1 dispatch, its
 * owned files' baseline recorded from the disk right now.
 */
import { tmpdir } from 'node:os';
import { recordBaseline } from '../baseline/index.js';
import { deepFreeze } from '../canonical/index.js';
import { type Dispatch, validateDispatch } from '../contract/index.js';
import { HandoffError } from '../errors/index.js';
import { type CreateDispatchInput, dispatchRecord } from './dispatch-record.js';
import { canonicalOwnedPaths } from './owned-paths.js';

/**
 * Creates the dispatch of one delegated task: the owned files are made absolute (through their
 * folder's real path) and recorded in a fresh file-baseline/v1 — the bytes the worker starts from
 * — and the record is validated and deep-frozen. Record it right before delegating: `delegate`
 * refuses a dispatch whose owned files changed since (`external_drift`).
 *
 * @example
 * ```ts
 * const dispatch = await createDispatch({
 *   target: 'src/greeting.ts:1',
 *   scope: 'file',
 *   mode: 'autoprove',
 *   ownedFiles: ['src/greeting.ts'],
 * });
 * dispatch.owned_files; // ['/home/me/app/src/greeting.ts']
 * ```
 * An owned file that does not exist is refused unless `createFiles` lists it (a file the worker
 * creates): its baseline entry then says `exists: false`.
 *
 * @throws HandoffError `usage` (no owned files, an empty path, the same file twice, a `createFiles`
 * path that is not owned), `invalid_input` (a missing folder, a missing owned file not in
 * `createFiles`, an owned path that is a link or directory), `invalid_record` (the task does
 * not make a valid dispatch: an empty target, an unknown scope or mode, parameters that do not fit
 * the worker kind…; `details.issues` lists them), `io_error` (an owned file cannot be read).
 */
export async function createDispatch(input: CreateDispatchInput): Promise<Dispatch> {
  if (typeof input !== 'object' || input === null) {
    throw new HandoffError('usage', 'createDispatch needs { target, scope, mode, ownedFiles }');
  }
  const cwd = input.cwd ?? process.cwd();
  const owned = await canonicalOwnedPaths(input.ownedFiles, cwd);
  const toCreate = await filesToCreate(input.createFiles, owned, cwd);
  const baseline = await recordBaseline(owned);
  const absent = baseline.files.filter((f) => !f.exists && !toCreate.includes(f.path)).map((f) => f.path);
  if (absent.length > 0) {
    throw new HandoffError(
      'invalid_input',
      `owned file ${absent.join(', ')} does not exist; if the worker is to create it, list it in createFiles`,
      { details: { missing: absent } },
    );
  }
  const v = validateDispatch(dispatchRecord(input, owned, baseline, tmpdir()));
  if (!v.ok) {
    const first = v.issues
      .slice(0, 3)
      .map((i) => `${i.path || '(root)'}: ${i.message}`)
      .join('; ');
    throw new HandoffError('invalid_record', `not a valid dispatch: ${first}`, {
      details: { issues: v.issues.map((i) => ({ ...i })) },
    });
  }
  return deepFreeze(v.value);
}

/** The canonical paths of `createFiles`, each of which must be an owned file. */
async function filesToCreate(
  createFiles: readonly string[] | undefined,
  owned: readonly string[],
  cwd: string,
): Promise<readonly string[]> {
  if (createFiles === undefined || createFiles.length === 0) return [];
  if (!Array.isArray(createFiles)) throw new HandoffError('usage', 'createFiles must be an array of paths');
  const paths = await canonicalOwnedPaths(createFiles, cwd);
  const stray = paths.filter((p) => !owned.includes(p));
  if (stray.length > 0)
    throw new HandoffError(
      'usage',
      `createFiles names a file that is not in ownedFiles: ${stray.join(', ')}`,
    );
  return paths;
}
