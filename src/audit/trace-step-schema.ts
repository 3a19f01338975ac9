/**
 * One recorded machine transition as a journal that is not the run store keeps it (pure): the run
 * store's `TraceStep` (`{machine, from, event, to, guard?, actor?}`) as a zod schema, with bounds
 * so a planted line cannot grow an audit without limit. The chain file journal's commit lines and
 * the gate ledger's lines (fs and PostgreSQL) both read their steps through it.
 */
import { z } from 'zod';

/**
 * A recorded transition step (`to` is `''` for a targetless transition).
 *
 * @example
 * ```ts
 * TraceStepSchema.parse({ machine: 'chain', from: 'chain.ready', event: 'START', to: 'chain.running' });
 * ```
 */
export const TraceStepSchema = z.strictObject({
  machine: z.string().min(1).max(200),
  from: z.string().max(1000),
  event: z.string().max(1000),
  to: z.string().max(4000),
  guard: z.string().max(1000).optional(),
  actor: z.string().max(1000).optional(),
});
