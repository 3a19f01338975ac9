/**
 * What a sandboxed worker left in its writable layer, classified (layer 1, pure): the shape the
 * layer reader returns and the rules that name a path (a raw file name that is not UTF-8 is
 * escaped, never dropped).
 */

/**
 * The changes of one writable layer, each path relative to the project, `/`-separated.
 *
 * @example
 * ```ts
 * const c: LayerChanges = { written: ['B.lean'], deleted: [], opaqueDirs: [], specials: [{ path: 'l', kind: 'symlink' }] };
 * ```
 */
export interface LayerChanges {
  /** Regular files created or modified (also metadata-only changes: a copy-up). */
  readonly written: readonly string[];
  /** Paths removed (a whiteout: a character device 0,0). */
  readonly deleted: readonly string[];
  /** Directories replaced as a whole (opaque: the project's entries below them are hidden). */
  readonly opaqueDirs: readonly string[];
  /** Symbolic links, FIFOs, sockets, devices (other than whiteouts), and unreadable entries. */
  readonly specials: readonly { readonly path: string; readonly kind: string }[];
}

/**
 * No change at all.
 *
 * @example
 * ```ts
 * planLayer(NO_LAYER_CHANGES, new Set(), { allowDelete: false }).discarded; // []
 * ```
 */
export const NO_LAYER_CHANGES: LayerChanges = { written: [], deleted: [], opaqueDirs: [], specials: [] };

/**
 * A raw file name as text: itself when it is valid UTF-8, else every byte ≥ 0x80 (and `\`)
 * escaped as `\xNN` — so a name never disappears from a report (pure).
 *
 * @example
 * ```ts
 * nameText(Buffer.from([0x61, 0xff])); // 'a\\xff'
 * nameText(Buffer.from('é'));          // 'é'
 * ```
 */
export function nameText(raw: Uint8Array): string {
  const b = Buffer.from(raw);
  const s = b.toString('utf8');
  if (Buffer.from(s, 'utf8').equals(b)) return s;
  let out = '';
  for (const c of b) {
    out += c >= 0x80 || c === 0x5c ? `\\x${c.toString(16).padStart(2, '0')}` : String.fromCharCode(c);
  }
  return out;
}

/**
 * The kind of a non-regular, non-directory entry, as reported (pure).
 *
 * @example
 * ```ts
 * const k: SpecialKind = 'fifo';
 * ```
 */
export type SpecialKind = 'symlink' | 'fifo' | 'socket' | 'device' | 'whiteout' | 'unknown';

/**
 * Classifies an lstat result (pure): whiteouts are character devices with device number 0.
 *
 * @example
 * ```ts
 * entryKind(await lstat(p)); // 'file' | 'dir' | 'whiteout' | 'symlink' | …
 * ```
 */
export function entryKind(st: {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
  rdev: number;
}): 'file' | 'dir' | SpecialKind {
  if (st.isFile()) return 'file';
  if (st.isDirectory()) return 'dir';
  if (st.isSymbolicLink()) return 'symlink';
  if (st.isFIFO()) return 'fifo';
  if (st.isSocket()) return 'socket';
  if (st.isCharacterDevice()) return st.rdev === 0 ? 'whiteout' : 'device';
  if (st.isBlockDevice()) return 'device';
  return 'unknown';
}
