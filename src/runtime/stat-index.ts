/**
 * The stat index of a workspace watch (layer 3, effects): per path, the stat stamp (size, mtime
 * and ctime in ns, inode, mode), the fingerprint computed from it and what a restore would need,
 * kept across the snapshots of one run so a snapshot hashes only what changed (and git's racy
 * entries, src/runtime/racy-entry.ts). The walk is synchronous (`readdirSync`, `lstatSync`,
 * reads through one descriptor per hashed file): at 20,000 files one thread-pool round trip per
 * file cost more than the stats themselves (docs/performance.md, "Workspace watch at 20k/80k
 * files").
 *
 * Ownership: one index per run. The caller may pass its own (`createStatIndex`); otherwise the
 * watch keeps one per {@link WatchZones} object (a run's custody holds one zones object for the
 * whole run, a `delegate` call one for its before/after pair), dropped with it.
 */

import { createHash } from 'node:crypto';
import { closeSync, constants, lstatSync, openSync, readdirSync, readlinkSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { isRacy, RACY_MARGIN_NS, type StatStamp, stampChanged } from './racy-entry.js';

/** What a restore needs of one path as it was when its entry was taken. */
export type KeptState =
  | { readonly kind: 'file'; readonly bytes: Buffer; readonly mode: number }
  | { readonly kind: 'link'; readonly to: string }
  /** A regular file over the keep bounds: watched by hash only. */
  | { readonly kind: 'large' }
  /** A regular file whose bytes are git's blob for it (restorable from git, verified by sha256). */
  | { readonly kind: 'git'; readonly sha256: string; readonly mode: number }
  /** A FIFO, socket or device: watched, never read, not restorable. */
  | { readonly kind: 'special' };

/** One indexed path. */
export interface IndexedEntry {
  readonly stamp: StatStamp;
  /** Wall-clock ns when the entry was taken (the racy rule's reference). */
  readonly takenNs: bigint;
  /** Whether the entry was racy when taken (fixed for its life: hashed again at every snapshot until replaced). */
  readonly racy: boolean;
  /** The watch's fingerprint (`file:<mode>:<sha256>`, `link:<to>`, `special:<mode>`, …). */
  readonly fp: string;
  readonly kept: KeptState;
}

/** Options of {@link createStatIndex}. */
export interface StatIndexOptions {
  /** The racy margin in ns (default {@link RACY_MARGIN_NS}). */
  readonly racyMarginNs?: bigint;
  /** Called with each absolute path the index hashes (tests count them). */
  readonly onHash?: (abs: string) => void;
  /** Largest project file whose bytes are kept for a restore (default 1 MiB). */
  readonly keepEach?: number;
  /** Most bytes of project files kept at once (default 64 MiB). */
  readonly keepTotal?: number;
}

/** A stat index (mutable; owned by one run). */
export interface StatIndex {
  readonly entries: Map<string, IndexedEntry>;
  readonly racyMarginNs: bigint;
  readonly keepEach: number;
  readonly keepTotal: number;
  readonly onHash: ((abs: string) => void) | undefined;
  /** Bytes of project files currently kept. */
  keptBytes: number;
  /** Files hashed since creation. */
  hashes: number;
  /** The generation of the snapshot being taken (one per snapshot). */
  gen: number;
  /** Entries replaced, with the generation that replaced them: what an earlier snapshot saw. */
  readonly undo: { readonly gen: number; readonly abs: string; readonly entry: IndexedEntry }[];
  /** Generations below this may have lost undo records (the log is bounded). */
  undoFloor: number;
}

/** Most undo records kept (each is one path changed between two snapshots of a run). */
const UNDO_MAX = 8192;

/**
 * Creates an empty stat index.
 *
 * @example
 * ```ts
 * const index = createStatIndex({ onHash: () => count++ });
 * await snapshotWorkspace(zones, owned, index);
 * ```
 */
export function createStatIndex(o: StatIndexOptions = {}): StatIndex {
  return {
    entries: new Map(),
    racyMarginNs: o.racyMarginNs ?? RACY_MARGIN_NS,
    keepEach: o.keepEach ?? 1024 * 1024,
    keepTotal: o.keepTotal ?? 64 * 1024 * 1024,
    onHash: o.onHash,
    keptBytes: 0,
    hashes: 0,
    gen: 0,
    undo: [],
    undoFloor: 0,
  };
}

/**
 * The stamp of a path, not following a link at it; null when it is absent or cannot be stat'ed.
 *
 * @example
 * ```ts
 * statStamp('/repo/A.lean')?.size; // 42n
 * ```
 */
export function statStamp(abs: string): StatStamp | null {
  try {
    // the stats object itself (no copy): the index copies the five fields only when it records one
    return lstatSync(abs, { bigint: true, throwIfNoEntry: false }) ?? null;
  } catch {
    return null;
  }
}

/**
 * The file-type bits of a stamp's mode (`0o100000` regular file, `0o120000` link, `0o040000` folder).
 *
 * @example
 * ```ts
 * kindOf(statStamp('/repo/A.lean')!); // 0o100000
 * ```
 */
export function kindOf(st: StatStamp): number {
  return Number(st.mode & 0o170000n);
}

const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;
const CHUNK = 1024 * 1024;

/** How the bytes of a hashed regular file are treated. */
export interface HashPolicy {
  /** Keep the bytes when at most this many (0: never). */
  readonly keepUpTo: number;
  /** The git blob id the path has in the index (a match makes it `git`-restorable). */
  readonly gitOid?: string;
  /** Fingerprint the bytes differently (e.g. the git index by its entries); null: by sha256. */
  readonly special?: (bytes: Buffer) => string | null;
}

/** Reads a regular file through one descriptor (no link followed, no FIFO waited on). */
function hashFile(
  abs: string,
  stamp: StatStamp,
  policy: HashPolicy,
): { sha256: string; bytes: Buffer | null; gitOid: string | null; special: string | null } | null {
  let fd: number;
  try {
    fd = openSync(abs, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return null;
  }
  try {
    // no fstat: the path was just lstat'ed as a regular file; a FIFO or folder swapped in since
    // fails the read (EAGAIN, EISDIR) and the file is `unreadable`; a swapped file has another
    // inode, so the next snapshot hashes it again
    const size = Number(stamp.size);
    const sha = createHash('sha256');
    if (size <= Math.max(policy.keepUpTo, CHUNK) || policy.special !== undefined) {
      let buf = Buffer.allocUnsafe(size + 1);
      let n = 0;
      for (;;) {
        if (n === buf.length) buf = Buffer.concat([buf, Buffer.allocUnsafe(buf.length)]);
        const r = readSync(fd, buf, n, buf.length - n, null);
        if (r === 0) break;
        n += r;
      }
      const bytes = buf.subarray(0, n);
      sha.update(bytes);
      return {
        sha256: sha.digest('hex'),
        bytes: n <= policy.keepUpTo ? bytes : null,
        gitOid:
          policy.gitOid === undefined
            ? null
            : createHash('sha1').update(`blob ${n}\0`).update(bytes).digest('hex'),
        special: policy.special?.(bytes) ?? null,
      };
    }
    const sha1 = policy.gitOid === undefined ? null : createHash('sha1').update(`blob ${size}\0`);
    const buf = Buffer.allocUnsafe(CHUNK);
    let total = 0;
    for (;;) {
      const r = readSync(fd, buf, 0, CHUNK, null);
      if (r === 0) break;
      sha.update(buf.subarray(0, r));
      sha1?.update(buf.subarray(0, r));
      total += r;
    }
    return {
      sha256: sha.digest('hex'),
      bytes: null,
      gitOid: total === size ? (sha1?.digest('hex') ?? null) : null,
      special: null,
    };
  } catch {
    return null;
  } finally {
    closeSync(fd);
  }
}

/**
 * The entry of `abs` (whose stamp is `stamp`) in `index`: the recorded one when its stamp still
 * vouches for it (unchanged, not racy), else a fresh one (the file hashed, its bytes kept per
 * `policy`), recorded at `takenNs`. Project bytes are counted against the index's total bound
 * (`countKept`); over it, the entry is `large`. `gitOid`: the blob id git's index gives the path.
 *
 * @example
 * ```ts
 * const e = indexedEntry(index, '/repo/B.lean', statStamp('/repo/B.lean'), nowNs(), { keepUpTo: 1 << 20 });
 * ```
 */
export function indexedEntry(
  index: StatIndex,
  abs: string,
  st: StatStamp,
  takenNs: bigint,
  policy: HashPolicy,
  countKept = false,
  gitOid?: string,
): IndexedEntry {
  const old = index.entries.get(abs);
  // the racy rule (src/runtime/racy-entry.ts `needsHash`), its verdict computed once per entry
  if (old !== undefined && !old.racy && !stampChanged(old.stamp, st)) return old;
  const stamp: StatStamp = {
    size: st.size,
    mtimeNs: st.mtimeNs,
    ctimeNs: st.ctimeNs,
    ino: st.ino,
    mode: st.mode,
  };
  const kind = kindOf(st);
  const mode = Number(stamp.mode & 0o7777n);
  let fp: string;
  let kept: KeptState;
  if (kind === S_IFLNK) {
    let to = '?';
    try {
      to = readlinkSync(abs);
    } catch {}
    fp = `link:${to}`;
    kept = { kind: 'link', to };
  } else if (kind === S_IFREG) {
    index.hashes++;
    index.onHash?.(abs);
    const free = countKept ? index.keepTotal - index.keptBytes + keptSize(old) : Number.POSITIVE_INFINITY;
    const keepUpTo = Math.min(policy.keepUpTo, Math.max(free, 0));
    const h = hashFile(abs, stamp, { ...policy, keepUpTo, ...(gitOid === undefined ? {} : { gitOid }) });
    if (h === null) {
      fp = `file:${mode.toString(8)}:unreadable`;
      kept = { kind: 'large' };
    } else {
      fp = h.special ?? `file:${mode.toString(8)}:${h.sha256}`;
      const oid = gitOid ?? policy.gitOid;
      if (oid !== undefined && h.gitOid === oid) kept = { kind: 'git', sha256: h.sha256, mode };
      else if (h.bytes !== null) kept = { kind: 'file', bytes: h.bytes, mode };
      else kept = { kind: 'large' };
    }
  } else if (kind === S_IFDIR) {
    fp = 'dir';
    kept = { kind: 'special' };
  } else {
    fp = `special:${Number(stamp.mode).toString(8)}`;
    kept = { kind: 'special' };
  }
  if (countKept) index.keptBytes += keptSize({ kept } as IndexedEntry) - keptSize(old);
  const entry: IndexedEntry = { stamp, takenNs, racy: isRacy(stamp, takenNs, index.racyMarginNs), fp, kept };
  index.entries.set(abs, entry);
  if (old !== undefined) {
    index.undo.push({ gen: index.gen, abs, entry: old });
    if (index.undo.length > UNDO_MAX) {
      const dropped = index.undo.splice(0, index.undo.length - UNDO_MAX / 2);
      index.undoFloor = (dropped[dropped.length - 1] as { gen: number }).gen;
    }
  }
  return entry;
}

/**
 * The entry `abs` had in the snapshot of generation `gen` (the index keeps only the newest entry
 * per path, plus the replaced ones): undefined when it had none that the index still knows, null
 * when the bounded undo log no longer reaches back that far.
 *
 * @example
 * ```ts
 * entryAt(index, '/repo/B.lean', before.gen)?.kept; // what a restore of B.lean needs
 * ```
 */
export function entryAt(index: StatIndex, abs: string, gen: number): IndexedEntry | null | undefined {
  if (gen < index.undoFloor) return null;
  for (const u of index.undo) if (u.gen > gen && u.abs === abs) return u.entry;
  return index.entries.get(abs);
}

function keptSize(e: IndexedEntry | undefined): number {
  return e !== undefined && e.kept.kind === 'file' ? e.kept.bytes.length : 0;
}

/**
 * Wall-clock now in ns (the racy rule's reference; the file system stamps with the same clock).
 *
 * @example
 * ```ts
 * const t = nowNs();
 * ```
 */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}

/**
 * Walks `base` synchronously, depth first: `visit(rel, abs, isDir, name)` for every entry below it
 * (`rel` with `/` separators); a directory is descended into unless `visit` returns false.
 * Links are never followed; an unreadable directory is skipped.
 *
 * @example
 * ```ts
 * walkSync('/repo', (rel, abs, isDir) => rel !== 'node_modules');
 * ```
 */
export function walkSync(
  base: string,
  visit: (rel: string, abs: string, isDir: boolean, name: string) => boolean | undefined,
): void {
  const stack: [string, string][] = [[base, '']];
  while (stack.length > 0) {
    const [dir, relDir] = stack.pop() as [string, string];
    let names: import('node:fs').Dirent[];
    try {
      names = readdirSync(dir, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const e of names) {
      const abs = join(dir, e.name);
      const rel = relDir === '' ? e.name : `${relDir}/${e.name}`;
      const isDir = e.isDirectory();
      const go = visit(rel, abs, isDir, e.name);
      if (isDir && go !== false) stack.push([abs, rel]);
    }
  }
}
