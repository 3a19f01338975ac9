/**
 * Deep mode's path-scoped snapshots (layer 3, effects; seed 002 § Deep Snapshot and Rollback):
 * `take` captures exactly the deep-managed files — bytes, existence and permission bits — in
 * memory, nothing else of the working tree; `restore` puts them back byte for byte (deleting the
 * ones that did not exist), re-reads every file and compares its sha256 with the snapshot, and
 * hands the run's verified custody the restored bytes so a later checkpoint commits them (never
 * the rolled-back edit) and the late-write re-check passes. A failed rollback is a result
 * (`ok: false` with the reason), never a throw.
 */
import { lstat, readFile, realpath, rm } from 'node:fs/promises';
import { dirname, relative, sep } from 'node:path';
import { sha256Hex } from '../canonical/index.js';
import type { SnapshotInput } from '../cycle/types.js';
import { HandoffError } from '../errors/index.js';
import { resolveUnder } from './dispatch-builder.js';
import { type OwnedCapture, restoreFile } from './owned-files.js';
import type { SnapshotPort } from './ports.js';
import type { VerifiedCustody } from './verified-custody.js';

/** How a restore writes (the fault-injection seam: tests inject a failing writer). */
export interface SnapshotWriter {
  /** Puts `bytes` at `file` (absolute) with exactly `mode`; a link at the path is replaced. */
  write(file: string, bytes: Buffer, mode: number): Promise<void>;
  /** Removes `file` (absolute), which did not exist when the snapshot was taken. */
  remove(file: string): Promise<void>;
}

/** The default writer: src/runtime/owned-files' `restoreFile` (temp beside it, renamed over it) and `rm`. */
const nodeWriter: SnapshotWriter = {
  async write(file, bytes, mode) {
    restoreFile(file, bytes, mode);
  },
  async remove(file) {
    await rm(file, { recursive: true, force: true });
  },
};

/** Options of {@link createDeepSnapshots}. */
export interface DeepSnapshotsOptions {
  /** The project root (a realpath). */
  readonly projectRoot: string;
  /** The run's verified custody, handed the restored bytes after a rollback (absent: none). */
  readonly custody?: VerifiedCustody;
  /** How a restore writes (default: atomic replace and `rm`). */
  readonly writer?: SnapshotWriter;
}

interface Held {
  readonly rel: string;
  readonly abs: string;
  readonly bytes: Buffer | null;
  readonly mode: number;
}

const rel = (root: string, abs: string) => relative(root, abs).split(sep).join('/');

async function capture(root: string, file: string): Promise<Held> {
  const abs = resolveUnder(root, file);
  if (abs === null) {
    throw new HandoffError('custody_violation', `deep snapshot: ${file} is outside the project root ${root}`);
  }
  const dir = await realpath(dirname(abs)).catch(() => null);
  if (dir !== null && dir !== dirname(abs)) {
    throw new HandoffError(
      'custody_violation',
      `deep snapshot: a folder on the path of ${file} is a symbolic link`,
    );
  }
  const st = await lstat(abs).catch(() => null);
  if (st === null) return { rel: rel(root, abs), abs, bytes: null, mode: 0o644 };
  if (st.isSymbolicLink()) {
    throw new HandoffError('custody_violation', `deep snapshot: ${file} is a symbolic link`);
  }
  if (!st.isFile())
    throw new HandoffError('custody_violation', `deep snapshot: ${file} is not a regular file`);
  return { rel: rel(root, abs), abs, bytes: await readFile(abs), mode: st.mode & 0o777 };
}

/** Null when `h.abs` holds exactly the snapshot (existence, sha256, mode), else what differs. */
async function verifyBack(h: Held): Promise<string | null> {
  const st = await lstat(h.abs).catch(() => null);
  if (h.bytes === null) return st === null ? null : `${h.rel} still exists`;
  if (st === null || !st.isFile()) return `${h.rel} is not a regular file after the restore`;
  const now = await readFile(h.abs).catch(() => null);
  if (now === null || sha256Hex(now) !== sha256Hex(h.bytes))
    return `${h.rel} does not hold the snapshot's bytes`;
  if ((st.mode & 0o777) !== h.mode)
    return `${h.rel} has mode ${(st.mode & 0o777).toString(8)}, not ${h.mode.toString(8)}`;
  return null;
}

/**
 * Creates the snapshot port of one run. Snapshot ids are `snap-1`, `snap-2`, … in the order taken.
 * `take` rejects (`custody_violation`) a path outside the root, a symbolic link, a folder swapped
 * for a link or a non-regular file: nothing is captured then. `restore` never rejects: an unknown
 * id, a file the snapshot does not hold, a failed write or a re-read that does not match is
 * `ok: false` with the reason; a successful restore discards the snapshot.
 *
 * @example
 * ```ts
 * const snaps = createDeepSnapshots({ projectRoot: '/repo', custody });
 * const s = await snaps.take({ files: ['A.lean'], label: 'deep-snapshot: A.lean:3' }); // { id: 'snap-1', files: ['A.lean'] }
 * await snaps.restore({ snapshotId: s.id, files: s.files, reason: 'deep: regression — new errors' });
 * // { ok: true, restored: ['A.lean'], detail: null }
 * ```
 */
export function createDeepSnapshots(o: DeepSnapshotsOptions): SnapshotPort {
  const held = new Map<string, readonly Held[]>();
  const writer = o.writer ?? nodeWriter;
  let n = 0;
  return {
    async take(input: SnapshotInput) {
      const files: Held[] = [];
      for (const f of input.files) files.push(await capture(o.projectRoot, f));
      const unique = [...new Map(files.map((h) => [h.abs, h])).values()];
      n += 1;
      const id = `snap-${n}`;
      held.set(id, unique);
      return { id, files: unique.map((h) => h.rel) };
    },
    async restore(input) {
      const snap = held.get(input.snapshotId);
      if (snap === undefined) {
        return { ok: false, restored: [], detail: `unknown snapshot ${input.snapshotId}` };
      }
      const want = input.files.length === 0 ? snap.map((h) => h.rel) : input.files;
      const chosen: Held[] = [];
      for (const f of want) {
        const abs = resolveUnder(o.projectRoot, f);
        const h = snap.find((x) => x.abs === abs);
        if (h === undefined) {
          return { ok: false, restored: [], detail: `${f} is not in snapshot ${input.snapshotId}` };
        }
        chosen.push(h);
      }
      const restored: string[] = [];
      const problems: string[] = [];
      const back = new Map<string, { bytes: Buffer | null; mode: number }>();
      for (const h of chosen) {
        try {
          const dir = await realpath(dirname(h.abs)).catch(() => null);
          if (dir !== null && dir !== dirname(h.abs)) {
            problems.push(`a folder on the path of ${h.rel} was swapped for a symbolic link`);
            continue;
          }
          if (h.bytes === null) await writer.remove(h.abs);
          else await writer.write(h.abs, h.bytes, h.mode);
        } catch (e) {
          problems.push(`${h.rel}: ${(e as Error).message}`);
          continue;
        }
        const bad = await verifyBack(h);
        if (bad !== null) {
          problems.push(bad);
          continue;
        }
        restored.push(h.rel);
        back.set(h.abs, { bytes: h.bytes, mode: h.mode });
      }
      const capture: OwnedCapture = back;
      if (back.size > 0) o.custody?.revert(capture);
      if (problems.length > 0) {
        return { ok: false, restored, detail: `rollback failed: ${problems.join('; ')}` };
      }
      held.delete(input.snapshotId);
      return { ok: true, restored, detail: null };
    },
  };
}
