/**
 * Reducer of the review phase (layer 1, pure): a review's block, and for a stuck review the
 * parent-wrapped stuck handoff that the rerun guard is evaluated against from now on.
 */
import type { CycleUpdate } from './context.js';
import { wrapStuckHandoff } from './final-handoff.js';
import type { CycleContext, ReviewOutput } from './types.js';

/**
 * Absorbs a review. A stuck-mode review of a stuck verdict (this cycle's, else the last one) maps
 * its primary blocker into a complete handoff for the stuck target ({@link wrapStuckHandoff}),
 * which becomes the target's declared blocker.
 *
 * @example
 * ```ts
 * absorbReview(stuckCtx, stuckReview).blocked?.['A.lean:2']?.status; // 'stuck'
 * ```
 */
export function absorbReview(c: CycleContext, out: ReviewOutput): CycleUpdate {
  const base = { now: Math.max(c.now, out.now), review: out, reviews: c.reviews + 1 };
  const v = out.mode === 'stuck' ? (c.stuck ?? c.lastStuck) : null;
  if (v === null) return { ...base, log: [...c.log, `review: ${out.suggestions[0] ?? 'done'}`] };
  const wrapped = wrapStuckHandoff(c, v, out);
  return {
    ...base,
    stuckHandoff: wrapped,
    blocked: { ...c.blocked, [v.target]: wrapped },
    log: [
      ...c.log,
      `review (stuck): ${wrapped.blocker_class ?? wrapped.blocker_kind} — next_action ${wrapped.next_action}`,
    ],
  };
}
