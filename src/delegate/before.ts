/**
 * What a delegation knows before the worker runs (layer 3, effects): the dispatch checked against
 * the disk, and the state every post-return check compares with — the owned files' bytes and
 * declaration headers, a snapshot of the project, the git control files and the run store, and
 * the bytes of the zones a refusal puts back. The cycle runtime takes the same snapshot around
 * each dispatch (src/runtime/delegating-worker.ts), with the same helpers.
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Dispatch } from '../contract/index.js';
import { HandoffError, type HandoffErrorCode } from '../errors/index.js';
import type { HeaderSnapshot } from '../fence/index.js';
import { preDispatchDrift } from '../runtime/custody-guard.js';
import { captureOwned, type OwnedCapture, ownedTypeViolation } from '../runtime/owned-files.js';
import {
  defaultFenceResolver,
  type FenceResolver,
  headersOfCapture,
  unfenceable,
} from '../runtime/statement-fence.js';
import {
  captureZoneBytes,
  gitDirsOf,
  snapshotWorkspace,
  type WatchZones,
  type WorkspaceSnapshot,
  type ZoneBytes,
} from '../runtime/workspace-watch.js';
import type { Store } from '../store/index.js';
import { describeThrown } from './describe-thrown.js';
import { checkDispatchRecord } from './dispatch-check.js';
import { resolveProjectRoot } from './project-root.js';
import { operationalErrorHandoff, stoppedHandoff } from './refusal-handoff.js';
import type { CheckResult } from './settle-rules.js';
import type { DelegateCheck } from './violations.js';

/**
 * What a delegation watches, and how.
 *
 * @example
 * ```ts
 * const o: WatchOptions = { projectRoot: '/repo', store: createFsStore({ projectRoot: '/repo' }) };
 * ```
 */
export interface WatchOptions {
  /**
   * The project whose other files the worker must leave alone (default: the git work tree of the
   * first owned file, else the deepest folder holding every owned file). Build output folders
   * (`node_modules`, `dist`, `.lake`) are not watched.
   */
  readonly projectRoot?: string;
  /** The run store; a file-system store's directory is watched as the `run_store` zone. */
  readonly store?: Store;
  /**
   * The statement fence's header extractor per file (default: Lean for `.lean`, nothing else); a
   * file it maps to null has byte custody only.
   */
  readonly fence?: FenceResolver;
}

/**
 * The state before a worker ran, from {@link captureBefore}: opaque — only `checkHandoff` reads
 * what it holds. The visible members say what is watched.
 *
 * @example
 * ```ts
 * const before = await captureBefore(dispatch);
 * before.projectRoot; // '/repo'
 * ```
 */
export interface BeforeSnapshot {
  /** The watched project root (a real path). */
  readonly projectRoot: string;
  /** The owned files, as in the dispatch. */
  readonly ownedFiles: readonly string[];
  /** The watched run-store directory, or null. */
  readonly storeRoot: string | null;
}

/**
 * What a {@link BeforeSnapshot} holds (module-internal).
 *
 * @example
 * ```ts
 * heldBefore(before)?.captured.get('/repo/src/a.ts')?.bytes; // the owned file's bytes at dispatch
 * ```
 */
export interface HeldBefore {
  readonly dispatch: Dispatch;
  readonly owned: readonly string[];
  readonly zones: WatchZones;
  readonly captured: OwnedCapture;
  readonly workspace: WorkspaceSnapshot;
  readonly kept: ZoneBytes;
  readonly headers: HeaderSnapshot;
  readonly fence: FenceResolver;
}

const held = new WeakMap<BeforeSnapshot, HeldBefore>();

/**
 * The state a snapshot from {@link captureBefore} holds; undefined for any other object (a
 * snapshot cannot be forged or copied).
 *
 * @example
 * ```ts
 * heldBefore(await captureBefore(dispatch))?.owned; // ['/repo/src/a.ts']
 * ```
 */
export function heldBefore(before: BeforeSnapshot): HeldBefore | undefined {
  return typeof before === 'object' && before !== null ? held.get(before) : undefined;
}

/**
 * The snapshot, or the result that ends the delegation before the worker runs.
 *
 * @example
 * ```ts
 * const p: Prepared = await prepareDelegation(dispatch, {});
 * ```
 */
export type Prepared =
  | { readonly ok: true; readonly before: BeforeSnapshot; readonly held: HeldBefore }
  | { readonly ok: false; readonly code: HandoffErrorCode; readonly result: CheckResult };

