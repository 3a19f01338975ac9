/**
 * cycle-tracker/v1: the session counters of the cycle tracker (limits, per-cycle, per-claim and
 * session-total counters). Structure only; the rules live in `counters.ts`.
 */
import { z } from 'zod';

/** Schema id of a tracker session state. */
export const TRACKER_SCHEMA = 'cycle-tracker/v1';

const count = z.number().int().min(0);
const positive = z.number().int().min(1);

/** Limits of a tracker session. `max_runtime_seconds` 0 = unlimited. */
export const TrackerLimitsSchema = z.strictObject({
  max_cycles: positive,
  max_stuck: positive,
  max_runtime_seconds: count,
  max_deep_per_cycle: positive,
  max_consecutive_deep: positive,
  max_knowledge_search_per_cycle: positive,
});

/** The whole session state (what the CLI persists atomically). */
export const TrackerStateSchema = z.strictObject({
  schema: z.literal(TRACKER_SCHEMA),
  session_id: z.string().regex(/^[A-Za-z0-9._-]{1,128}$/),
  limits: TrackerLimitsSchema,
  started_at_ms: z.number().int().min(0),
  claim_active: z.boolean(),
  cycles: count,
  consecutive_stuck: count,
  deep_this_cycle: count,
  deep_used_this_cycle: z.boolean(),
  consecutive_deep_cycles: count,
  kw_search_this_cycle: count,
  cycles_total: count,
  stuck_cycles_total: count,
  deep_total: count,
  kw_search_total: count,
  claims_attempted: count,
});

/** Tracker limits. */
export type TrackerLimits = z.infer<typeof TrackerLimitsSchema>;
/** Tracker session state. */
export type TrackerState = z.infer<typeof TrackerStateSchema>;
