/**
 * The dispatch record of a delegation (layer 1, pure): what `createDispatch` fills in around the
 * caller's task — an inline pass by default, an empty-but-complete context, an unbounded budget.
 */
import type { FileBaseline } from '../baseline/index.js';
import { emptyContext } from '../contract/dispatch-schema.js';
import type { Budget, Dispatch, DispatchContext, Mode, Scope, WorkerKind } from '../contract/index.js';

/**
 * The task of {@link dispatchRecord} and `createDispatch`.
 *
 * @example
 * ```ts
 * const input: CreateDispatchInput = { target: 'src/a.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/a.ts'] };
 * ```
 */
export interface CreateDispatchInput {
  /** What the worker works on (`src/greeting.ts:3`, a test name, a ticket id). */
  readonly target: string;
  /** The task's scope (run-contract/v1: `sorry`, `deps`, `file`, `changed`, `project`). */
  readonly scope: Scope;
  /** The task's mode (run-contract/v1: `prove`, `autoprove`, `golf`). */
  readonly mode: Mode;
  /**
   * The files the worker may change (relative paths resolve against `cwd`). Each must be a regular
   * file, or absent and listed in `createFiles`, in a folder that exists; they are recorded in the
   * dispatch's file baseline.
   */
  readonly ownedFiles: readonly string[];
  /** The worker kind (default `null`: an inline pass, whose `parameters` are `{}`). */
  readonly worker?: WorkerKind | null;
  /** The worker kind's parameters (default `{}`). */
  readonly parameters?: Readonly<Record<string, unknown>>;
  /** Capabilities granted to the worker (default none), e.g. `search-budget:2`. */
  readonly capabilities?: readonly string[];
  /** Budget members (default: all null, unbounded). */
  readonly budget?: Partial<Budget>;
  /** Context members (default: empty lists, nulls, `scratch_location` the OS temp directory). */
  readonly context?: Partial<DispatchContext>;
  /** The blocker signature this launch addresses (a relaunch after a stuck handoff). */
  readonly priorBlocker?: string | null;
  /** What is new since the prior attempt (the rerun guard reads it). */
  readonly evidenceDelta?: readonly string[];
  /** Directory relative owned paths resolve against (default `process.cwd()`). */
  readonly cwd?: string;
  /**
   * Owned files the worker is to create (each also in `ownedFiles`). Any other owned file that does
   * not exist is refused: a typo would otherwise surface later as the worker's ENOENT. Not part of
   * the record: the baseline records such a file as absent (`exists: false`).
   */
  readonly createFiles?: readonly string[];
}

/**
 * The run-contract/v1 dispatch for `input`, with the canonical owned paths and their fresh
 * baseline; `scratch` is the default `scratch_location`. Not validated here (`createDispatch`
 * validates).
 *
 * @example
 * ```ts
 * dispatchRecord({ target: 'a.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['a.ts'] }, ['/r/a.ts'], baseline, '/tmp');
 * ```
 */
export function dispatchRecord(
  input: CreateDispatchInput,
  owned: readonly string[],
  baseline: FileBaseline,
  scratch: string,
): Dispatch {
  return {
    schema: 'run-contract/v1',
    record: 'dispatch',
    target: input.target,
    scope: input.scope,
    mode: input.mode,
    worker: input.worker ?? null,
    parameters: { ...(input.parameters ?? {}) },
    capabilities: [...(input.capabilities ?? [])],
    owned_files: [...owned],
    file_baseline: baseline,
    prior_blocker: input.priorBlocker ?? null,
    evidence_delta: [...(input.evidenceDelta ?? [])],
    budget: { max_cycles: null, max_stuck_cycles: null, runtime: null, ...(input.budget ?? {}) },
    context: { ...emptyContext(scratch), ...(input.context ?? {}) },
  };
}
