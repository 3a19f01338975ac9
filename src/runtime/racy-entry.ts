/**
 * The stat index's trust rules (layer 1, pure): when a file's recorded stat still vouches for its
 * recorded hash. An entry is reused only when size, mtime and ctime (ns), inode and mode are all
 * unchanged **and** it is not racy: git's racy-entry rule — a file changed in the same clock tick
 * as the moment its entry was taken can change again without its stat changing, so an entry whose
 * newest timestamp is not strictly older than the time it was taken (minus a margin covering the
 * file system's timestamp granularity and the kernel's coarse clock) is hashed again.
 *
 * ctime counts as well as mtime: a process can set mtime back (`utimes`), never ctime.
 */

/** The stat fields the index compares (ns timestamps as bigint, as `lstat(…, { bigint: true })` gives them). */
export interface StatStamp {
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  readonly ino: bigint;
  readonly mode: bigint;
}

/** Default racy margin: 2 s (FAT's timestamp granularity; far above a coarse-clock tick). */
export const RACY_MARGIN_NS = 2_000_000_000n;

/**
 * Whether two stamps differ in any compared field.
 *
 * @example
 * ```ts
 * stampChanged(a, { ...a, ctimeNs: a.ctimeNs + 1n }); // true
 * ```
 */
export function stampChanged(a: StatStamp, b: StatStamp): boolean {
  return (
    a.size !== b.size ||
    a.mtimeNs !== b.mtimeNs ||
    a.ctimeNs !== b.ctimeNs ||
    a.ino !== b.ino ||
    a.mode !== b.mode
  );
}

/**
 * Whether an entry recorded with `stamp` at `takenNs` is racy: its newest timestamp is not
 * strictly older than `takenNs - marginNs`.
 *
 * @example
 * ```ts
 * isRacy({ size: 1n, mtimeNs: 10n, ctimeNs: 10n, ino: 1n, mode: 0o100644n }, 10n, 0n); // true
 * ```
 */
export function isRacy(stamp: StatStamp, takenNs: bigint, marginNs: bigint = RACY_MARGIN_NS): boolean {
  const since = takenNs - marginNs;
  return stamp.mtimeNs >= since || stamp.ctimeNs >= since;
}

/**
 * Whether a recorded entry must be hashed again: no entry, a changed stamp, or a racy entry.
 *
 * @example
 * ```ts
 * needsHash(undefined, stamp); // true
 * ```
 */
export function needsHash(
  recorded: { readonly stamp: StatStamp; readonly takenNs: bigint } | undefined,
  now: StatStamp,
  marginNs: bigint = RACY_MARGIN_NS,
): boolean {
  if (recorded === undefined) return true;
  if (stampChanged(recorded.stamp, now)) return true;
  return isRacy(recorded.stamp, recorded.takenNs, marginNs);
}
