/**
 * Verified custody between a worker's return and the checkpoint (layer 3): the bytes of every
 * owned file the runtime accepted, and the workspace as it was when it accepted them. The
 * checkpoint commits exactly these bytes (never what happens to be on disk by then) and re-checks
 * the disk first: a late write by a leftover process — to an owned file or anywhere else — is a
 * custody violation, and the owned files are put back to the verified bytes.
 */
import { lstat, readFile } from 'node:fs/promises';
import { type OwnedCapture, restoreOwned } from './owned-files.js';
import {
  describeWorkspaceChanges,
  snapshotWorkspace,
  type WatchZones,
  type WorkspaceSnapshot,
  workspaceChanges,
} from './workspace-watch.js';

/** One accepted file: its verified bytes (null: the worker deleted it) and permission bits. */
export interface VerifiedFile {
  readonly bytes: Buffer | null;
  readonly mode: number;
}

/** The custody a run holds between acceptance and checkpoint. */
export interface VerifiedCustody {
  /** The zones this custody watches. */
  readonly zones: WatchZones;
  /** Records what the runtime accepted after a dispatch (the owned files and the workspace then). */
  accept(files: OwnedCapture, snapshot: WorkspaceSnapshot, owned: readonly string[]): void;
  /** The verified bytes of an accepted file (undefined when none was accepted). */
  verified(file: string): VerifiedFile | undefined;
  /** Null when the disk still holds what was accepted, else the late change. */
  recheck(files: readonly string[]): Promise<string | null>;
  /** Puts the accepted files back to their verified bytes. */
  restore(files: readonly string[]): Promise<{ restored: string[]; failed: string[] }>;
}

const projectAndGit = (s: WorkspaceSnapshot): WorkspaceSnapshot =>
  new Map([...s].filter(([k]) => !k.startsWith('store:')));

/**
 * Creates the verified custody of one run.
 *
 * @example
 * ```ts
 * const custody = createVerifiedCustody({ projectRoot: '/repo', gitDirs: ['/repo/.git'], storeRoot: null });
 * ```
 */
export function createVerifiedCustody(zones: WatchZones): VerifiedCustody {
  const files = new Map<string, VerifiedFile>();
  let snapshot: WorkspaceSnapshot | null = null;
  let watched: readonly string[] = [];
  return {
    zones,
    accept(capture, snap, owned) {
      for (const [p, v] of capture) files.set(p, v);
      snapshot = snap;
      watched = owned;
    },
    verified: (file) => files.get(file),
    async recheck(list) {
      for (const f of list) {
        const want = files.get(f);
        if (want === undefined) return `${f} was never verified`;
        const st = await lstat(f).catch(() => null);
        if (want.bytes === null) {
          if (st !== null) return `${f} reappeared after the worker deleted it`;
          continue;
        }
        if (st === null || !st.isFile()) return `${f} is no longer the regular file that was verified`;
        const now = await readFile(f);
        if (!now.equals(want.bytes)) return `${f} changed after it was verified (a late write)`;
      }
      if (snapshot === null) return null;
      const now = await snapshotWorkspace(zones, watched);
      return describeWorkspaceChanges(workspaceChanges(projectAndGit(snapshot), projectAndGit(now)));
    },
    async restore(list) {
      const capture = new Map<string, VerifiedFile>();
      for (const f of list) {
        const v = files.get(f);
        if (v !== undefined) capture.set(f, v);
      }
      return restoreOwned(capture);
    },
  };
}
