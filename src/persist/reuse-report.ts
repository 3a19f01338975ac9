/**
 * run-persist-reuse/v1 (the read-only reuse preview) and run-persist-custody/v1 (layer 0).
 * Shape validation of a report handed back to `custody` / `start --prior-run`; a report failing
 * it is `bad_reuse_report`. The historical material is rebuilt from the prior run at use, never
 * taken from the report.
 */
import { z } from 'zod';
import { FileBaselineSchema } from '../baseline/schema.js';
import { CarrySchema, HistoricalSchema } from './source-note.js';

/** Schema id of the preview. */
export const REUSE_SCHEMA = 'run-persist-reuse/v1';
/** Schema id of the custody result. */
export const CUSTODY_SCHEMA = 'run-persist-custody/v1';

const DriftEntrySchema = z.strictObject({
  path: z.string(),
  prior_status: z.string(),
  detail: z.string().nullable(),
  origin: z.string().nullable(),
  exists: z.boolean(),
  realpath: z.string(),
  sha256: z.string().nullable(),
  size: z.number().int().nullable(),
});

/** The reuse preview. */
export const ReuseReportSchema = z.strictObject({
  schema: z.literal(REUSE_SCHEMA),
  prior_run: z.string(),
  observed_seq: z.number().int().min(0),
  prefix_digest: z.string().regex(/^[0-9a-f]{64}$/),
  invocation: z.strictObject({
    project_root: z.string(),
    target: z.string(),
    scope: z.string(),
    mode: z.string(),
    owned_files: z.array(z.string()),
  }),
  selection: z.strictObject({
    dispatch_cite: z.string(),
    handoff_cite: z.string().nullable(),
    handoff_finality: z.literal('unknown'),
    guard_evaluable: z.boolean(),
    baseline_origins: z.array(z.strictObject({ path: z.string(), origin: z.string() })),
  }),
  carry: CarrySchema,
  historical: HistoricalSchema,
  drift: z.strictObject({
    result: z.enum(['match', 'drift', 'uncovered', 'error']),
    entries: z.array(DriftEntrySchema),
    uncovered: z.array(z.string()),
    current_baseline: FileBaselineSchema,
    approval_token: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  note: z.string(),
});
/** A reuse preview. */
export type ReuseReport = z.infer<typeof ReuseReportSchema>;

/** The custody result. */
export interface CustodyResult {
  readonly schema: typeof CUSTODY_SCHEMA;
  readonly result: 'match' | 'drift' | 'uncovered' | 'error';
  readonly uncovered: readonly string[];
  readonly fresh_baseline: z.infer<typeof FileBaselineSchema>;
  readonly approval_token: string;
}
