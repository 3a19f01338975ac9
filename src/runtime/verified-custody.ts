/**
 * Verified custody between a worker's return and the checkpoint (layer 3): the bytes of every
 * owned file the runtime accepted, and the workspace as it was when it accepted them. The
 * checkpoint commits exactly these bytes (never what happens to be on disk by then) and re-checks
 * the disk first: a late write by a leftover process — to an owned file or anywhere else — is a
 * custody violation, and the owned files are put back to the verified bytes. The statement fence is
 * checked again there, between the run's first view of each file's headers and the verified bytes.
 */
import { lstat, readFile } from 'node:fs/promises';
import { relative, sep } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import { fenceCheck, type HeaderExtraction, type HeaderSnapshot } from '../fence/index.js';
import { type OwnedCapture, restoreOwned } from './owned-files.js';
import {
  defaultFenceResolver,
  type FenceResolver,
  fenceBreach,
  headersOfCapture,
} from './statement-fence.js';
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
  /**
   * Records what the runtime accepted after a dispatch: the owned files, the workspace then, and
   * the files' declaration headers before that dispatch (the first ones seen of a file are the
   * run's statement baseline, re-checked at the checkpoint). The snapshot is null after a
   * sandboxed dispatch (nothing outside the owned files could change; the checkpoint walks nothing).
   * `grants` are the dispatch's capabilities: the fence grants the checkpoint's re-check honours.
   */
  accept(
    files: OwnedCapture,
    snapshot: WorkspaceSnapshot | null,
    owned: readonly string[],
    headers?: HeaderSnapshot,
    grants?: readonly string[],
  ): void;
  /** The verified bytes of an accepted file (undefined when none was accepted). */
  verified(file: string): VerifiedFile | undefined;
  /** Null when the disk still holds what was accepted, else the late change. */
  recheck(files: readonly string[]): Promise<string | null>;
  /** Puts the accepted files back to their verified bytes. */
  restore(files: readonly string[]): Promise<{ restored: string[]; failed: string[] }>;
  /**
   * Hands custody of files the runtime itself rolled back (a deep snapshot's restore) to the
   * restored bytes: they become the verified bytes (so the late-write re-check passes and a
   * checkpoint that names them commits exactly them), the held workspace view learns them, and
   * each is marked rolled back until a later dispatch's edit to it is accepted.
   */
  revert(files: OwnedCapture): void;
  /** Whether `file`'s current custody comes from a rollback (not to be staged by a checkpoint). */
  rolledBack(file: string): boolean;
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
export function createVerifiedCustody(
  zones: WatchZones,
  fence: FenceResolver = defaultFenceResolver,
): VerifiedCustody {
  const files = new Map<string, VerifiedFile>();
  const statements = new Map<string, HeaderExtraction | null>();
  const reverted = new Set<string>();
  const granted = new Set<string>();
  let snapshot: WorkspaceSnapshot | null = null;
  let watched: readonly string[] = [];
  return {
    zones,
    accept(capture, snap, owned, headers, grants) {
      for (const g of grants ?? []) granted.add(g);
      for (const [p, v] of capture) {
        files.set(p, v);
        reverted.delete(p);
      }
      for (const [p, h] of headers ?? []) if (!statements.has(p)) statements.set(p, h);
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
        // another size is a late write: never read (it may be gigabytes)
        if (st.size !== want.bytes.length) return `${f} changed after it was verified (a late write)`;
        const now = await readFile(f);
        if (!now.equals(want.bytes)) return `${f} changed after it was verified (a late write)`;
      }
      const held = new Map([...statements].filter(([p]) => list.includes(p)));
      const verified = new Map(
        list.flatMap((f) => (files.has(f) ? [[f, files.get(f) as VerifiedFile]] : [])),
      );
      const breach = fenceBreach(
        zones.projectRoot,
        fenceCheck(held, await headersOfCapture(verified, fence), [...granted]),
      );
      if (breach !== null) return breach;
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
    revert(capture) {
      const view = snapshot === null ? null : new Map(snapshot);
      for (const [p, v] of capture) {
        files.set(p, { bytes: v.bytes, mode: v.mode });
        reverted.add(p);
        if (view === null || watched.includes(p)) continue;
        const key = `project:${relative(zones.projectRoot, p).split(sep).join('/')}`;
        if (v.bytes === null) view.delete(key);
        else view.set(key, `file:${(v.mode & 0o7777).toString(8)}:${sha256Hex(v.bytes)}`);
      }
      if (view !== null) snapshot = view;
    },
    rolledBack: (file) => reverted.has(file),
  };
}
