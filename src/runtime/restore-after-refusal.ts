/**
 * Putting things back after a refusal (layer 3, effects): the owned files to their pre-dispatch
 * bytes, git's control files and the run store to theirs, with the notes a refusal's detail ends
 * with. The one sequence behind every refusal of the cycle runtime's delegating worker and of
 * `delegate`/`checkHandoff` (src/delegate).
 */
import { type OwnedCapture, restoreOwned } from './owned-files.js';
import { restoreZones, type WatchZones, type WorkspaceChanges, type ZoneBytes } from './workspace-watch.js';

/**
 * Restores the owned files from `captured` and the changed git and store files from `kept`;
 * resolves to the notes saying what was put back and what could not be. Other project files a
 * worker wrote are not put back (their bytes were never kept — the cycle runtime does the same);
 * the `outside_owned` violation names them.
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
  const back = await restoreOwned(captured);
  const notes: string[] = [];
  if (back.restored.length > 0) notes.push('owned files restored to their pre-dispatch bytes');
  if (changes.git.length > 0 || changes.store.length > 0) {
    const failed = await restoreZones(zones, kept, changes);
    notes.push(
      failed.length > 0
        ? `could not restore ${failed.join(', ')}`
        : 'git control files and run store restored to their pre-dispatch bytes',
    );
  }
  if (back.failed.length > 0) notes.push(`could not restore ${back.failed.join(', ')}`);
  return notes;
}
