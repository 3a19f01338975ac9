/**
 * The routing predicates of the cycle's transient states (layer 1, pure): whether planning is
 * skipped, whether a worker's result needs verifying, and whether the checkpoint is skipped. The
 * machine's named guards call these.
 */
import { currentCycle } from './context.js';
import { isTrivialGoal } from './targets.js';
import type { CycleContext } from './types.js';

/**
 * True when the cycle goes straight to work: the planner already ran this cycle,
 * `--planning=off`, or the trivial-goal shortcut applies to the chosen target.
 *
 * @example
 * ```ts
 * planningSkipped({ ...ctx, current: { id: 'A.lean:5', file: 'A.lean', line: 5, goal: 'hint: rfl' } }); // true
 * ```
 */
export function planningSkipped(
  c: Pick<CycleContext, 'plannedCycle' | 'tracker' | 'options' | 'current'>,
): boolean {
  return (
    c.plannedCycle === currentCycle(c) ||
    c.options.planning === 'off' ||
    (c.current !== null && isTrivialGoal(c.current.goal))
  );
}

/**
 * True when the last dispatch left nothing to verify: no target, no handoff, or a handoff that
 * changed no file and claims no solve. (A `solved` claim is verified even when it changed nothing.)
 *
 * @example
 * ```ts
 * nothingToVerify({ current: t, lastWork: stuckOutcomeWithoutChanges }); // true
 * ```
 */
export function nothingToVerify(c: Pick<CycleContext, 'current' | 'lastWork'>): boolean {
  return (
    c.current === null ||
    c.lastWork?.kind !== 'handoff' ||
    (c.lastWork.accepted.length === 0 && c.lastWork.handoff.status !== 'solved')
  );
}

/**
 * True when the checkpoint is skipped after a passing gate: `--no-checkpoint`, `--commit=never`,
 * or no file accepted this cycle.
 *
 * @example
 * ```ts
 * checkpointSkipped({ options: { ...options, commit: 'never' }, accepted: ['A.lean'] }); // true
 * ```
 */
export function checkpointSkipped(c: Pick<CycleContext, 'options' | 'accepted'>): boolean {
  return !c.options.checkpoint || c.options.commit === 'never' || c.accepted.length === 0;
}
