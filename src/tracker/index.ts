/**
 * Cycle budgets: the pure counter logic (init, tick, can-deep, knowledge-search budget, claims,
 * status) and the atomic session-file persistence used by `handoff tracker`.
 */
export type {
  ClaimResult,
  DeepDenial,
  InitResult,
  Permission,
  SearchDenial,
  StatusPairs,
  TickResult,
  TrackerInitOptions,
  TrackerViolation,
} from './counters.js';
export {
  canDeep,
  canDeepPairs,
  elapsedSeconds,
  formatPairs,
  initTracker,
  kwSearchCan,
  kwSearchCanPairs,
  kwSearchRemaining,
  recordDeep,
  recordKwSearch,
  resetClaim,
  startClaim,
  TRACKER_DEFAULTS,
  tick,
  tickPairs,
  trackerStatus,
} from './counters.js';
export { elapsedDisplay, parseDuration } from './duration.js';
export type { TrackerLimits, TrackerState } from './schema.js';
export { TRACKER_SCHEMA, TrackerLimitsSchema, TrackerStateSchema } from './schema.js';
export {
  deleteSession,
  ENV_FILE_ENV,
  loadSession,
  newSessionId,
  persistEnvLine,
  SESSION_DIR_ENV,
  SESSION_ID_ENV,
  saveSession,
  sessionDir,
  sessionPath,
  unpersistEnvLine,
  writeFileAtomic,
} from './session-file.js';
