/**
 * Watching one case (layer 3, effects): what the harness records right before the worker runs
 * and compares right after it exited — the project tree (but `.git` and `.handoff`), the git
 * control files and the run store (the runtime's workspace watch), the owned files' declaration
 * headers (the statement fence), whether each owned path is still a regular file, and processes
 * left behind in the project. The verdicts are checks.ts's; this file only observes.
 */
import { leanHeaderExtractor } from '../fence/extractor.js';
import { type HeaderSnapshot, snapshotHeaders } from '../fence/snapshot.js';
import { ownedTypeViolation } from '../runtime/owned-files.js';
import {
  snapshotWorkspace,
  type WatchZones,
  type WorkspaceSnapshot,
  workspaceChanges,
} from '../runtime/workspace-watch.js';
import type { ContainmentObservation } from './checks.js';
import { runningPids, sweepProject } from './leftover-processes.js';
import { CASE_CONTROL_DIRS, changedPaths, snapshotTree, type TreeSnapshot } from './project.js';

/** The before-half of a case's watch (see {@link startWatch}). */
export interface CaseWatch {
  /** The watch's zones; `projectRoot` is the case project's real path. */
  readonly zones: WatchZones;
  /** Absolute owned paths. */
  readonly owned: readonly string[];
  readonly tree: TreeSnapshot;
  readonly zonesBefore: WorkspaceSnapshot;
  readonly headersBefore: HeaderSnapshot;
  /** Pids running before the worker started (not candidates for the leftover sweep). */
  readonly pidsBefore: ReadonlySet<number>;
}

/** What {@link endWatch} observed. */
export interface CaseWatchResult {
  /** Paths created, removed or changed in the project tree (but `.git` and `.handoff`), sorted. */
  readonly changed: string[];
  readonly containment: ContainmentObservation;
}

/**
 * The owned files' headers: every case file holds Lean text whatever its name, so the Lean
 * extractor reads each one (the runtime chooses by extension; the case paths have none).
 */
const headersOf = (owned: readonly string[]): Promise<HeaderSnapshot> =>
  snapshotHeaders(owned, leanHeaderExtractor());

/**
 * Snapshots everything the checks compare, right before the worker runs.
 *
 * @example
 * ```ts
 * const watch = await startWatch({ projectRoot: root, gitDirs, storeRoot }, dispatch.owned_files);
 * ```
 */
export async function startWatch(zones: WatchZones, owned: readonly string[]): Promise<CaseWatch> {
  return {
    zones,
    owned: [...owned],
    tree: await snapshotTree(zones.projectRoot, { skip: CASE_CONTROL_DIRS }),
    zonesBefore: await snapshotWorkspace(zones, owned),
    headersBefore: await headersOf(owned),
    pidsBefore: await runningPids(),
  };
}

/**
 * Right after the worker exited: kills whatever still runs in the project (counted as
 * `lingering`), then takes the after-half of every snapshot. The headers are read again only when
 * every owned path is still a regular file (or absent) at its own location — never through a link
 * a worker planted.
 *
 * @example
 * ```ts
 * const { changed, containment } = await endWatch(watch);
 * ```
 */
export async function endWatch(w: CaseWatch): Promise<CaseWatchResult> {
  const lingering = await sweepProject(w.zones.projectRoot, w.pidsBefore);
  const ownedSwap = await ownedTypeViolation(w.owned);
  const headersAfter: HeaderSnapshot = ownedSwap === null ? await headersOf(w.owned) : new Map();
  const zones = workspaceChanges(w.zonesBefore, await snapshotWorkspace(w.zones, w.owned));
  const tree = await snapshotTree(w.zones.projectRoot, { skip: CASE_CONTROL_DIRS });
  return {
    changed: changedPaths(w.tree, tree),
    containment: {
      lingering,
      gitChanged: zones.git,
      storeChanged: zones.store,
      ownedSwap,
      headersBefore: w.headersBefore,
      headersAfter,
    },
  };
}
