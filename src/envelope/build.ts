/**
 * `buildHandoffEnvelope`: derives every envelope field from its authoritative source (resolver
 * output, caller options, gate state, settings, the template table, the consumer's
 * sanctioned-command map), fails closed with a named cause, keeps `gateState` as the last key,
 * and returns a deep-frozen record.
 */
import { deepFreeze } from '../canonical/index.js';
import { MAX_RECORD_DEPTH, nestingDepth } from '../validation/index.js';
import {
  ASYNC_START_RELAXED_BY_CLAUDE,
  type AsyncStartMode,
  COPILOT_SUB_GATES,
  DEFAULT_GATE,
  DEFAULT_MAX_COPILOT_ROUNDS,
  EXECUTION_MODES,
  type ExecutionMode,
  HANDOFF_ENVELOPE_VERSION,
  PHASE_DOC_PHRASE,
  PR_BODY_PHRASE,
  RECONCILE_TUPLE,
  SPEC_SOURCES,
  SPIKE_GATE,
  type SpecSource,
} from './constants.js';
import { envelopeError } from './errors.js';
import { deriveGateConfig } from './gate-config.js';
import {
  type EnvelopeClock,
  type GateStateInput,
  normalizeGateState,
  normalizeRetrospectiveFindings,
  resolveDerivedAt,
} from './gate-state.js';
import { isRecord, nonBlankOrNull } from './guards.js';
import { classifyRoute } from './reconcile.js';
import { normalizeRepoSlug } from './repo-slug.js';
import {
  type AcceptanceCriterion,
  type DevLoopsSettings,
  DevLoopsSettingsSchema,
  type HandoffEnvelope,
  type Overrides,
  OverridesSchema,
  type SanctionedCommands,
} from './schema.js';
import { deriveStopRules, isHumanMergeOnly, reconcileStopRules } from './stop-rules.js';
import { deriveCwd, deriveTarget } from './target.js';
import { lookupAcceptanceTemplate } from './templates.js';
import { validateHandoffEnvelope } from './validate.js';

type Rec = Readonly<Record<string, unknown>>;

/** Caller options of {@link buildHandoffEnvelope}. */
export interface BuildEnvelopeOptions {
  /** Repo slug; wins over `bundle.repoSlug` and `bundle.repo`. */
  readonly repoSlug?: string;
  /** Repository root; gives `cwd = <repoRoot>/tmp/worktrees/dev-loops/<slug>`. */
  readonly repoRoot?: string;
  /** Explicit worktree directory; wins over `repoRoot`. */
  readonly worktreeCwd?: string;
  /** Per-run overrides (`mergeAuthorized`, `preferLocal`, `scopeConstraint`, `customStopAt`). */
  readonly overrides?: Overrides | null;
  /** The consumer's sanctioned-command map, carried as supplied. */
  readonly sanctionedCommands?: SanctionedCommands | Readonly<Record<string, unknown>> | null;
  /** Advisory retrospective findings (a valid value in `gateState` wins). */
  readonly retrospectiveFindings?: unknown;
  /** Environment for the async-start relaxation (`CLAUDECODE=1`); defaults to `process.env`. */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Build clock for `gateState.derivedAt`; defaults to the current time. */
  readonly now?: EnvelopeClock;
}

function requireString(v: unknown, field: string): string {
  if (nonBlankOrNull(v) === null) {
    throw envelopeError('envelope_missing_field', `${field} is required and must be a non-empty string`, {
      field,
      got: v ?? null,
    });
  }
  return v as string;
}

function parseSettings(settings: unknown): DevLoopsSettings {
  if (settings === undefined || settings === null) return {};
  const r = DevLoopsSettingsSchema.safeParse(settings);
  if (r.success) return r.data;
  throw envelopeError('envelope_invalid_settings', 'settings have invalid values for known keys', {
    issues: r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
  });
}

