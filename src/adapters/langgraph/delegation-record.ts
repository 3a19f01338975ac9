/**
 * The delegation record a {@link delegateNode} writes into LangGraph state (layer 1, pure): the
 * outcome of one checked handoff, the verdict a conditional edge routes on, and the reader that
 * re-derives that verdict from the record instead of trusting it.
 */

import { type Handoff, OPERATIONAL_STOP_REASONS, validateHandoff } from '../../contract/index.js';
import type { RelaunchVerdict } from '../../delegate/can-relaunch.js';
import { detachAnswer } from '../../delegate/detach.js';
import type { DelegateOutcome } from '../../delegate/settle-rules.js';
import { DELEGATE_CHECKS, type DelegateViolation } from '../../delegate/violations.js';

/**
 * Every verdict a delegation node can end with, in routing order:
 * - `solved` — the worker's handoff passed every check and says `solved`;
 * - `stuck` — it passed every check and says `stuck` (an honest blocker);
 * - `stopped` — it passed every check and is a budget or user stop of the worker's own;
 * - `refused` — a check refused the answer (custody, schema, task echo, baseline…): the handoff
 *   is the runtime's protocol-error stop and the owned files were put back;
 * - `failed` — the worker gave no answer to check (it threw, timed out, was aborted, or stopped on
 *   an operational or protocol error of its own);
 * - `relaunch_forbidden` — the rerun guard refused to launch the worker again on the same task
 *   without new evidence; the worker did not run.
 *
 * @example
 * ```ts
 * DELEGATION_VERDICTS.includes('relaunch_forbidden'); // true
 * ```
 */
export const DELEGATION_VERDICTS = [
  'solved',
  'stuck',
  'stopped',
  'refused',
  'failed',
  'relaunch_forbidden',
] as const;

/**
 * One of {@link DELEGATION_VERDICTS}.
 *
 * @example
 * ```ts
 * const v: DelegationVerdict = 'stuck';
 * ```
 */
export type DelegationVerdict = (typeof DELEGATION_VERDICTS)[number];

/**
 * What a delegation node leaves in the graph state (deep-frozen): the verdict, the delegate
 * outcome, the one validated handoff, the failed checks, the cite of the journaled handoff and,
 * when the rerun guard was asked, its answer.
 *
 * @example
 * ```ts
 * const r: DelegationRecord = state.delegation;
 * if (r.verdict === 'solved') console.log(r.cite, r.handoff?.files_changed);
 * ```
 */
export interface DelegationRecord {
  readonly verdict: DelegationVerdict;
  /** `delegate`'s outcome, or `not_run` when the rerun guard kept the worker from starting. */
  readonly outcome: DelegateOutcome | 'not_run';
  /** The validated run-contract/v1 handoff (the worker's when accepted, else the runtime's); null when not run. */
  readonly handoff: Handoff | null;
  readonly violations: readonly DelegateViolation[];
  /** `<run_id>#<seq>` of the journaled handoff, when the node has a store that recorded it. */
  readonly cite: string | null;
  /** The rerun guard's answer for this launch (null when the guard was not asked). */
  readonly relaunch: RelaunchVerdict | null;
}

/**
 * The verdict of a delegation's outcome and handoff.
 *
 * @example
 * ```ts
 * verdictOf('accepted', solvedHandoff); // 'solved'
 * verdictOf('refused', protocolStop); // 'refused'
 * ```
 */
export function verdictOf(outcome: DelegationRecord['outcome'], handoff: Handoff | null): DelegationVerdict {
  if (outcome === 'not_run') return 'relaunch_forbidden';
  if (outcome === 'refused') return 'refused';
  if (outcome === 'failed') return 'failed';
  if (handoff === null) return 'refused';
  return handoff.status;
}

const OUTCOMES: readonly string[] = ['accepted', 'refused', 'failed', 'not_run'];
const CHECKS: readonly string[] = DELEGATE_CHECKS;

