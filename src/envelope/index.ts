/**
 * Dev-loop handoff envelope: builder, byte-stable prefix, validator, settings and the agent
 * consumption helper.
 */
export type { BuildEnvelopeOptions } from './build.js';
export { buildHandoffEnvelope } from './build.js';
export {
  ASYNC_START_MODES,
  ASYNC_START_RELAXED_BY_CLAUDE,
  type AsyncStartMode,
  COPILOT_REVIEW_WAIT_TIMEOUT_MS,
  COPILOT_SUB_GATES,
  DEFAULT_ATTENTION_MS,
  DEFAULT_GATE,
  DEFAULT_MAX_COPILOT_ROUNDS,
  EXECUTION_MODES,
  type ExecutionMode,
  FAIL_CLOSED_DIRECTIVE_PREFIXES,
  HANDOFF_ENVELOPE_VERSION,
  hasFailClosedDirective,
  MERGE_STOP_RULE,
  PHASE_DOC_PHRASE,
  PR_BODY_PHRASE,
  RECONCILE_BUNDLE_KIND,
  RECONCILE_CRITERION_ID,
  RECONCILE_OUTER_STRATEGY,
  RECONCILE_STOP_RULE,
  RECONCILE_TUPLE,
  SPEC_SOURCES,
  SPIKE_GATE,
  type SpecSource,
  STRATEGIES,
  type Strategy,
  TARGET_KINDS,
  type TargetKind,
  WORKTREE_NAMESPACE,
} from './constants.js';
export type {
  CommandClass,
  CompletionCheck,
  CompletionReport,
  ConsumptionStep,
} from './consume.js';
export {
  checkCompletion,
  classifyCommand,
  mustStopAt,
  planConsumption,
  sanctionedWrapperPaths,
} from './consume.js';
export type { EnvelopeErrorCode } from './errors.js';
export { DEFAULT_BLOCK_CLEAN_SEVERITIES, deriveGateConfig, gateSettingsKey } from './gate-config.js';
export type { EnvelopeClock, GateStateInput } from './gate-state.js';
export { normalizeGateState, normalizeRetrospectiveFindings } from './gate-state.js';
export type { EnvelopePrefix, PrefixDrift, PrefixDriftReport } from './prefix.js';
export {
  assertStablePrefix,
  envelopePrefix,
  findPrefixDrift,
  serializeEnvelope,
  stableBody,
} from './prefix.js';
export type { RouteClass } from './reconcile.js';
export { classifyRoute, reconcileTupleProblems } from './reconcile.js';
export { normalizeRepoSlug } from './repo-slug.js';
export {
  type Acceptance,
  type AcceptanceCriterion,
  AcceptanceCriterionSchema,
  AcceptanceSchema,
  BLOCKING_SEVERITY_SPELLINGS,
  type Control,
  ControlSchema,
  DEFECT_SEVERITIES,
  type DevLoopsSettings,
  DevLoopsSettingsSchema,
  type EnvelopeTarget,
  EnvelopeTargetSchema,
  type GateAngleEntry,
  GateAngleEntrySchema,
  type GateConfig,
  GateConfigSchema,
  type GateSettings,
  GateSettingsSchema,
  type GateState,
  GateStateSchema,
  type HandoffEnvelope,
  HandoffEnvelopeSchema,
  LEGACY_SEVERITY_ALIASES,
  normalizeSeverity,
  type Overrides,
  OverridesSchema,
  type RetrospectiveFindings,
  RetrospectiveFindingsSchema,
  type SanctionedCommands,
  SanctionedCommandsSchema,
} from './schema.js';
export type { SettingsFormat } from './settings.js';
export {
  BUILT_IN_SETTINGS,
  checkSettings,
  EXTENSION_DEFAULT_SETTINGS,
  MAX_SETTINGS_TEXT_LENGTH,
  mergeSettingsLayers,
  parseSettingsText,
  settingsFormatOf,
} from './settings.js';
export type { LoadedSettings, LoadSettingsOptions, SettingsLayer, SettingsSource } from './settings-load.js';
export { loadDevLoopsSettings } from './settings-load.js';
export {
  deriveStopRules,
  isHumanMergeOnly,
  reconcileStopRules,
  STRATEGY_DEFAULT_STOP_RULES,
} from './stop-rules.js';
export { deriveCwd, deriveTarget, flattenSlugSegment, worktreeSlug } from './target.js';
export type { AcceptanceTemplate } from './templates.js';
export {
  ACCEPTANCE_TEMPLATES,
  acceptanceKey,
  knownAcceptanceCombos,
  lookupAcceptanceTemplate,
} from './templates.js';
export type {
  EnvelopeValidationError,
  EnvelopeValidationResult,
  EnvelopeValidationWarning,
} from './validate.js';
export { validateHandoffEnvelope } from './validate.js';