/**
 * A deep copy of JSON data that keeps every object's key order (the consumer's map is delivered
 * verbatim: same keys, same order, same values). Refuses what is not JSON (functions, undefined,
 * symbols, bigints, non-finite numbers, non-plain objects) and nesting deeper than
 * `MAX_RECORD_DEPTH`. A `__proto__` key is copied as plain data.
 */
function jsonClone(value: unknown, field: string): unknown {
  if (nestingDepth(value, MAX_RECORD_DEPTH) > MAX_RECORD_DEPTH) {
    throw envelopeError('envelope_invalid_option', `${field} nests deeper than ${MAX_RECORD_DEPTH} levels`, {
      field,
    });
  }
  const copy = (v: unknown, path: string): unknown => {
    if (v === null || typeof v === 'string' || typeof v === 'boolean') return v;
    if (typeof v === 'number' && Number.isFinite(v)) return v;
    if (Array.isArray(v)) return v.map((x, i) => copy(x, `${path}.${i}`));
    if (isRecord(v) && (Object.getPrototypeOf(v) === Object.prototype || Object.getPrototypeOf(v) === null)) {
      const out: Record<string, unknown> = {};
      for (const k of Object.keys(v)) {
        Object.defineProperty(out, k, {
          value: copy(v[k], `${path}.${k}`),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return out;
    }
    throw envelopeError('envelope_invalid_option', `${field} must be JSON-representable`, {
      field,
      reason: `${path} is ${typeof v === 'object' ? 'not a plain object' : typeof v}`,
    });
  };
  return copy(value, field);
}

function resolveGate(strategy: string | null, resolverOutput: Rec, gateState: GateStateInput): string {
  if (strategy === null) return RECONCILE_TUPLE.selectedGate;
  if (strategy === 'copilot_pr_followup') {
    const sub = nonBlankOrNull(gateState.currentSubGate);
    return sub !== null && (COPILOT_SUB_GATES as readonly string[]).includes(sub) ? sub : 'draft';
  }
  // the reference tests the top-level marker for truthiness (Boolean(x)): false, 0, '' and null are not spikes
  if (strategy === 'local_implementation' && resolverOutput.spikeIntakeState) return SPIKE_GATE;
  return DEFAULT_GATE;
}

function deriveRequiredReads(resolverOutput: Rec, bundle: Rec): string[] {
  const top = resolverOutput.requiredReads;
  const source = Array.isArray(top) && top.length > 0 ? top : bundle.requiredReads;
  if (!Array.isArray(source)) return [];
  const bad = source.flatMap((e, i) => (nonBlankOrNull(e) === null ? [i] : []));
  if (bad.length > 0) {
    throw envelopeError(
      'envelope_invalid_input',
      `requiredReads entries at indices [${bad.join(',')}] must be non-empty strings`,
      {
        field: 'requiredReads',
        got: source,
      },
    );
  }
  return [...(source as string[])];
}

function deriveSpecSource(resolverOutput: Rec, bundle: Rec): SpecSource | null {
  const raw =
    nonBlankOrNull(resolverOutput.canonicalSpecSource) ?? nonBlankOrNull(bundle.canonicalSpecSource);
  return raw !== null && (SPEC_SOURCES as readonly string[]).includes(raw) ? (raw as SpecSource) : null;
}

function applySpecSource(
  criteria: readonly AcceptanceCriterion[],
  spec: SpecSource | null,
): AcceptanceCriterion[] {
  return criteria.map((c) => ({
    ...c,
    must: spec === 'pr_body' ? c.must.replace(PHASE_DOC_PHRASE, PR_BODY_PHRASE) : c.must,
  }));
}

function deriveOverrides(raw: unknown, settings: DevLoopsSettings): Overrides | undefined {
  if (raw === undefined || raw === null) return undefined;
  const r = OverridesSchema.safeParse(raw);
  if (!r.success) {
    throw envelopeError('envelope_invalid_option', 'overrides must be an object with known keys only', {
      field: 'overrides',
      issues: r.error.issues.map((i) => ({ path: i.path.map(String).join('.'), message: i.message })),
    });
  }
  const o: Overrides = { ...r.data };
  if (Object.keys(o).length === 0) return undefined;
  // humanMergeOnly: the effective merge authorization is always false, whatever the run says.
  if (isHumanMergeOnly(settings) && o.mergeAuthorized === true) o.mergeAuthorized = false;
  return o;
}

function deriveSanctioned(raw: unknown): SanctionedCommands | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (!isRecord(raw)) {
    throw envelopeError('envelope_invalid_option', 'sanctionedCommands must be an object when supplied', {
      field: 'sanctionedCommands',
      got: Array.isArray(raw) ? 'array' : typeof raw,
    });
  }
  return jsonClone(raw, 'sanctionedCommands') as SanctionedCommands;
}

/**
 * Builds the dev-loop handoff envelope.
 *
 * Accepts the wrapped startup result (`{ bundle, requiredReads, … }`) and the bare bundle alike;
 * a result that is exactly the terminal reconciliation tuple yields a terminal envelope
 * (`worktreeRequired: false`, reconcile acceptance, `stopRules: ['reconcile'(, 'merge')]`).
 *
 * @example
 * ```ts
 * const env = buildHandoffEnvelope(resolverJson, settings, { currentHeadSha: sha, ciStatus: 'success' }, {
 *   repoRoot: '/work/repo', now: new Date(),
 * });
 * env.gateState.currentHeadSha === sha; // true; Object.isFrozen(env) // true
 * ```
 * @throws HandoffError `envelope_invalid_input`, `envelope_missing_field`, `envelope_invalid_repo`,
 * `envelope_invalid_target`, `envelope_unknown_template`, `envelope_reconcile_tuple`,
 * `envelope_invalid_option`, `envelope_invalid_settings` (see {@link EnvelopeErrorCode}).
 */
export function buildHandoffEnvelope(
  resolverOutput: unknown,
  settings?: DevLoopsSettings | Readonly<Record<string, unknown>> | null,
  gateState?: GateStateInput | null,
  options: BuildEnvelopeOptions = {},
): HandoffEnvelope {
  if (!isRecord(resolverOutput)) {
    throw envelopeError('envelope_invalid_input', 'resolverOutput is required and must be an object', {
      field: 'resolverOutput',
      got: Array.isArray(resolverOutput) ? 'array' : resolverOutput === null ? null : typeof resolverOutput,
    });
  }
  const wrapped = resolverOutput.bundle !== undefined && resolverOutput.bundle !== null;
  const bundle = wrapped ? resolverOutput.bundle : resolverOutput;
  if (!isRecord(bundle)) {
    throw envelopeError('envelope_invalid_input', 'resolverOutput.bundle must be an object', {
      field: 'resolverOutput.bundle',
      got: typeof bundle,
    });
  }
  const outer = wrapped ? resolverOutput : undefined;
  const s = parseSettings(settings);
  const gs: GateStateInput = isRecord(gateState) ? gateState : {};

  const route = classifyRoute(bundle, outer);
  const strategy =
    route.kind === 'reconcile'
      ? null
      : requireString(bundle.selectedStrategy, 'resolverOutput.selectedStrategy').trim();
  const executionMode = requireString(bundle.executionMode, 'resolverOutput.executionMode').trim();
  if (!(EXECUTION_MODES as readonly string[]).includes(executionMode)) {
    throw envelopeError(
      'envelope_invalid_input',
      `executionMode must be one of: ${EXECUTION_MODES.join(', ')}`,
      {
        field: 'resolverOutput.executionMode',
        got: executionMode,
      },
    );
  }
  // trimmed, as the reference trims it (and as selectedStrategy and executionMode are)
  const nextAction = requireString(bundle.nextAction, 'resolverOutput.nextAction').trim();

  const repoInput = options.repoSlug ?? bundle.repoSlug ?? bundle.repo;
  const repo = normalizeRepoSlug(repoInput);
  if (repo === null) {
    throw envelopeError('envelope_invalid_repo', 'repo slug is required (owner/name)', {
      field: 'repo',
      got: repoInput ?? null,
    });
  }

  const gate = resolveGate(strategy, resolverOutput, gs);
  const target = deriveTarget(bundle, repo);
  const requiredReads = deriveRequiredReads(resolverOutput, bundle);
  const template = lookupAcceptanceTemplate(strategy, gate);
  const specSource = deriveSpecSource(resolverOutput, bundle);
  const gateConfig = deriveGateConfig(s, gate);
  const stopRules =
    route.kind === 'reconcile' ? reconcileStopRules(s) : deriveStopRules(s, strategy as string);

  const env = options.env ?? process.env;
  const asyncStartMode: AsyncStartMode = s.workflow?.asyncStartMode ?? 'required';
  const asyncStartEffective: AsyncStartMode =
    asyncStartMode === 'required' && env.CLAUDECODE === '1' ? 'allowed' : asyncStartMode;

  const overrides = deriveOverrides(options.overrides, s);
  const sanctionedCommands = deriveSanctioned(options.sanctionedCommands);
  const retrospectiveFindings =
    normalizeRetrospectiveFindings(gs.retrospectiveFindings) ??
    normalizeRetrospectiveFindings(options.retrospectiveFindings);
  const derivedAt = resolveDerivedAt(options.now);

  // Key order is part of the contract; everything above gateState is per-target stable.
  const envelope: HandoffEnvelope = {
    handoffVersion: HANDOFF_ENVELOPE_VERSION,
    target,
    currentGate: gate,
    maxCopilotRounds: s.refinement?.maxCopilotRounds ?? DEFAULT_MAX_COPILOT_ROUNDS,
    executionMode: executionMode as ExecutionMode,
    ...(route.kind === 'reconcile'
      ? { routeKind: RECONCILE_TUPLE.routeKind, selectedStrategy: RECONCILE_TUPLE.selectedStrategy }
      : {}),
    nextAction,
    requiredReads,
    stopRules,
    asyncStartMode,
    asyncStartEffective,
    asyncStartRelaxedBy: asyncStartEffective === asyncStartMode ? null : ASYNC_START_RELAXED_BY_CLAUDE,
    requireDraftFirst: s.workflow?.requireDraftFirst ?? false,
    cwd: deriveCwd(target, options),
    worktreeRequired: route.kind !== 'reconcile',
    acceptance: {
      criteria: applySpecSource(template.criteria, specSource),
      evidence: [...template.evidence],
      maxFinalizationTurns: template.maxFinalizationTurns,
    },
    control: {
      needsAttentionAfterMs: template.needsAttentionAfterMs,
      activeNoticeAfterMs: template.activeNoticeAfterMs,
    },
    // Optional fields in the reference's emitted order: gateConfig, overrides, sanctionedCommands,
    // retrospectiveFindings, specSource (the seed's interface lists members, not emission order).
    ...(gateConfig === undefined ? {} : { gateConfig }),
    ...(overrides === undefined ? {} : { overrides }),
    ...(sanctionedCommands === undefined ? {} : { sanctionedCommands }),
    ...(retrospectiveFindings === null ? {} : { retrospectiveFindings }),
    ...(specSource === null ? {} : { specSource }),
    gateState: normalizeGateState(gs, derivedAt),
  };

  // The builder never emits what the consumer-side validator rejects.
  const check = validateHandoffEnvelope(envelope);
  if (!check.ok) {
    throw envelopeError('envelope_invalid_input', 'derived envelope fails validation', {
      errors: check.errors,
    });
  }
  return deepFreeze(envelope);
}
