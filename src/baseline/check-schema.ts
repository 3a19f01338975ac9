/**
 * file-baseline-check/v1: the result record of comparing the current file system against a
 * file-baseline/v1 record — one status per checked entry, the entries left out by a selector, and
 * an overall result (`match`, `drift` or `error`).
 */
import type { z } from 'zod';
import { lazySchema } from '../validation/lazy-schema.js';

/** Schema id of a baseline check result. */
export const BASELINE_CHECK_SCHEMA = 'file-baseline-check/v1';

/**
 * Entry statuses, in the order in which {@link classifyEntry} decides them (`unchanged` appears
 * twice in that order: absent-and-absent, and same realpath with the same bytes).
 */
export const BASELINE_ENTRY_STATUSES = [
  'error',
  'deleted',
  'created',
  'retargeted',
  'modified',
  'unchanged',
] as const;

/** Overall results of a check: only `match` authorizes a mutation. */
export const BASELINE_CHECK_RESULTS = ['match', 'drift', 'error'] as const;

/** Status of one checked entry. */
export const BaselineEntryStatusSchema = lazySchema((z) => z.enum(BASELINE_ENTRY_STATUSES));

/** One checked entry: the stored path, its status and, for `error` and `retargeted`, a detail. */
export const BaselineCheckEntrySchema = lazySchema((z) =>
  z.strictObject({
    path: z.string().min(1),
    status: BaselineEntryStatusSchema,
    detail: z.string().optional(),
  }),
);

/** The file-baseline-check/v1 record; `result` must agree with the entries' statuses. */
export const BaselineCheckSchema = lazySchema((z) =>
  z
    .strictObject({
      schema: z.literal(BASELINE_CHECK_SCHEMA),
      result: z.enum(BASELINE_CHECK_RESULTS),
      entries: z.array(BaselineCheckEntrySchema),
      unchecked: z.array(z.string().min(1)),
    })
    .superRefine((c, ctx) => {
      const statuses = new Set(c.entries.map((e) => e.status));
      const expected = statuses.has('error')
        ? 'error'
        : [...statuses].some((s) => s !== 'unchanged')
          ? 'drift'
          : 'match';
      if (c.result !== expected) {
        ctx.addIssue({
          code: 'custom',
          path: ['result'],
          message: `result ${c.result} disagrees with the entries (expected ${expected})`,
          params: { code: 'result_mismatch' },
        });
      }
    }),
);

/** Status of one checked entry. */
export type BaselineEntryStatus = z.infer<typeof BaselineEntryStatusSchema>;
/** Overall result of a check. */
export type BaselineCheckResult = (typeof BASELINE_CHECK_RESULTS)[number];
/** One entry of a check result. */
export type BaselineCheckEntry = z.infer<typeof BaselineCheckEntrySchema>;
/** A file-baseline-check/v1 record. */
export type BaselineCheck = z.infer<typeof BaselineCheckSchema>;
