/**
 * What follows the ordinary work pass on its target (layer 1, pure): repair mode (a trigger fired
 * and a patcher is provided), deep mode (`--deep` and the stuck verdict; `ask` asks the prove
 * human), or straight to the checkpoint. The machine's `work.escalate` routing state reads it.
 */
import { deepWanted } from './deep-rules.js';
import { repairTriggerFor } from './repair-reducers.js';
import type { CycleContext } from './types.js';

/** Where the work phase goes after the ordinary pass. */
export type Escalation = 'repair' | 'deep' | 'ask-deep' | 'none';

/**
 * The escalation after the ordinary pass: `repair` when a repair trigger fires on the open target
 * and repair mode is available; else `deep` / `ask-deep` as {@link deepWanted} says (deep mode
 * available; `ask` only in prove); else `none` — also for a worker blocker that is not a proof blocker
 * (capability, operational, protocol, safety-guard, false-statement: not for repair or deep).
 *
 * @example
 * ```ts
 * escalation({ ...ctx, available: { deep: true, repair: false }, stuck: verdict }); // 'deep' (autoprove, --deep=stuck)
 * ```
 */
export function escalation(
  c: Pick<
    CycleContext,
    'current' | 'lastWork' | 'attempts' | 'available' | 'options' | 'stuck' | 'verifyErrors' | 'gateErrors'
  >,
): Escalation {
  const t = c.current;
  if (t === null || c.lastWork?.kind !== 'handoff') return 'none';
  const open = (c.attempts[t.id] ?? []).at(-1)?.solved !== true;
  if (!open) return 'none';
  // repair and deep work on proofs and compiler errors: a worker's capability, environment,
  // protocol, safety or false-statement blocker is not theirs to escalate (seed 002 § Repair
  // Mode: "only when compiler errors are the active blocker")
  const kind = c.lastWork.handoff.blocker_kind;
  if (kind !== null && kind !== 'proof') return 'none';
  if (c.available.repair && repairTriggerFor(c) !== null) return 'repair';
  if (!c.available.deep) return 'none';
  const stuck = c.stuck !== null && c.stuck.target === t.id ? c.stuck : null;
  const w = deepWanted(c.options, stuck, open);
  if (w === 'deep') return 'deep';
  if (w === 'ask' && c.options.mode === 'prove') return 'ask-deep';
  return 'none';
}

/**
 * The human's question for `--deep=ask` (prove): enter deep mode on the stuck target?
 *
 * @example
 * ```ts
 * approveDeepQuestion(ctx).options; // ['deep', 'skip', 'stop']
 * ```
 */
export function approveDeepQuestion(c: Pick<CycleContext, 'current' | 'stuck'>) {
  return {
    question: 'approve-deep' as const,
    options: ['deep', 'skip', 'stop'],
    summary: `${c.current?.id ?? 'the target'} is stuck${c.stuck ? `: ${c.stuck.detail}` : ''} — enter deep mode?`,
  };
}
