/**
 * Target choice (layer 1, pure): the trivial-goal shortcut, the per-target task triple, and the
 * order in which a cycle picks its target.
 */
import type { CycleContext, TargetInfo } from './types.js';

const TRIVIAL = /^\s*(?:by\s+)?(?:rfl|simp|trivial|decide|norm_num|exact\s+\S+)\s*$/;

/**
 * True when a goal is obviously solvable (rfl, simp, exact with a known lemma): the planning
 * search is skipped and the cycle goes straight to work (the trivial-goal shortcut). A goal may
 * carry an explicit hint `-- trivial` or `hint: <tactic>`.
 *
 * @example
 * ```ts
 * isTrivialGoal('rfl'); // true
 * isTrivialGoal('theorem t : a + b = b + a := sorry'); // false
 * ```
 */
export function isTrivialGoal(goal: string): boolean {
  if (/--\s*trivial\b/.test(goal)) return true;
  const hint = /hint:\s*(.+)$/.exec(goal);
  return TRIVIAL.test(hint?.[1] ?? goal);
}

/**
 * The per-target task triple of a worker dispatch.
 *
 * @example
 * ```ts
 * targetTask(ctx, target); // { target: 'A.lean:2', scope: 'sorry', mode: 'autoprove' }
 * ```
 */
export function targetTask(ctx: Pick<CycleContext, 'options'>, t: TargetInfo) {
  return { target: t.id, scope: 'sorry' as const, mode: ctx.options.mode };
}

/**
 * Chooses the target of this cycle: plan order, targets without a declared blocker first, never
 * one the rerun guard already refused this cycle.
 *
 * @example
 * ```ts
 * pickTarget(ctx)?.id; // 'Demo.lean:7'
 * ```
 */
export function pickTarget(
  ctx: Pick<CycleContext, 'targets' | 'plan' | 'blocked' | 'refused'>,
): TargetInfo | null {
  const order = new Map(ctx.plan.map((s, i) => [s.target, i]));
  const open = ctx.targets.filter((t) => !ctx.refused.includes(t.id));
  const rank = (t: TargetInfo) =>
    (ctx.blocked[t.id] !== undefined ? 1_000_000 : 0) + (order.get(t.id) ?? 10_000);
  return (
    [...open].sort((a, b) => rank(a) - rank(b) || ctx.targets.indexOf(a) - ctx.targets.indexOf(b))[0] ?? null
  );
}
