/**
 * run-persist-progress/v1 (layer 1, pure): the inline pass's report of its progress. Parent
 * knowledge, never journal history. The whole submission is validated before anything changes:
 * typed shapes, owned paths only, a baseline (required when files changed) covering exactly the
 * owned files, and no baseline entry advanced outside the reported changed set.
 */
import { z } from 'zod';
import { FileBaselineSchema } from '../baseline/schema.js';
import { canonicalJson } from '../canonical/index.js';
import { ArtifactSchema, CandidateSchema } from '../contract/handoff-schema.js';
import { validateHandoff } from '../contract/validate.js';
import type { ValidationIssue } from '../validation/index.js';
import { safeValidate } from '../validation/index.js';
import { absorbPart, type Knowledge, type KnowledgePart, operationalErrorHandoff } from './knowledge.js';

/** Schema id of a progress submission. */
export const PROGRESS_SCHEMA = 'run-persist-progress/v1';

/** The progress submission (exact keys; every member but `schema` optional). */
export const ProgressSchema = z.strictObject({
  schema: z.literal(PROGRESS_SCHEMA),
  files_changed: z.array(z.string()).optional(),
  file_baseline: FileBaselineSchema.optional(),
  attempted_tools: z.array(z.string()).optional(),
  best_candidates: z.array(CandidateSchema).optional(),
  artifacts: z.array(ArtifactSchema).optional(),
  evidence: z
    .strictObject({
      queries: z.array(z.string()).optional(),
      top_candidates: z.array(z.string()).optional(),
      attempts: z.array(z.strictObject({ snippet: z.string(), result: z.string() })).optional(),
      goal_delta: z.string().nullable().optional(),
      diagnostic_delta: z.string().nullable().optional(),
    })
    .optional(),
});
/** A progress submission. */
export type Progress = z.infer<typeof ProgressSchema>;

/** Validation outcome of a progress submission against the current knowledge. */
export type ProgressCheck =
  | { readonly ok: true; readonly part: KnowledgePart }
  | { readonly ok: false; readonly errors: readonly ValidationIssue[] };

/**
 * Validates a progress submission against the current custody.
 *
 * @example
 * ```ts
 * const r = checkProgress(payload, knowledge);
 * if (!r.ok) r.errors; // e.g. [{ code: 'progress_outside_ownership', … }]
 * ```
 */
export function checkProgress(input: unknown, k: Knowledge): ProgressCheck {
  const shape = safeValidate(ProgressSchema, input);
  if (!shape.ok) return { ok: false, errors: shape.issues };
  const p = shape.value;
  const errors: ValidationIssue[] = [];
  const owned = new Set(k.current.files_owned);
  const changed = p.files_changed ?? [];
  for (const f of changed) {
    if (!owned.has(f)) {
      errors.push({
        path: 'files_changed',
        code: 'progress_outside_ownership',
        message: `${f} is not an owned file`,
      });
    }
  }
  if (changed.length > 0 && p.file_baseline === undefined) {
    errors.push({
      path: 'file_baseline',
      code: 'baseline_required',
      message: 'files_changed needs the advanced file_baseline',
    });
  }
  if (p.file_baseline !== undefined) {
    const paths = new Set(p.file_baseline.files.map((f) => f.path));
    const exact = paths.size === owned.size && [...owned].every((o) => paths.has(o));
    if (!exact) {
      errors.push({
        path: 'file_baseline',
        code: 'baseline_not_owned_set',
        message: 'file_baseline must cover exactly the owned files',
      });
    } else {
      const prior = new Map(k.current.file_baseline.files.map((f) => [f.path, canonicalJson(f)]));
      const reported = new Set(changed);
      for (const f of p.file_baseline.files) {
        if (prior.get(f.path) !== canonicalJson(f) && !reported.has(f.path)) {
          errors.push({
            path: 'file_baseline',
            code: 'baseline_outside_reported_changes',
            message: `baseline advances ${f.path}, which files_changed does not report`,
          });
        }
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors };
  const part: KnowledgePart = {
    ...(p.files_changed === undefined ? {} : { files_changed: p.files_changed }),
    ...(p.file_baseline === undefined ? {} : { file_baseline: p.file_baseline }),
    ...(p.attempted_tools === undefined ? {} : { attempted_tools: p.attempted_tools }),
    ...(p.best_candidates === undefined ? {} : { best_candidates: p.best_candidates }),
    ...(p.artifacts === undefined ? {} : { artifacts: p.artifacts }),
    ...(p.evidence === undefined ? {} : { evidence: p.evidence }),
  };
  const fallback = validateHandoff(operationalErrorHandoff(absorbPart(k, part), 'progress check'));
  if (!fallback.ok || fallback.value.stop_reason !== 'operational-error') {
    return {
      ok: false,
      errors: [
        {
          path: '',
          code: 'fallback_invalid',
          message: 'the submission would make the fallback handoff invalid',
        },
      ],
    };
  }
  return { ok: true, part };
}
