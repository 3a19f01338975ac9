/**
 * sha256 digests and short fingerprints over bytes, strings and canonical JSON.
 */
import { createHash } from 'node:crypto';
import { canonicalJson } from './canonical-json.js';

/**
 * Lower-case hex sha256 of bytes or a UTF-8 string.
 *
 * @example
 * ```ts
 * sha256Hex('abc'); // 'ba7816bf…'
 * ```
 */
export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * sha256 hex of the canonical JSON of `value`.
 *
 * @example
 * ```ts
 * digestOf({ a: 1 }) === digestOf({ a: 1 }); // true
 * ```
 * @throws HandoffError `canonical_unsupported` (see canonicalJson).
 */
export function digestOf(value: unknown): string {
  return sha256Hex(canonicalJson(value));
}

/**
 * 16-hex fingerprint: the first 16 hex characters of {@link digestOf}.
 *
 * @example
 * ```ts
 * fingerprintOf({ a: 1 }).length; // 16
 * ```
 */
export function fingerprintOf(value: unknown): string {
  return digestOf(value).slice(0, 16);
}
