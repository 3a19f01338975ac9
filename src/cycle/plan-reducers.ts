/**
 * Reducers of the plan phase (layer 1, pure): `(context, actor output) => context update`, applied
 * by the machine's `assign` actions. Open targets from diagnostics, the target choice, and the
 * planner's plan with its knowledge searches.
 */
import { kwSearchRemaining, recordKwSearch } from '../tracker/counters.js';
import { type CycleUpdate, currentCycle } from './context.js';
import { EMPTY_LEDGER, ledgerAfterPlan } from './search-budget.js';
import { pickTarget } from './targets.js';
import type { CycleContext, DiagnosticsOutput, PlannerOutput } from './types.js';

/**
 * Absorbs a `discover` answer: the open targets, the first count, the time of the last
 * decrease of the open-target count (the no-progress rule's clock), and its errors (a run they
 * keep from `solved` names the first).
 *
 * @example
 * ```ts
 * absorbDiagnostics(ctx, { now: 5, tier: 'file-fast', targets: [t], errors: [], ok: true }).lastCount; // 1
 * ```
 */
export function absorbDiagnostics(
  c: Pick<CycleContext, 'now' | 'lastCount' | 'initialCount' | 'lastDecreaseAt'>,
  out: DiagnosticsOutput,
): CycleUpdate {
  const count = out.targets.length;
  const decreased = c.lastCount !== null && count < c.lastCount;
  return {
    now: Math.max(c.now, out.now),
    targets: out.targets,
    initialCount: c.initialCount ?? count,
    lastDecreaseAt: decreased ? out.now : c.lastDecreaseAt,
    lastCount: count,
    discoveryErrors: out.errors,
  };
}

/**
 * Chooses the cycle's target ({@link pickTarget}); null when every open target was refused.
 *
 * @example
 * ```ts
 * chooseTarget(ctx).current?.id; // 'A.lean:2'
 * ```
 */
export function chooseTarget(c: Pick<CycleContext, 'targets' | 'plan' | 'blocked' | 'refused'>): CycleUpdate {
  return { current: pickTarget(c) };
}

/**
 * Absorbs a plan (or replan): its steps, the searches the tracker's knowledge-search budget
 * admits (each recorded; the rest dropped), the evidence it found per target, and the planning
 * searches in the current target's fallback ledger.
 *
 * @example
 * ```ts
 * absorbPlan(ctx, { now: 0, steps, searches: [s1, s2, s3, s4], evidence: {}, summary: 'p' }).searches?.length; // 3
 * ```
 */
export function absorbPlan(c: CycleContext, out: PlannerOutput): CycleUpdate {
  let tracker = c.tracker;
  const budget = kwSearchRemaining(tracker, out.now);
  const searches = out.searches.slice(0, budget);
  for (let i = 0; i < searches.length; i++) tracker = recordKwSearch(tracker);
  const evidenceFor = { ...c.evidenceFor };
  for (const [t, ev] of Object.entries(out.evidence)) {
    evidenceFor[t] = [...(evidenceFor[t] ?? []), ...ev];
  }
  // planning searches feed the fallback gate of the target being planned
  const id = c.current?.id;
  const searchLedgers =
    id === undefined
      ? c.searchLedgers
      : { ...c.searchLedgers, [id]: ledgerAfterPlan(c.searchLedgers[id] ?? EMPTY_LEDGER, searches) };
  return {
    now: Math.max(c.now, out.now),
    plan: out.steps,
    searches,
    tracker,
    evidenceFor,
    searchLedgers,
    plannedCycle: currentCycle(c),
    log: [...c.log, `plan: ${out.summary}`],
  };
}
