/**
 * zod schemas of the envelope records: the handoff envelope itself (structure; the cross-field rules
 * live in {@link validateHandoffEnvelope}), its sanctioned-command map, and the `.devloops`
 * settings record. Types are inferred from these schemas.
 */
import { z } from 'zod';
import {
  ASYNC_START_MODES,
  ASYNC_START_RELAXED_BY_CLAUDE,
  EXECUTION_MODES,
  RECONCILE_TUPLE,
  SPEC_SOURCES,
  TARGET_KINDS,
} from './constants.js';

const positiveInt = z.number().int().min(1);
const nonBlank = z.string().trim().min(1);

/**
 * The envelope's `target`.
 *
 * @example
 * ```ts
 * EnvelopeTargetSchema.parse({ kind: 'issue', repo: 'acme/app', issue: 42 });
 * ```
 */
export const EnvelopeTargetSchema = z.strictObject({
  kind: z.enum(TARGET_KINDS),
  repo: nonBlank,
  issue: positiveInt.optional(),
  pr: positiveInt.optional(),
  linkedPr: positiveInt.optional(),
  branch: nonBlank.optional(),
  phase: nonBlank.optional(),
});
/** Inferred type of {@link EnvelopeTargetSchema}. */
export type EnvelopeTarget = z.infer<typeof EnvelopeTargetSchema>;

/**
 * One acceptance criterion.
 *
 * @example
 * ```ts
 * AcceptanceCriterionSchema.parse({ id: 'scope', must: 'No unrelated changes.', severity: 'required' });
 * ```
 */
export const AcceptanceCriterionSchema = z.strictObject({
  id: nonBlank,
  must: nonBlank,
  severity: z.enum(['required', 'recommended']),
});
/** Inferred type of {@link AcceptanceCriterionSchema}. */
export type AcceptanceCriterion = z.infer<typeof AcceptanceCriterionSchema>;

/**
 * The `acceptance` block (maps 1:1 into a subagent acceptance contract).
 *
 * @example
 * ```ts
 * AcceptanceSchema.parse({ criteria: [c], evidence: ['commands-run'], maxFinalizationTurns: 4 });
 * ```
 */
export const AcceptanceSchema = z.strictObject({
  criteria: z.array(AcceptanceCriterionSchema).min(1),
  evidence: z.array(nonBlank),
  maxFinalizationTurns: positiveInt,
});
/** Inferred type of {@link AcceptanceSchema}. */
export type Acceptance = z.infer<typeof AcceptanceSchema>;

/**
 * The `control` block (attention timers, milliseconds).
 *
 * @example
 * ```ts
 * ControlSchema.parse({ needsAttentionAfterMs: 300000, activeNoticeAfterMs: 300000 });
 * ```
 */
export const ControlSchema = z.strictObject({
  needsAttentionAfterMs: positiveInt,
  activeNoticeAfterMs: positiveInt,
});
/** Inferred type of {@link ControlSchema}. */
export type Control = z.infer<typeof ControlSchema>;

/**
 * The derived `gateConfig` of the current gate.
 *
 * @example
 * ```ts
 * GateConfigSchema.parse({ angles: ['scope'], blockCleanOnFindingSeverities: ['must-fix'], requireCi: true });
 * ```
 */
export const GateConfigSchema = z.strictObject({
  angles: z.array(nonBlank),
  excludeAngles: z.array(nonBlank).min(1).optional(),
  blockCleanOnFindingSeverities: z.array(nonBlank),
  requireCi: z.boolean(),
});
/** Inferred type of {@link GateConfigSchema}. */
export type GateConfig = z.infer<typeof GateConfigSchema>;

/**
 * Per-run overrides carried in the envelope.
 *
 * @example
 * ```ts
 * OverridesSchema.parse({ preferLocal: true });
 * ```
 */
export const OverridesSchema = z.strictObject({
  mergeAuthorized: z.boolean().optional(),
  preferLocal: z.boolean().optional(),
  scopeConstraint: z.string().optional(),
  // a stop point or a list of them (the reference carries either; issue 34)
  customStopAt: z.union([z.string(), z.array(z.string())]).optional(),
});
/** Inferred type of {@link OverridesSchema}. */
export type Overrides = z.infer<typeof OverridesSchema>;

/**
 * The operation → wrapper map plus the forbidden and orchestrator-owned lists. The consumer owns
 * the map; the builder carries it as supplied.
 *
 * @example
 * ```ts
 * SanctionedCommandsSchema.parse({ reads: {}, edits: {}, lifecycle: {}, forbidden: ['node -e'], orchestratorOwned: ['gh pr merge'] });
 * ```
 */