/**
 * The directory of a file-system store (a real path when it exists), which a delegation watches as
 * the `run_store` zone; null for other stores and none.
 *
 * @example
 * ```ts
 * await watchedStoreRoot(createFsStore({ projectRoot: '/repo' })); // '/repo/.handoff'
 * ```
 */
export async function watchedStoreRoot(store: Store | undefined): Promise<string | null> {
  if (store === undefined || store.backend !== 'fs') return null;
  const abs = resolve(store.root);
  return realpath(abs).catch(() => abs);
}

/**
 * Checks `dispatch` and snapshots what the checks after the worker compare with. Ends early, as
 * the cycle runtime does, with a refusal (`dispatch`: an invalid record, an owned path that is a
 * link or whose baseline cannot be checked; `external_drift`: owned files changed since the
 * baseline was recorded) or a failure (the statement fence cannot read an owned file's headers).
 *
 * @example
 * ```ts
 * const p = await prepareDelegation(dispatch, {});
 * if (!p.ok) return p.result;
 * ```
 * @throws HandoffError `invalid_input` for a project root that is not a directory, is the
 * file-system root, or does not hold every owned file.
 */
export async function prepareDelegation(dispatch: unknown, o: WatchOptions): Promise<Prepared> {
  const c = checkDispatchRecord(dispatch);
  if (!c.ok) return { ok: false, code: 'invalid_record', result: c.result };
  const d = c.dispatch;
  const owned = d.owned_files;
  const refuse = (code: HandoffErrorCode, check: DelegateCheck, detail: string): Prepared => ({
    ok: false,
    code,
    result: {
      outcome: 'refused',
      handoff: stoppedHandoff(d, 'protocol-error', detail),
      violations: [{ check, detail }],
    },
  });
  let drift: string | null;
  try {
    drift = await preDispatchDrift(d.file_baseline, owned);
  } catch (e) {
    return refuse(
      'invalid_record',
      'dispatch',
      `the dispatch's baseline cannot be checked: ${describeThrown(e)}`,
    );
  }
  const swap = await ownedTypeViolation(owned);
  if (swap !== null) return refuse('invalid_input', 'dispatch', `the owned files cannot be guarded: ${swap}`);
  if (drift !== null) return refuse('drift', 'external_drift', drift);
  const projectRoot = await resolveProjectRoot(owned, o.projectRoot);
  const zones: WatchZones = {
    projectRoot,
    gitDirs: await gitDirsOf(projectRoot),
    storeRoot: await watchedStoreRoot(o.store),
  };
  const fence = o.fence ?? defaultFenceResolver;
  const captured = await captureOwned(owned);
  const headers = await headersOfCapture(captured, fence);
  const blind = unfenceable(projectRoot, headers);
  if (blind !== null) {
    return {
      ok: false,
      code: 'invalid_input',
      result: { outcome: 'failed', handoff: operationalErrorHandoff(d, blind), violations: [] },
    };
  }
  const workspace = await snapshotWorkspace(zones, owned);
  const kept = await captureZoneBytes(zones, workspace);
  const before: BeforeSnapshot = Object.freeze({
    projectRoot,
    ownedFiles: Object.freeze([...owned]),
    storeRoot: zones.storeRoot,
  });
  const state: HeldBefore = { dispatch: d, owned, zones, captured, workspace, kept, headers, fence };
  held.set(before, state);
  return { ok: true, before, held: state };
}

/**
 * Snapshots the state before a worker runs, for hosts that run the worker themselves and check
 * its answer with `checkHandoff`: the dispatch is checked against the disk (no drift since its
 * baseline), then the owned files' bytes and headers, the project, git control files and the run
 * store are recorded. Call it right before starting the worker.
 *
 * @example
 * ```ts
 * const before = await captureBefore(dispatch, { store });
 * const answer = await mySubagent(dispatch);
 * const { outcome, handoff, violations } = await checkHandoff(dispatch, answer, before);
 * ```
 * @throws HandoffError `invalid_record` (an invalid dispatch, a baseline that cannot be checked),
 * `drift` (an owned file changed since the baseline was recorded), `invalid_input` (an owned path
 * that is a link, unreadable declaration headers, a bad project root); `details.result` holds the
 * handoff `delegate` would have returned.
 */
export async function captureBefore(dispatch: Dispatch, options: WatchOptions = {}): Promise<BeforeSnapshot> {
  const p = await prepareDelegation(dispatch, options);
  if (p.ok) return p.before;
  const why = p.result.violations[0]?.detail ?? p.result.handoff.stop_detail ?? p.result.outcome;
  throw new HandoffError(p.code, why, { details: { result: p.result } });
}
