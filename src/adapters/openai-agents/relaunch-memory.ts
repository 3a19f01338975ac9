/**
 * The rerun guard across a tool's calls (layer 3, adapter): a model calls the same tool again and
 * again, so each tool keeps the last handoff of every task it ran and asks the run-contract rerun
 * guard (`canRelaunch`) before running a task again.
 */
import type { Dispatch, Handoff } from '../../contract/index.js';
import { canRelaunch, type RelaunchVerdict } from '../../delegate/can-relaunch.js';

/**
 * The last handoff per task (target, scope, mode) of one tool, in memory.
 *
 * @example
 * ```ts
 * const memory = createRelaunchMemory();
 * if (memory.verdict(dispatch).allowed) memory.remember((await delegate(dispatch, worker)).handoff);
 * ```
 */
export interface RelaunchMemory {
  /** The rerun guard's verdict on `next`, given the last handoff of its task (none: allowed). */
  verdict(next: Dispatch): RelaunchVerdict;
  /** Keeps `handoff` as its task's last handoff. */
  remember(handoff: Handoff): void;
}

function taskKey(t: Pick<Handoff, 'target' | 'scope' | 'mode'>): string {
  return JSON.stringify([t.target, t.scope, t.mode]);
}

/**
 * A fresh, empty {@link RelaunchMemory}.
 *
 * @example
 * ```ts
 * createRelaunchMemory().verdict(dispatch).allowed; // true: a first launch
 * ```
 */
export function createRelaunchMemory(): RelaunchMemory {
  const last = new Map<string, Handoff>();
  return {
    verdict: (next) => canRelaunch(next, last.get(taskKey(next)) ?? null),
    remember: (handoff) => {
      last.set(taskKey(handoff), handoff);
    },
  };
}
