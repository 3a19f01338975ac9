/**
 * Falsification inside the cycle (layer 1, pure; seed 002 § Stuck → Counterexample / Salvage):
 * when the stuck review flags falsification (autoprove) or the prove human declines the plan of
 * a stuck target and picks a policy, one `falsify` dispatch searches a witness and writes the
 * `<T>_counterexample` / `<T>_salvaged` artifacts (never `¬P` unless the policy is `negate`).
 */
import { workerInput } from './actor-inputs.js';
import type { CycleUpdate } from './context.js';
import { falsificationParameters, falsificationWanted } from './falsification.js';
import { withRoutedEvidence } from './review-routing.js';
import type { CycleContext, HumanInput, HumanOutput, WorkerInput } from './types.js';

/** The policies a prove human picks from (plus `skip` and `stop`). */
export const FALSIFICATION_OPTIONS = ['salvage', 'negate', 'skip', 'stop'] as const;

/**
 * True when a prove human declined the (re)plan of a stuck target that was not routed yet this
 * cycle and falsification is not off.
 *
 * @example
 * ```ts
 * declinedIntoFalsification(ctx, { now: 0, answer: 'decline', evidence: [] }); // true when stuck (prove)
 * ```
 */
export function declinedIntoFalsification(
  c: Pick<CycleContext, 'options' | 'stuck' | 'routed' | 'review' | 'current'>,
  out: HumanOutput,
): boolean {
  if (out.answer !== 'decline' || c.stuck === null || c.current === null) return false;
  if (c.routed.includes(c.stuck.target) || c.stuck.target !== c.current.id) return false;
  return falsificationWanted(c.options.mode, c.options.falsification, c.review, true);
}

/**
 * The prove human's falsification question: which policy for the stuck target.
 *
 * @example
 * ```ts
 * falsificationQuestion(ctx).options; // ['salvage', 'negate', 'skip', 'stop']
 * ```
 */
export function falsificationQuestion(c: Pick<CycleContext, 'stuck'>): HumanInput {
  return {
    question: 'falsification',
    options: [...FALSIFICATION_OPTIONS],
    summary: `${c.stuck?.target ?? 'the target'} is stuck and the plan was declined — search a counterexample?`,
  };
}

/**
 * True when the human picked a falsification policy (`salvage` or `negate`).
 *
 * @example
 * ```ts
 * pickedFalsification({ now: 0, answer: 'negate', evidence: [] }); // true
 * ```
 */
export function pickedFalsification(out: HumanOutput): boolean {
  return out.answer === 'salvage' || out.answer === 'negate';
}

/**
 * Starts falsification on the current target with `policy` (the human's answer in prove, the
 * configured policy in autoprove), routing it once for this cycle. Like a routed deep or repair
 * pass it starts from the bytes a deep rollback of this cycle restored, so its own verified
 * artifacts are staged (the rolled-back marks are cleared).
 *
 * @example
 * ```ts
 * startFalsify(ctx, { policy: 'salvage' }).falsifyPolicy; // 'salvage'
 * ```
 */
export function startFalsify(
  c: Pick<
    CycleContext,
    | 'current'
    | 'routed'
    | 'options'
    | 'committedThisCycle'
    | 'accepted'
    | 'rolledBack'
    | 'review'
    | 'evidenceFor'
    | 'log'
  >,
  p: { readonly policy: string | null },
): CycleUpdate {
  const t = c.current;
  if (t === null) return {};
  const policy = p.policy === 'negate' || p.policy === 'salvage' ? p.policy : c.options.falsification;
  return {
    falsifyPolicy: policy,
    routed: c.routed.includes(t.id) ? c.routed : [...c.routed, t.id],
    accepted: c.committedThisCycle ? [] : c.accepted,
    // the pass starts from the bytes a deep rollback restored: its verified artifacts are staged
    ...(c.rolledBack.length > 0 ? { rolledBack: [] } : {}),
    log: [...c.log, `falsify: ${t.id} — witness search (${policy})`],
  };
}

/**
 * The falsify worker's input: `role: 'falsify'` with the policy, the artifact names and whether
 * the negation may be proved in `parameters`.
 *
 * @example
 * ```ts
 * falsifyWorkerInput(ctx).parameters; // { falsification: { policy: 'salvage', … } }
 * ```
 */
export function falsifyWorkerInput(c: CycleContext): WorkerInput {
  const base = withRoutedEvidence(c, workerInput(c), 'falsify');
  return {
    ...base,
    role: 'falsify',
    parameters: falsificationParameters(c.falsifyPolicy ?? c.options.falsification, base.target),
  };
}
