/**
 * Builds the run-contract/v1 dispatches (pure): one worker task, and the run-level first dispatch
 * of a prior-run reuse.
 */
import type { FileBaseline } from '../baseline/schema.js';
import { emptyContext } from '../contract/dispatch-schema.js';
import type { Dispatch } from '../contract/index.js';
import type { CycleOptions, WorkerInput } from '../cycle/types.js';

/**
 * The dispatch for `input`: per-target task (`file:line`, scope `sorry`), an inline pass
 * (`worker: null`, parameters `{}`), the owned file with its fresh baseline, the prior blocker and
 * evidence delta for a relaunch, the budget and a complete context (never omitted members).
 *
 * @example
 * ```ts
 * const d = buildDispatch(input, ['/repo/A.lean'], baseline, '/tmp/scratch');
 * ```
 */
export function buildDispatch(
  input: WorkerInput,
  owned: readonly string[],
  baseline: FileBaseline,
  scratch: string,
  capabilities: readonly string[] = ['marker-diagnostics'],
): Dispatch {
  return {
    schema: 'run-contract/v1',
    record: 'dispatch',
    target: input.target.id,
    scope: 'sorry',
    mode: input.mode,
    worker: null,
    parameters: {},
    capabilities: [...capabilities],
    owned_files: [...owned],
    file_baseline: baseline,
    prior_blocker: input.priorBlocker,
    evidence_delta: [...input.evidenceDelta],
    budget: { ...input.budget },
    context: {
      ...emptyContext(scratch),
      prior_failure: input.priorFailure,
      goal_state: input.target.goal === '' ? null : input.target.goal,
      search_results: input.searchResults.map((s) => ({ tool: s.tool, query: s.query, top: [...s.top] })),
    },
  };
}

/** What {@link buildRunDispatch} needs: the run's task, custody and the carried blocker. */
export interface RunDispatchInput {
  readonly options: Pick<CycleOptions, 'target' | 'scope' | 'mode' | 'maxCycles' | 'maxStuck' | 'maxRuntime'>;
  readonly owned: readonly string[];
  readonly baseline: FileBaseline;
  readonly priorBlocker: string | null;
  readonly evidenceDelta: readonly string[];
  readonly scratch: string;
  readonly capabilities?: readonly string[];
}

/**
 * The run-level dispatch of a prior-run reuse (pure): the parent's own task (the run's target,
 * scope and mode, `worker: null`) over the whole owned set with the fresh custody baseline,
 * carrying the prior blocker and the evidence offered for it. It is the first dispatch the
 * persistence controller's `start --prior-run` checks and records; per-target dispatches follow
 * as ordinary `dispatch` events.
 *
 * @example
 * ```ts
 * const d = buildRunDispatch({ options, owned, baseline: custody.fresh_baseline, priorBlocker, evidenceDelta: [], scratch });
 * ```
 */
export function buildRunDispatch(i: RunDispatchInput): Dispatch {
  return {
    schema: 'run-contract/v1',
    record: 'dispatch',
    target: i.options.target,
    scope: i.options.scope,
    mode: i.options.mode,
    worker: null,
    parameters: {},
    capabilities: [...(i.capabilities ?? ['marker-diagnostics'])],
    owned_files: [...i.owned],
    file_baseline: i.baseline,
    prior_blocker: i.priorBlocker,
    evidence_delta: [...i.evidenceDelta],
    budget: {
      max_cycles: i.options.maxCycles,
      max_stuck_cycles: i.options.maxStuck,
      runtime: i.options.maxRuntime === '' ? null : i.options.maxRuntime,
    },
    context: emptyContext(i.scratch),
  };
}
