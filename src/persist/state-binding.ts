/**
 * Which invocation state a verb after start may act on (layer 1, pure): no state is a usage error
 * (run start first); a state that exists but cannot be read or fails its schema stops the run
 * (the run may be half-way, so the command must stop, not fix its flags); a root named on the
 * call other than the one the state is bound to is refused.
 */
import { operationalErrorHandoff } from './knowledge.js';
import { type PersistResult, persistResult } from './result.js';
import type { PersistState } from './state-schema.js';

/** Why the state file could not be used (as `readState` reports it). */
export interface StateReadFailure {
  readonly reason: 'missing' | 'unreadable' | 'invalid';
  readonly detail: string;
}

/** The warning of an unreadable state. */
export const STATE_UNREADABLE_WARNING =
  'the invocation state cannot be read; retire this invocation and do not call the helper again';

/**
 * The result when the state file could not be used: `usage` (`no_state`) when it is missing,
 * else a `stop` (`state_unreadable`) that nothing on disk can enforce.
 *
 * @example
 * ```ts
 * unusableStateResult('note', { reason: 'missing', detail: '…' }, '/tmp/s.json').code; // 'no_state'
 * ```
 */
export function unusableStateResult(verb: string, r: StateReadFailure, statePath: string): PersistResult {
  if (r.reason === 'missing') {
    return persistResult(verb, 'usage', {
      code: 'no_state',
      message: `no invocation state at ${statePath}: run start first`,
    });
  }
  return persistResult(verb, 'stop', {
    outcome: 'state_unreadable',
    message: r.detail,
    handoff: operationalErrorHandoff(null, `run-persist state unreadable: ${r.detail}`),
    terminal_enforced: false,
    warning: STATE_UNREADABLE_WARNING,
  });
}

/**
 * The `usage` refusal (`root_mismatch`) when the call names a storage root (already resolved to
 * an absolute path) other than the one the state is bound to; null when it may proceed.
 *
 * @example
 * ```ts
 * rootMismatch('note', state, '/elsewhere'); // { action: 'usage', code: 'root_mismatch', … } unless state.storage_root is /elsewhere
 * ```
 */
export function rootMismatch(
  verb: string,
  state: PersistState,
  requested: string | null,
): PersistResult | null {
  if (requested === null || requested === state.storage_root) return null;
  return persistResult(verb, 'usage', {
    code: 'root_mismatch',
    message: `this invocation is bound to storage root ${state.storage_root}; ${requested} refused`,
  });
}
