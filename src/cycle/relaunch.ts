/**
 * The rerun guard applied to a relaunch inside a run (layer 1, pure): a target the run declared
 * stuck is dispatched again only with new evidence (src/contract `rerunGuard`).
 */
import { type RerunVerdict, rerunGuard } from '../contract/index.js';
import { targetTask } from './targets.js';
import type { CycleContext, TargetInfo } from './types.js';

/**
 * The rerun guard for dispatching `target`: null when the target has no declared blocker;
 * otherwise the verdict of {@link rerunGuard} for a dispatch carrying the prior blocker and the
 * evidence gathered since.
 *
 * @example
 * ```ts
 * relaunchVerdict(ctx, t)?.forbidden; // true: same task, same blocker, no new evidence
 * ```
 */
export function relaunchVerdict(
  ctx: Pick<CycleContext, 'options' | 'blocked' | 'evidenceFor'>,
  target: TargetInfo,
): RerunVerdict | null {
  const prior = ctx.blocked[target.id];
  if (prior === undefined) return null;
  return rerunGuard(
    {
      ...targetTask(ctx, target),
      prior_blocker: prior.blocker_signature,
      evidence_delta: [...(ctx.evidenceFor[target.id] ?? [])],
    },
    prior,
  );
}

/**
 * True when the rerun guard forbids dispatching the chosen target again: it was declared stuck,
 * the task is the same, the blocker is the same and no new evidence arrived.
 *
 * @example
 * ```ts
 * relaunchForbidden(ctx); // true for a blocked target without evidence
 * ```
 */
export function relaunchForbidden(
  c: Pick<CycleContext, 'options' | 'blocked' | 'evidenceFor' | 'current'>,
): boolean {
  return c.current !== null && relaunchVerdict(c, c.current)?.forbidden === true;
}
