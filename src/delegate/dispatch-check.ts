/**
 * The dispatch a delegation starts from (layer 1, pure): validated, copied and deep-frozen, so
 * neither the host nor the worker can change the record custody is checked against; an invalid
 * one ends the delegation before anything runs.
 */
import { deepFreeze } from '../canonical/index.js';
import { type Dispatch, protocolErrorHandoff, validateDispatch } from '../contract/index.js';
import type { CheckResult } from './settle-rules.js';

/**
 * The validated dispatch, or the refusal that ends the delegation.
 *
 * @example
 * ```ts
 * const c: DispatchCheck = checkDispatchRecord(dispatch); if (c.ok) c.dispatch.owned_files;
 * ```
 */
export type DispatchCheck =
  | { readonly ok: true; readonly dispatch: Dispatch }
  | { readonly ok: false; readonly result: CheckResult };

/**
 * Validates `dispatch` (run-contract/v1) into a deep-frozen copy; an invalid record is refused
 * with a protocol-error handoff that echoes what it can (`protocolErrorHandoff`) and a `dispatch`
 * violation naming the first issues.
 *
 * @example
 * ```ts
 * const c = checkDispatchRecord(dispatch);
 * if (!c.ok) return c.result; // { outcome: 'refused', violations: [{ check: 'dispatch', … }], … }
 * ```
 */
export function checkDispatchRecord(dispatch: unknown): DispatchCheck {
  const v = validateDispatch(dispatch);
  if (v.ok) return { ok: true, dispatch: deepFreeze(v.value) };
  const issues = v.issues
    .slice(0, 3)
    .map((i) => `${i.path || '(root)'}: ${i.message}`)
    .join('; ');
  const detail = `invalid dispatch record: ${issues}`;
  return {
    ok: false,
    result: {
      outcome: 'refused',
      handoff: protocolErrorHandoff(dispatch, detail),
      violations: [{ check: 'dispatch', detail }],
    },
  };
}