export const SanctionedCommandsSchema = z.strictObject({
  reads: z.record(z.string(), nonBlank),
  edits: z.record(z.string(), nonBlank),
  lifecycle: z.record(z.string(), nonBlank),
  forbidden: z.array(nonBlank),
  orchestratorOwned: z.array(nonBlank),
});
/** Inferred type of {@link SanctionedCommandsSchema}. */
export type SanctionedCommands = z.infer<typeof SanctionedCommandsSchema>;

/**
 * Advisory retrospective findings (never blocking).
 *
 * @example
 * ```ts
 * RetrospectiveFindingsSchema.parse({ internalToolingOnly: true, rawCallViolations: [], allowedWriteOps: [] });
 * ```
 */
export const RetrospectiveFindingsSchema = z.strictObject({
  internalToolingOnly: z.boolean(),
  rawCallViolations: z.array(z.string()),
  allowedWriteOps: z.array(z.string()),
});
/** Inferred type of {@link RetrospectiveFindingsSchema}. */
export type RetrospectiveFindings = z.infer<typeof RetrospectiveFindingsSchema>;

/**
 * The volatile tail: the only per-round-varying block, always the last key.
 *
 * @example
 * ```ts
 * GateStateSchema.parse({ derivedAt: '2026-11-30T00:00:00.000Z', currentHeadSha: null, ciStatus: null, unresolvedThreadCount: 0, copilotRoundCount: 0 });
 * ```
 */
export const GateStateSchema = z.strictObject({
  derivedAt: z.iso.datetime(),
  currentHeadSha: z.string().nullable(),
  ciStatus: z.string().nullable(),
  unresolvedThreadCount: z.number().int().min(0),
  copilotRoundCount: z.number().int().min(0),
});
/** Inferred type of {@link GateStateSchema}. */
export type GateState = z.infer<typeof GateStateSchema>;

/**
 * The dev-loop handoff envelope (structure). Publish as JSON Schema `dev-loop-handoff-envelope.v1`.
 *
 * @example
 * ```ts
 * HandoffEnvelopeSchema.safeParse(JSON.parse(text)).success;
 * ```
 */
export const HandoffEnvelopeSchema = z.strictObject({
  handoffVersion: positiveInt,
  target: EnvelopeTargetSchema,
  currentGate: nonBlank,
  maxCopilotRounds: z.number().int().min(0),
  executionMode: z.enum(EXECUTION_MODES),
  routeKind: z.literal(RECONCILE_TUPLE.routeKind).optional(),
  selectedStrategy: z.null().optional(),
  nextAction: nonBlank,
  requiredReads: z.array(nonBlank),
  gateConfig: GateConfigSchema.optional(),
  stopRules: z.array(z.string()),
  asyncStartMode: z.enum(ASYNC_START_MODES),
  asyncStartEffective: z.enum(ASYNC_START_MODES),
  asyncStartRelaxedBy: z.literal(ASYNC_START_RELAXED_BY_CLAUDE).nullable(),
  requireDraftFirst: z.boolean(),
  cwd: z.string().nullable(),
  worktreeRequired: z.boolean(),
  acceptance: AcceptanceSchema,
  control: ControlSchema,
  overrides: OverridesSchema.optional(),
  sanctionedCommands: SanctionedCommandsSchema.optional(),
  retrospectiveFindings: RetrospectiveFindingsSchema.optional(),
  specSource: z.enum(SPEC_SOURCES).optional(),
  gateState: GateStateSchema,
});
/** Inferred type of {@link HandoffEnvelopeSchema} (built envelopes are deep-frozen). */
export type HandoffEnvelope = z.infer<typeof HandoffEnvelopeSchema>;

// ---------------------------------------------------------------------------------------------
// Settings (`.devloops` and defaults). Unknown keys are kept (loose); known keys are typed.
// ---------------------------------------------------------------------------------------------

/**
 * The canonical defect severities of the reference, in rank order (`high` blocks first).
 *
 * @example
 * ```ts
 * DEFECT_SEVERITIES; // ['high', 'medium', 'low']
 * ```
 */
export const DEFECT_SEVERITIES = ['high', 'medium', 'low'] as const;

/**
 * Legacy severity spellings and their canonical names (the reference's read-side normaliser):
 * `must-fix` → `high`, `worth-fixing-now` → `medium`, `nice-to-have` and `defer` → `low`.
 *
 * @example
 * ```ts
 * LEGACY_SEVERITY_ALIASES['must-fix']; // 'high'
 * ```
 */
