/**
 * Contained child processes: how the runtime runs untrusted code (workers, evaluators, extractors,
 * command ports) — argument arrays, a process group, a session sweep, bounded output and time.
 */
export {
  type ContainedOptions,
  type ContainedResult,
  containedStarts,
  runContained,
} from './contained-process.js';
export { pendingReapers, reapOnExit } from './exit-reaper.js';
export { killUntilGone } from './kill-until-gone.js';
export { SESSION_ENV, sessionPids, sweepSession } from './session-sweep.js';
