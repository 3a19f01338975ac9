/**
 * The gate machine's transition trace as a ledger line carries it (pure): the steps the gate
 * machine took since the run's previous ledger entry, and whether this entry is the first of a
 * run (`start`: the steps begin at the machine's initial state). An optional `trace` key of a
 * `gate-ledger-line/v1` body (ledger-line.ts); the ledger events themselves are unchanged.
 */
import { z } from 'zod';
import { TraceStepSchema } from '../audit/trace-step-schema.js';
import type { TraceStep } from '../store/store-types.js';

/**
 * One recorded machine transition: the audit's {@link TraceStepSchema} (the run store's
 * `TraceStep` as zod, bounded), under the gate's name.
 *
 * @example
 * ```ts
 * GateTraceStepSchema.safeParse({ machine: 'gate', from: 'gate.idle', event: 'START', to: 'gate.reserving' }).success;
 * ```
 */
export const GateTraceStepSchema = TraceStepSchema;

/** The trace a ledger line carries. */
export const LedgerTraceSchema = z.strictObject({
  /** True on the first entry a gate run wrote: replay starts from the machine's initial state. */
  start: z.boolean(),
  /** The transitions since the run's previous entry, in order (possibly none). */
  steps: z.array(GateTraceStepSchema).max(100_000),
});

/** The trace a ledger line carries ({@link LedgerTraceSchema}; steps are the run store's `TraceStep`). */
export interface LedgerTrace {
  readonly start: boolean;
  readonly steps: readonly TraceStep[];
}

/**
 * Where a traced ledger takes the steps since its previous entry from (the audit's
 * `createTraceCollector()` is one).
 *
 * @example
 * ```ts
 * const source: TraceSource = createTraceCollector({ machines: ['gate'] });
 * const traced = ledger.traced?.(source);
 * ```
 */
export interface TraceSource {
  /** The steps recorded since the previous call, in order; the source keeps none of them. */
  take(): readonly TraceStep[];
}

/**
 * A ledger entry's trace and the entry's seq.
 *
 * @example
 * ```ts
 * const t: TracedEntry = { seq: 3, trace: { start: true, steps: [] } };
 * ```
 */
export interface TracedEntry {
  readonly seq: number;
  readonly trace: LedgerTrace;
}

/**
 * What a backend reads back for an audit: the number of entries of a problem's ledger and the
 * traces its entries carry, in seq order (entries without a trace are left out).
 *
 * @example
 * ```ts
 * const r: LedgerTraces = { entries: 4, traced: [{ seq: 1, trace: { start: true, steps: [] } }] };
 * auditLedgerTrace('billing-17', r.entries, r.traced, graphs);
 * ```
 */
export interface LedgerTraces {
  readonly entries: number;
  readonly traced: TracedEntry[];
}

/**
 * A ledger backend that can read its traces back (the fs log, the PostgreSQL log): what
 * `handoff audit` needs, whatever the backend.
 *
 * @example
 * ```ts
 * const source: LedgerTraceReader = fsLedgerLog(dir); // or pgLedgerLog({ connectionString })
 * const r = await source.readTraces('billing-17'); // null without history
 * ```
 */
export interface LedgerTraceReader {
  /**
   * The traces a problem's winning entries carry (read afresh, validated: a damaged entry or
   * trace is `ledger_damaged`), with the number of entries; null without history.
   */
  readTraces(problemId: string): Promise<LedgerTraces | null>;
}
