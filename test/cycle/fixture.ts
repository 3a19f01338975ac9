/**
 * A small cycle context for the reducer and actor-input tests: one owned file, one open target,
 * autoprove defaults, a fresh tracker at time 0.
 */
import type { FileBaseline } from '../../src/baseline/schema.js';
import { emptyEvidence, type Handoff } from '../../src/contract/index.js';
import { initialCycleContext } from '../../src/cycle/context.js';
import type { CycleContext, CycleInput, TargetInfo, WorkOutcome } from '../../src/cycle/types.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { initTracker } from '../../src/tracker/counters.js';

export const FILE = '/p/A.lean';
export const BASELINE: FileBaseline = {
  schema: 'file-baseline/v1',
  files: [{ path: FILE, realpath: FILE, exists: true, sha256: 'a'.repeat(64), size: 3 }],
};
export const T1: TargetInfo = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'sorry' };

/** A cycle input with autoprove defaults, overridable by flags (`inline`: an inline fallback exists). */
export function cycleInput(flags: Record<string, unknown> = {}, inline = false): CycleInput {
  const r = resolveCycleOptions({
    target: '.',
    scope: 'project',
    mode: 'autoprove',
    maxCycles: 3,
    maxStuck: 2,
    ...flags,
  });
  if (!r.ok) throw new Error(r.error);
  const t = initTracker({ maxCycles: 3, maxStuck: 2 }, 's', 0);
  if (!t.ok) throw new Error(t.error);
  return {
    options: { ...r.options, inlineFallback: inline },
    warnings: r.warnings,
    tracker: t.state,
    startedAt: 0,
    filesOwned: [FILE],
    baseline: BASELINE,
    priorHandoff: null,
  };
}

/** The initial context of {@link cycleInput}, with T1 open and chosen, and any overrides. */
export function cycleContext(
  over: Partial<CycleContext> = {},
  flags: Record<string, unknown> = {},
): CycleContext {
  return { ...initialCycleContext(cycleInput(flags)), targets: [T1], lastCount: 1, current: T1, ...over };
}

/** A worker handoff for T1. */
export function workerHandoff(status: 'solved' | 'stuck', over: Partial<Handoff> = {}): Handoff {
  const stuck = status === 'stuck';
  return {
    schema: 'run-contract/v1',
    record: 'handoff',
    target: T1.id,
    scope: 'sorry',
    mode: 'autoprove',
    status,
    stop_reason: null,
    stop_detail: null,
    blocker_kind: stuck ? 'proof' : null,
    blocker_class: stuck ? 'arithmetic' : null,
    blocker_signature: stuck ? 'A.lean:2:omega failed' : null,
    attempted_tools: ['t'],
    best_candidates: [],
    failed_avenues: stuck ? ['omega failed'] : [],
    evidence: emptyEvidence(),
    files_owned: [FILE],
    files_changed: stuck ? [] : [FILE],
    file_baseline: BASELINE,
    artifacts: [],
    next_action: stuck ? 'stop' : 'continue',
    new_evidence_required_for_rerun: stuck ? 'a lemma' : null,
    ...over,
  };
}

/** A `handoff` work outcome carrying `handoff`. */
export function handoffOutcome(
  handoff: Handoff,
  over: Partial<WorkOutcome & { kind: 'handoff' }> = {},
): WorkOutcome {
  return {
    kind: 'handoff',
    now: 0,
    dispatch: {
      schema: 'run-contract/v1',
      record: 'dispatch',
      target: T1.id,
      scope: 'sorry',
      mode: 'autoprove',
    } as never,
    handoff,
    accepted: handoff.files_changed,
    baseline: BASELINE,
    progressLines: 0,
    importsChanged: false,
    ...over,
  };
}