function isViolation(v: unknown): v is DelegateViolation {
  if (typeof v !== 'object' || v === null) return false;
  const o = v as Record<string, unknown>;
  return typeof o.check === 'string' && CHECKS.includes(o.check) && typeof o.detail === 'string';
}

/**
 * Reads a value from graph state as a {@link DelegationRecord} and re-derives its verdict: the
 * value is read once into plain JSON, its handoff re-validated, and its stated verdict must be the
 * one its outcome and handoff give (an accepted outcome needs a handoff that is not a protocol or
 * operational stop, and no violation; a worker that did not run needs the guard's refusal).
 * Anything else — a missing record, a forged `verdict: 'solved'` over a refused outcome, a
 * handoff that is not a valid record — is `{ ok: false }`. Never throws.
 *
 * @example
 * ```ts
 * readDelegation({ verdict: 'solved', outcome: 'refused', handoff, violations: [], cite: null, relaunch: null });
 * // { ok: false, detail: "verdict 'solved' does not follow from outcome 'refused' …" }
 * ```
 */
export function readDelegation(
  value: unknown,
):
  | { readonly ok: true; readonly record: DelegationRecord }
  | { readonly ok: false; readonly detail: string } {
  if (value === null || value === undefined) return { ok: false, detail: 'no delegation in the state' };
  const d = detachAnswer(value);
  if (!d.ok) return { ok: false, detail: `the delegation is not plain data: ${d.detail}` };
  if (typeof d.value !== 'object' || d.value === null || Array.isArray(d.value))
    return { ok: false, detail: 'the delegation is not an object' };
  const o = d.value as Record<string, unknown>;
  if (typeof o.outcome !== 'string' || !OUTCOMES.includes(o.outcome))
    return { ok: false, detail: `unknown outcome ${JSON.stringify(o.outcome)}` };
  const outcome = o.outcome as DelegationRecord['outcome'];
  let handoff: Handoff | null = null;
  if (o.handoff !== null) {
    const v = validateHandoff(o.handoff);
    if (!v.ok) return { ok: false, detail: 'the handoff is not a valid run-contract/v1 record' };
    handoff = v.value;
  }
  if (!Array.isArray(o.violations) || !o.violations.every(isViolation))
    return { ok: false, detail: 'violations are not a list of delegate checks' };
  if (outcome === 'not_run' ? handoff !== null : handoff === null)
    return { ok: false, detail: `outcome '${outcome}' does not fit the handoff` };
  if (outcome === 'accepted' && o.violations.length > 0)
    return { ok: false, detail: 'an accepted handoff carries violations' };
  const stop = handoff?.stop_reason ?? null;
  if (outcome === 'accepted' && stop !== null && OPERATIONAL_STOP_REASONS.includes(stop))
    return { ok: false, detail: `an accepted handoff cannot end in ${stop}` };
  const verdict = verdictOf(outcome, handoff);
  if (o.verdict !== verdict)
    return {
      ok: false,
      detail: `verdict ${JSON.stringify(o.verdict)} does not follow from outcome '${outcome}' and the handoff ('${verdict}')`,
    };
  if (o.cite !== null && typeof o.cite !== 'string') return { ok: false, detail: 'cite is not a string' };
  const r = o.relaunch;
  if (r !== null && (typeof r !== 'object' || typeof (r as { allowed?: unknown }).allowed !== 'boolean'))
    return { ok: false, detail: 'relaunch is not a rerun-guard verdict' };
  if (outcome === 'not_run' && (r === null || (r as { allowed: boolean }).allowed))
    return { ok: false, detail: 'a launch the guard allowed was not run' };
  return {
    ok: true,
    record: {
      verdict,
      outcome,
      handoff,
      violations: o.violations as DelegateViolation[],
      cite: o.cite as string | null,
      relaunch: r as RelaunchVerdict | null,
    },
  };
}
