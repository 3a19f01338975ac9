/**
 * Builds the run-contract/v1 dispatch of one worker task (pure).
 */
import type { FileBaseline } from '../baseline/schema.js';
import type { Dispatch } from '../contract/index.js';
import type { WorkerInput } from './cycle-types.js';

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
      prior_failure: input.priorFailure,
      goal_state: input.target.goal === '' ? null : input.target.goal,
      diagnostics: [],
      search_results: input.searchResults.map((s) => ({ tool: s.tool, query: s.query, top: [...s.top] })),
      candidates_tested: [],
      code_actions: [],
      scratch_location: scratch,
    },
  };
}
