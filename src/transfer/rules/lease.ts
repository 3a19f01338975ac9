/**
 * Lease arithmetic (layer 1, pure, clock injected): an authority lease of `seconds` from `nowMs`,
 * and whether it is live at a given instant.
 */
import type { Lease } from '../decision-schema.js';

/**
 * The lease `holder` gets at `nowMs` (epoch milliseconds) for `seconds`.
 *
 * @example
 * ```ts
 * leaseFor('billing', Date.parse('2026-01-01T00:00:00Z'), 600);
 * // { holder: 'billing', granted_at: '2026-01-01T00:00:00.000Z', expires_at: '2026-01-01T00:10:00.000Z' }
 * ```
 */
export function leaseFor(holder: string, nowMs: number, seconds: number): Lease {
  return {
    holder,
    granted_at: new Date(nowMs).toISOString(),
    expires_at: new Date(nowMs + seconds * 1000).toISOString(),
  };
}

/**
 * True while `lease` is live at `nowMs`: granted at or before it, and `nowMs` strictly before
 * `expires_at` (at the expiry instant the lease no longer acts). A null lease is never live.
 *
 * @example
 * ```ts
 * leaseLive(lease, Date.parse(lease.expires_at) - 1); // true
 * leaseLive(lease, Date.parse(lease.expires_at)); // false
 * ```
 */
export function leaseLive(lease: Lease | null, nowMs: number): boolean {
  if (lease === null) return false;
  return nowMs < Date.parse(lease.expires_at);
}