export const LEGACY_SEVERITY_ALIASES: Readonly<Record<string, (typeof DEFECT_SEVERITIES)[number]>> =
  Object.freeze({ 'must-fix': 'high', 'worth-fixing-now': 'medium', 'nice-to-have': 'low', defer: 'low' });

/**
 * Every spelling `gates.<gate>.blockCleanOnFindingSeverities` accepts: the canonical defect
 * severities and their legacy aliases, exact (case-sensitive, not trimmed). Anything else — a typo,
 * `High`, the non-defect `question`/`nit` — is refused.
 *
 * @example
 * ```ts
 * BLOCKING_SEVERITY_SPELLINGS.includes('worth-fixing-now'); // true
 * ```
 */
export const BLOCKING_SEVERITY_SPELLINGS = [
  'high',
  'medium',
  'low',
  'must-fix',
  'worth-fixing-now',
  'nice-to-have',
  'defer',
] as const;

/**
 * The canonical name of a severity spelling: a legacy alias maps to its canonical name, anything
 * else is returned unchanged.
 *
 * @example
 * ```ts
 * normalizeSeverity('worth-fixing-now'); // 'medium'
 * ```
 */
export function normalizeSeverity(severity: string): string {
  return Object.hasOwn(LEGACY_SEVERITY_ALIASES, severity)
    ? (LEGACY_SEVERITY_ALIASES[severity] as string)
    : severity;
}

/**
 * One gate angle: a bare name or `{ name, mandatory?, enabled? }` (other keys kept).
 *
 * @example
 * ```ts
 * GateAngleEntrySchema.parse({ name: 'pr-description', mandatory: true });
 * ```
 */
export const GateAngleEntrySchema = z.union([
  nonBlank,
  z.looseObject({ name: nonBlank, mandatory: z.boolean().optional(), enabled: z.boolean().optional() }),
]);
/** Inferred type of {@link GateAngleEntrySchema}. */
export type GateAngleEntry = z.infer<typeof GateAngleEntrySchema>;

/**
 * One `gates.<key>` block of the settings.
 *
 * @example
 * ```ts
 * GateSettingsSchema.parse({ angles: ['scope'], excludeAngles: ['no-op'], requireCi: true });
 * ```
 */
export const GateSettingsSchema = z.looseObject({
  angles: z.array(GateAngleEntrySchema).optional(),
  excludeAngles: z.array(nonBlank).optional(),
  mandatoryAngles: z.array(nonBlank).optional(),
  // the reference's vocabulary, exact spellings (case-sensitive, untrimmed): an unknown severity
  // fails closed instead of silently blocking on nothing
  blockCleanOnFindingSeverities: z.array(z.enum(BLOCKING_SEVERITY_SPELLINGS)).min(1).optional(),
  requireCi: z.boolean().optional(),
  required: z.boolean().optional(),
});
/** Inferred type of {@link GateSettingsSchema}. */
export type GateSettings = z.infer<typeof GateSettingsSchema>;

/**
 * The merged dev-loop settings record (`.devloops` over the defaults). Publish as JSON Schema
 * `devloops-settings.v1`.
 *
 * @example
 * ```ts
 * DevLoopsSettingsSchema.parse({ autonomy: { stopAt: ['merge'], humanMergeOnly: true } });
 * ```
 */
export const DevLoopsSettingsSchema = z.looseObject({
  refinement: z.looseObject({ maxCopilotRounds: z.number().int().min(0).optional() }).optional(),
  autonomy: z
    // `stopAt: null` is "not configured" (the strategy default), as in the reference (issue 34)
    .looseObject({ stopAt: z.array(nonBlank).nullable().optional(), humanMergeOnly: z.boolean().optional() })
    .optional(),
  workflow: z
    .looseObject({
      asyncStartMode: z.enum(ASYNC_START_MODES).optional(),
      requireDraftFirst: z.boolean().optional(),
    })
    .optional(),
  // Only draft, preApproval and spike are gate blocks; every other `gates.*` key of real dev-loops
  // settings (requireFanoutEvidence, fanout, anglePool, size, …) is accepted, kept and ignored here.
  gates: z
    .looseObject({
      draft: GateSettingsSchema.optional(),
      preApproval: GateSettingsSchema.optional(),
      spike: GateSettingsSchema.optional(),
    })
    .optional(),
});
/** Inferred type of {@link DevLoopsSettingsSchema}. */
export type DevLoopsSettings = z.infer<typeof DevLoopsSettingsSchema>;
