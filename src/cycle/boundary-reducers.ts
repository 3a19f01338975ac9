/**
 * Reducers of the cycle boundary (layer 1, pure): the tracker tick, a human's answer (with new
 * evidence for the stuck target), and the reset that starts the next cycle.
 */
import { tick } from '../tracker/counters.js';
import type { CycleUpdate } from './context.js';
import type { CycleContext, HumanOutput } from './types.js';

/**
 * Ticks the tracker at the boundary (stuck = this cycle declared a target stuck) and keeps the
 * limits it reports reached.
 *
 * @example
 * ```ts
 * tickTracker(ctx).limitViolations; // ['max-cycles'] on the last allowed cycle
 * ```
 */
export function tickTracker(c: Pick<CycleContext, 'tracker' | 'stuck' | 'now'>): CycleUpdate {
  const t = tick(c.tracker, c.stuck !== null, c.now);
  return { tracker: t.state, limitViolations: t.violations };
}

/**
 * Absorbs a human's answer.
 *
 * @example
 * ```ts
 * absorbHuman(ctx, { now: 3, answer: 'approve', evidence: [] }).humanAnswer?.answer; // 'approve'
 * ```
 */
export function absorbHuman(c: Pick<CycleContext, 'now'>, out: HumanOutput): CycleUpdate {
  return { humanAnswer: out, now: Math.max(c.now, out.now) };
}

/**
 * True when a human chose `continue-with-evidence` and gave some (non-blank) evidence.
 *
 * @example
 * ```ts
 * answeredWithEvidence({ now: 0, answer: 'continue-with-evidence', evidence: ['use: omega'] }); // true
 * ```
 */
export function answeredWithEvidence(out: HumanOutput): boolean {
  return out.answer === 'continue-with-evidence' && out.evidence.some((e) => e.trim() !== '');
}

/**
 * Absorbs `continue-with-evidence`: the evidence is added to the stuck target's (else the current
 * target's) relaunch evidence, which the rerun guard reads.
 *
 * @example
 * ```ts
 * absorbHumanEvidence(ctx, { now: 0, answer: 'continue-with-evidence', evidence: ['use: omega'] }).evidenceFor;
 * ```
 */
export function absorbHumanEvidence(
  c: Pick<CycleContext, 'stuckHandoff' | 'current' | 'now' | 'evidenceFor' | 'log'>,
  out: HumanOutput,
): CycleUpdate {
  const id = c.stuckHandoff?.target ?? c.current?.id;
  if (id === undefined || id === null) return { humanAnswer: out };
  return {
    humanAnswer: out,
    now: Math.max(c.now, out.now),
    evidenceFor: { ...c.evidenceFor, [id]: [...(c.evidenceFor[id] ?? []), ...out.evidence] },
    log: [...c.log, `human: new evidence for ${id}`],
  };
}

/**
 * The reset that starts the next cycle: no target, no stuck verdict, nothing accepted, refused,
 * reviewed or routed yet, no deep or repair in progress, a fresh repair ledger (its budgets are
 * per cycle).
 *
 * @example
 * ```ts
 * nextCycle().current; // null
 * ```
 */
export function nextCycle(): CycleUpdate {
  return {
    current: null,
    stuck: null,
    accepted: [],
    refused: [],
    committedThisCycle: false,
    review: null,
    lastWork: null,
    refutedEdits: [],
    rolledBack: [],
    deep: null,
    repair: null,
    repairLedger: { perSignature: {}, total: 0, noImprovement: {} },
    routed: [],
    falsifyPolicy: null,
  };
}

/**
 * Re-opens work on the current target after the cycle boundary (prove's review router sends the
 * stuck target to deep or repair mode): the per-cycle state of {@link nextCycle}, keeping the
 * target and the targets already routed.
 *
 * @example
 * ```ts
 * reopenCycle(ctx).current === ctx.current; // true
 * ```
 */
export function reopenCycle(c: Pick<CycleContext, 'current' | 'routed'>): CycleUpdate {
  return { ...nextCycle(), current: c.current, routed: c.routed };
}
