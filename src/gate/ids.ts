/**
 * Content-derived ids of gate records (pure): the same content always yields the same id.
 */
import { digestOf } from '../canonical/index.js';

/**
 * Returns `<prefix>_<first 32 hex of the canonical digest of body>`.
 *
 * @example
 * ```ts
 * contentId('pkt', { a: 1 }); // 'pkt_…' (32 hex)
 * ```
 */
export function contentId(prefix: 'pkt' | 'asm' | 'rte' | 'grt', body: unknown): string {
  return `${prefix}_${digestOf(body).slice(0, 32)}`;
}

/**
 * The idempotency key of a continuation request: one per problem and frozen packet, so a
 * replayed event, a threshold change or a restart all map to the same stored grant.
 *
 * @example
 * ```ts
 * continuationKey('billing-17', 'pkt_…'); // 'continuation:billing-17:pkt_…'
 * ```
 */
export function continuationKey(problemId: string, packetId: string): string {
  return `continuation:${problemId}:${packetId}`;
}
