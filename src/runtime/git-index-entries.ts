/**
 * What a git index says (layer 1, pure): its entries read from the index file's bytes (versions
 * 2, 3 and 4; SHA-1 object ids), without the stat cache git refreshes on an ordinary `git status`.
 * The workspace watch fingerprints `.git/index` by these entries, so a worker staging or
 * unstaging anything (or flagging a file assume-unchanged / skip-worktree) is a change, while git
 * refreshing its stat cache is not.
 */
import { createHash } from 'node:crypto';

/** One index entry: mode, object id (hex), flags (stage, assume-valid, extended), path. */
export interface GitIndexEntry {
  readonly path: string;
  readonly mode: number;
  readonly oid: string;
  /** The 16-bit flags word without the name length, and the v3+ extended flags. */
  readonly flags: number;
  readonly extended: number;
}

/**
 * The entries of a git index file, or null when the bytes are not an index this reader knows
 * (bad signature, an unknown version, a truncated entry). Never throws.
 *
 * @example
 * ```ts
 * parseGitIndex(readFileSync('/repo/.git/index'))?.[0]?.path; // 'A.lean'
 * ```
 */
export function parseGitIndex(buf: Uint8Array): GitIndexEntry[] | null {
  const b = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength);
  if (b.length < 12 || b.toString('latin1', 0, 4) !== 'DIRC') return null;
  const version = b.readUInt32BE(4);
  if (version < 2 || version > 4) return null;
  const count = b.readUInt32BE(8);
  const out: GitIndexEntry[] = [];
  let off = 12;
  let prev: Buffer = Buffer.alloc(0);
  for (let i = 0; i < count; i++) {
    const start = off;
    if (off + 62 > b.length) return null;
    const mode = b.readUInt32BE(off + 24);
    const oid = b.toString('hex', off + 40, off + 60);
    const flags = b.readUInt16BE(off + 60);
    off += 62;
    let extended = 0;
    if (flags & 0x4000) {
      if (version < 3 || off + 2 > b.length) return null;
      extended = b.readUInt16BE(off);
      off += 2;
    }
    let name: Buffer;
    if (version === 4) {
      // offset varint: how many bytes of the previous path to drop
      let c = b[off++];
      if (c === undefined) return null;
      let strip = c & 127;
      while (c & 128) {
        c = b[off++];
        if (c === undefined) return null;
        strip = ((strip + 1) << 7) + (c & 127);
      }
      const nul = b.indexOf(0, off);
      if (nul < 0 || strip > prev.length) return null;
      name = Buffer.concat([prev.subarray(0, prev.length - strip), b.subarray(off, nul)]);
      off = nul + 1;
    } else {
      const nul = b.indexOf(0, off);
      if (nul < 0) return null;
      name = b.subarray(off, nul);
      // entries are padded with 1–8 NULs to a multiple of 8 bytes
      off = start + ((off - start + name.length + 8) & ~7);
      if (off > b.length) return null;
    }
    prev = name;
    out.push({ path: name.toString('utf8'), mode, oid, flags: flags & 0xf000, extended });
  }
  return out;
}

/**
 * A fingerprint of an index's entries (sha256 hex), or null when the bytes are not a readable
 * index (the caller then falls back to the raw bytes' hash). The stat cache and the extensions
 * (cache tree, untracked cache, fsmonitor token) are left out: git rewrites them on reads.
 *
 * @example
 * ```ts
 * gitIndexFingerprint(readFileSync('/repo/.git/index')); // 'e3b0c4…'
 * ```
 */
export function gitIndexFingerprint(buf: Uint8Array): string | null {
  const entries = parseGitIndex(buf);
  if (entries === null) return null;
  const h = createHash('sha256');
  for (const e of entries) h.update(`${e.mode.toString(8)} ${e.oid} ${e.flags} ${e.extended} ${e.path}\n`);
  return h.digest('hex');
}

/**
 * The SHA-1 object id git gives a blob of `bytes` (`git hash-object`).
 *
 * @example
 * ```ts
 * gitBlobId(Buffer.from('')); // 'e69de29bb2d1d6434b8b29ae775ad8c2e48c5391'
 * ```
 */
export function gitBlobId(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex');
}
