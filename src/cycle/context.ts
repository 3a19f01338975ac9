/**
 * The cycle machine's context (layer 1, pure): the initial context of a run, built from its input
 * only (no clock, no ids), and the number of the cycle in progress.
 */
import type { Handoff } from '../contract/index.js';
import type { CycleContext, CycleInput } from './types.js';

/**
 * The initial context of a cycle run (no clock or ids are read: everything comes from `input`).
 * A prior handoff's blocker (prior-run reuse) is carried as the parent-wrapped stuck handoff of
 * its `file:line` target, with the evidence offered for its relaunch.
 *
 * @example
 * ```ts
 * const ctx = initialCycleContext(input);
 * ctx.current; // null — the plan phase picks the target
 * ```
 */
export function initialCycleContext(input: CycleInput): CycleContext {
  const blocked: Record<string, Handoff> = {};
  const evidenceFor: Record<string, readonly string[]> = {};
  const prior = input.priorHandoff;
  if (prior?.blocker_signature) {
    const m = /^(.*):(\d+):/.exec(prior.blocker_signature);
    if (m) {
      const id = `${m[1]}:${m[2]}`;
      blocked[id] = { ...prior, target: id, scope: 'sorry' };
      if (input.priorEvidence && input.priorEvidence.length > 0) evidenceFor[id] = [...input.priorEvidence];
    }
  }
  return {
    options: input.options,
    warnings: [...input.warnings],
    tracker: input.tracker,
    now: input.startedAt,
    limitViolations: [],
    targets: [],
    initialCount: null,
    lastCount: null,
    discoveryErrors: [],
    lastDecreaseAt: input.startedAt,
    plan: [],
    searches: [],
    current: null,
    attempts: {},
    blocked,
    evidenceFor,
    searchLedgers: {},
    refused: [],
    lastWork: null,
    handoffs: [],
    accepted: [],
    filesOwned: [...input.filesOwned],
    filesChanged: [],
    baseline: input.baseline,
    stuck: null,
    lastStuck: null,
    stuckHandoff: null,
    gateErrors: [],
    review: null,
    reviews: 0,
    checkpoints: [],
    committedThisCycle: false,
    delegation: 'delegate',
    humanAnswer: null,
    stopDetail: null,
    log: [],
    final: null,
    plannedCycle: 0,
    pendingStop: null,
    nextActionOverride: null,
    continuation: null,
    available: {
      deep: input.available?.deep ?? false,
      repair: input.available?.repair ?? false,
      restore: input.available?.restore ?? false,
    },
    restoredEdits: [],
    rolledBack: [],
    deep: null,
    repairLedger: { perSignature: {}, total: 0, noImprovement: {} },
    repairHistory: {},
    repair: null,
    routed: [],
    verifyErrors: {},
    falsifyPolicy: null,
  };
}

/**
 * The number of the cycle in progress: one more than the cycles the tracker has ticked.
 *
 * @example
 * ```ts
 * currentCycle(initialCycleContext(input)); // 1
 * ```
 */
export function currentCycle(c: Pick<CycleContext, 'tracker'>): number {
  return c.tracker.cycles + 1;
}

/** A change to the cycle context: what a reducer returns and the machine's `assign` applies. */
export type CycleUpdate = Partial<CycleContext>;
