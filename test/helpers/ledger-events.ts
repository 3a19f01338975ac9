/**
 * Gate ledger events the ledger tests write by hand (test/gate/pg-ledger-trace; the same shapes
 * as test/gate/ledger-held): a problem's `registered` first entry and a `lead-handoff`, both at
 * the fixed time `T0`.
 */
import type { LedgerEvent } from '../../src/gate/index.js';
import { PROFILE, T0 } from '../gate/fixtures.js';

/**
 * The first entry of `problem_id`'s ledger: registered with the test profile at contract revision 1.
 *
 * @example
 * ```ts
 * expect(await log.append('p1', registeredEvent('p1'))).toBe(true);
 * ```
 */
export const registeredEvent = (problem_id: string): LedgerEvent => ({
  type: 'registered',
  seq: 1,
  at: T0,
  problem_id,
  profile: PROFILE,
  contract_revision: 1,
});

/**
 * The `lead-handoff` member of `LedgerEvent`.
 *
 * @example
 * ```ts
 * const e: LeadHandoffEvent = leadHandoffEvent(2);
 * e.route; // 'lead'
 * ```
 */
export type LeadHandoffEvent = Extract<LedgerEvent, { type: 'lead-handoff' }>;

/**
 * A `lead-handoff` entry at `seq` with no packet, routed to `route`.
 *
 * @example
 * ```ts
 * await log.append('p1', leadHandoffEvent(2)); // route 'lead'
 * ```
 */
export const leadHandoffEvent = (seq: number, route = 'lead'): LeadHandoffEvent => ({
  type: 'lead-handoff',
  seq,
  at: T0,
  packet_id: null,
  route,
});
