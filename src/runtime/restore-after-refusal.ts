/**
 * Putting things back after a refusal (layer 3, effects): the owned files to their pre-dispatch
 * bytes; git's control files, the run store and every other project file the worker wrote to
 * their state at dispatch; with the notes a refusal's detail ends with. The one sequence behind
 * every refusal of the cycle runtime's delegating worker and of `delegate`/`checkHandoff`
 * (src/delegate). Custody without a sandbox: what the watch saw is undone, and what cannot be is
 * named.
 */
import { type OwnedCapture, restoreOwned } from './owned-files.js';
import {
  restoreWorkspace,
  safeParent,
  type WatchZones,
  type WorkspaceChanges,
  type ZoneBytes,
} from './workspace-watch.js';

const list = (xs: readonly string[]) =>
  `${xs.slice(0, 8).join(', ')}${xs.length > 8 ? `, … (${xs.length})` : ''}`;

/** A restore key (`project:B.lean`, `git:/r/.git/config`, `store:runs/…`) as the path a note names. */
const pathOf = (key: string) => key.slice(key.indexOf(':') + 1);

/**
 * The notes of a restore (pure): what was put back outside the owned files, and what could not
 * be (too large to keep, or failed) — never silently skipped.
 *
 * @example
 * ```ts
 * restoreNotes({ restored: ['project:B.lean'], tooLarge: ['project:big.bin'], failed: [] }, 1);
 * // ['restored outside the owned files: B.lean', 'could not restore (too large to keep): big.bin']
 * ```
 */
export function restoreNotes(
  r: {
    readonly restored: readonly string[];
    readonly tooLarge: readonly string[];
    readonly failed: readonly string[];
  },
  zoneChanges: number,
): string[] {
  const notes: string[] = [];
  const project = r.restored
    .filter((k) => k.startsWith('project:'))
    .map(pathOf)
    .sort();
  const control = r.restored.filter((k) => !k.startsWith('project:'));
  if (project.length > 0) notes.push(`restored outside the owned files: ${list(project)}`);
  if (zoneChanges > 0 && control.length > 0 && r.failed.length + r.tooLarge.length === 0)
    notes.push('git control files and run store restored to their pre-dispatch bytes');
  else if (control.length > 0) notes.push(`restored git state: ${list(control.map(pathOf))}`);
  if (r.tooLarge.length > 0)
    notes.push(`could not restore (too large to keep): ${list(r.tooLarge.map(pathOf))}`);
  if (r.failed.length > 0) notes.push(`could not restore ${list(r.failed.map(pathOf))}`);
  return notes;
}

/**
 * Restores the owned files from `captured` and everything else the worker changed from `kept`
 * (src/runtime/workspace-watch.ts `restoreWorkspace`); resolves to the notes saying what was put
 * back and what could not be.
 *
 * @example
 * ```ts
 * await restoreAfterRefusal(captured, zones, kept, changes); // ['owned files restored to their pre-dispatch bytes']
 * ```
 */
export async function restoreAfterRefusal(
  captured: OwnedCapture,
  zones: WatchZones,
  kept: ZoneBytes,
  changes: WorkspaceChanges,
): Promise<string[]> {
  // the rest of the tree first: a link or folder the worker planted on an owned file's way is gone
  // (and the real folders back) before the owned files are written
  const zoneChanges = changes.git.length + changes.store.length;
  const rest =
    zoneChanges + changes.project.length > 0
      ? restoreNotes(await restoreWorkspace(zones, kept, changes), zoneChanges)
      : [];
  for (const [p, v] of captured) if (v.bytes !== null) safeParent(zones.projectRoot, p);
  const back = await restoreOwned(captured);
  const notes: string[] = [];
  if (back.restored.length > 0) notes.push('owned files restored to their pre-dispatch bytes');
  notes.push(...rest);
  if (back.failed.length > 0) notes.push(`could not restore ${back.failed.join(', ')}`);
  return notes;
}
