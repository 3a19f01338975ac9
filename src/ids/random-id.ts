/**
 * Random ids, drawn with nanoid (a cryptographically strong, unbiased draw from an alphabet): run
 * id suffixes, the runtime's run ids and tracker session ids, and the unique names of temp files
 * the runtime publishes itself. Where a test needs determinism the caller injects an
 * {@link IdSource} instead (`runIdSuffix` of the stores, …). Secrets (a worker session token) and
 * names node chooses (mkdtemp) are not ids of this kind.
 */
import { customAlphabet } from 'nanoid';

/** Lower-case hexadecimal digits: the alphabet of every id drawn here. */
export const HEX_ALPHABET = '0123456789abcdef';

/**
 * A source of ids: each call returns a fresh id.
 *
 * @example
 * ```ts
 * const fixed: IdSource = () => '0a1b2c3d';
 * ```
 */
export type IdSource = () => string;

/**
 * An {@link IdSource} of `size` random lower-case hex digits (nanoid's `customAlphabet`).
 *
 * @example
 * ```ts
 * const suffix = hexIdSource(8);
 * suffix(); // e.g. '3f9c0a7e'
 * ```
 */
export function hexIdSource(size: number): IdSource {
  return customAlphabet(HEX_ALPHABET, size);
}

const hex = customAlphabet(HEX_ALPHABET, 8);

/**
 * `size` (default 8) random lower-case hex digits: e.g. the unique part of a temp file's name.
 *
 * @example
 * ```ts
 * const tmp = `${path}.${randomHex()}.tmp`;
 * randomHex(16).length; // 16
 * ```
 */
export function randomHex(size = 8): string {
  return hex(size);
}
