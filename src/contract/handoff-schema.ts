/**
 * The run-contract/v1 handoff record (worker → parent/human) with every conditional rule of the
 * reference validator: blocker fields iff blocker-driven, blocker_class iff a proof blocker,
 * stop_reason iff stopped, stop_detail iff an operational abort, identity null only for a
 * protocol error, and a baseline covering files_owned. Unknown keys are accepted at the root and
 * in `evidence` (where the reference accepts them); typed items keep exact keys.
 */
import type { z } from 'zod';
import { FileBaselineSchema, uncoveredPaths } from '../baseline/schema.js';
import { lazySchema } from '../validation/lazy-schema.js';
import { zod } from '../validation/zod-sync.js';
import {
  BlockerClassSchema,
  BlockerKindSchema,
  ModeSchema,
  NextActionSchema,
  OPERATIONAL_STOP_REASONS,
  RUN_CONTRACT_SCHEMA,
  ScopeSchema,
  StatusSchema,
  type StopReason,
  StopReasonSchema,
} from './enums.js';

const str = () => zod().string();
const strArray = () => zod().array(zod().string());

/** The evidence block of a handoff (unknown members accepted and kept, as in the reference). */
export const HandoffEvidenceSchema = lazySchema((z) =>
  z.looseObject({
    queries: strArray(),
    top_candidates: strArray(),
    attempts: z.array(z.strictObject({ snippet: str(), result: str() })),
    goal_delta: str().nullable(),
    diagnostic_delta: str().nullable(),
  }),
);

/** A best candidate entry. */
export const CandidateSchema = lazySchema((z) => z.strictObject({ candidate: str(), outcome: str() }));
/** An artifact entry (`unified-diff` for patch-only workers). */
export const ArtifactSchema = lazySchema((z) => z.strictObject({ kind: str(), content: str() }));

/**
 * True when the stop was blocker-driven: `stuck`, or `stopped` with `max-stuck`.
 *
 * @example
 * ```ts
 * isBlockerDriven({ status: 'stopped', stop_reason: 'max-stuck' }); // true
 * ```
 */
export function isBlockerDriven(h: { status: string; stop_reason: StopReason | null }): boolean {
  return h.status === 'stuck' || (h.status === 'stopped' && h.stop_reason === 'max-stuck');
}

function rule(ctx: z.RefinementCtx, path: string, code: string, message: string): void {
  ctx.addIssue({ code: 'custom', path: [path], message, params: { code } });
}

/**
 * The handoff record. Unknown root keys are accepted and kept (the reference checks only for
 * missing keys); `validateHandoff` reports them as warnings. No unknown key takes part in any rule.
 */
export const HandoffSchema = lazySchema((z) =>
  z
    .looseObject({
      schema: z.literal(RUN_CONTRACT_SCHEMA),
      record: z.literal('handoff'),
      target: str().min(1).nullable(),
      scope: ScopeSchema.nullable(),
      mode: ModeSchema.nullable(),
      status: StatusSchema,
      stop_reason: StopReasonSchema.nullable(),
      stop_detail: str().nullable(),
      blocker_kind: BlockerKindSchema.nullable(),
      blocker_class: BlockerClassSchema.nullable(),
      blocker_signature: str().nullable(),
      attempted_tools: strArray(),
      best_candidates: z.array(CandidateSchema),
      failed_avenues: strArray(),
      evidence: HandoffEvidenceSchema,
      files_owned: strArray(),
      files_changed: strArray(),
      file_baseline: FileBaselineSchema.nullable(),
      artifacts: z.array(ArtifactSchema),
      next_action: NextActionSchema,
      new_evidence_required_for_rerun: str().nullable(),
    })
    .superRefine((h, ctx) => {
      if (h.status === 'stopped' && h.stop_reason === null)
        rule(ctx, 'stop_reason', 'stop_reason_required', 'a stopped handoff names its stop_reason');
      if (h.status !== 'stopped' && h.stop_reason !== null)
        rule(
          ctx,
          'stop_reason',
          'stop_reason_forbidden',
          `stop_reason must be null when status is ${h.status}`,
        );
      const operational = h.stop_reason !== null && OPERATIONAL_STOP_REASONS.includes(h.stop_reason);
      if (operational && (h.stop_detail === null || h.stop_detail.trim() === '')) {
        rule(
          ctx,
          'stop_detail',
          'stop_detail_required',
          `stop_reason ${h.stop_reason} needs a non-empty stop_detail`,
        );
      }
      if (!operational && h.stop_detail !== null)
        rule(
          ctx,
          'stop_detail',
          'stop_detail_forbidden',
          'stop_detail is only for protocol-error and operational-error stops',
        );

      const driven = isBlockerDriven(h);
      for (const f of ['blocker_kind', 'blocker_signature', 'new_evidence_required_for_rerun'] as const) {
        const v = h[f];
        if (driven && (v === null || v.trim() === ''))
          rule(ctx, f, 'blocker_field_required', `${f} is required for a blocker-driven stop`);
        if (!driven && v !== null)
          rule(ctx, f, 'blocker_field_forbidden', `${f} must be null unless the stop is blocker-driven`);
      }
      const proof = driven && h.blocker_kind === 'proof';
      if (proof && h.blocker_class === null)
        rule(ctx, 'blocker_class', 'blocker_class_required', 'a proof blocker names its blocker_class');
      if (!proof && h.blocker_class !== null)
        rule(
          ctx,
          'blocker_class',
          'blocker_class_forbidden',
          'blocker_class is only for blocker-driven proof blockers',
        );

      if (h.stop_reason !== 'protocol-error') {
        for (const f of ['target', 'scope', 'mode', 'file_baseline'] as const) {
          if (h[f] === null)
            rule(ctx, f, 'identity_required', `${f} may be null only for a protocol-error stop`);
        }
      }
      // a protocol-error stop may carry a partial baseline (it records what the runtime could
      // read of a malformed exchange); the reference accepts it too (docs/baseline.md)
      if (h.file_baseline !== null && h.stop_reason !== 'protocol-error') {
        for (const p of uncoveredPaths(h.file_baseline, h.files_owned)) {
          rule(ctx, 'file_baseline', 'baseline_not_covering', `file_baseline does not cover owned file ${p}`);
        }
      }
    }),
);

/** A run-contract/v1 handoff record. */
export type Handoff = z.infer<typeof HandoffSchema>;
/** The handoff evidence block. */
export type HandoffEvidence = z.infer<typeof HandoffEvidenceSchema>;

/**
 * An evidence block with every member empty.
 *
 * @example
 * ```ts
 * const h = { ...base, evidence: emptyEvidence() };
 * ```
 */
export function emptyEvidence(): HandoffEvidence {
  return { queries: [], top_candidates: [], attempts: [], goal_delta: null, diagnostic_delta: null };
}
