/**
 * Vocabulary of the dev-loop handoff envelope: versions, enums, the terminal reconciliation tuple
 * and the policy constants the template table refers to. Every derived field takes its literals
 * from here, so no builder or validator carries a magic string of its own.
 */

/**
 * The envelope version. Envelopes are ephemeral (rebuilt every pass, never persisted), so the
 * version stays at 1 even after fields moved into the `gateState` tail.
 *
 * @example
 * ```ts
 * envelope.handoffVersion === HANDOFF_ENVELOPE_VERSION; // true
 * ```
 */
export const HANDOFF_ENVELOPE_VERSION = 1 as const;

/**
 * Target kinds an envelope can point at.
 *
 * @example
 * ```ts
 * TARGET_KINDS.includes('pr'); // true
 * ```
 */
export const TARGET_KINDS = ['issue', 'pr', 'local_branch', 'local_phase'] as const;
/** One of {@link TARGET_KINDS}. */
export type TargetKind = (typeof TARGET_KINDS)[number];

/**
 * How the dispatched agent runs.
 *
 * @example
 * ```ts
 * EXECUTION_MODES[0]; // 'bounded_handoff'
 * ```
 */
export const EXECUTION_MODES = ['bounded_handoff', 'durable_auto'] as const;
/** One of {@link EXECUTION_MODES}. */
export type ExecutionMode = (typeof EXECUTION_MODES)[number];

/**
 * Async-start postures (`workflow.asyncStartMode`).
 *
 * @example
 * ```ts
 * ASYNC_START_MODES; // ['required', 'allowed']
 * ```
 */
export const ASYNC_START_MODES = ['required', 'allowed'] as const;
/** One of {@link ASYNC_START_MODES}. */
export type AsyncStartMode = (typeof ASYNC_START_MODES)[number];

/**
 * Who relaxed a configured `required` async start (`asyncStartRelaxedBy`); `null` when nobody did.
 *
 * @example
 * ```ts
 * envelope.asyncStartRelaxedBy === ASYNC_START_RELAXED_BY_CLAUDE; // under CLAUDECODE=1
 * ```
 */
export const ASYNC_START_RELAXED_BY_CLAUDE = 'claude-harness' as const;

/**
 * The routed strategies the template table knows.
 *
 * @example
 * ```ts
 * STRATEGIES.includes('local_implementation'); // true
 * ```
 */
export const STRATEGIES = [
  'copilot_pr_followup',
  'final_approval',
  'local_implementation',
  'issue_intake',
  'external_pr_followup',
  'reviewer_fixer',
  'wait_watch',
  'ui_review',
] as const;
/** One of {@link STRATEGIES}. */
export type Strategy = (typeof STRATEGIES)[number];

/**
 * Sub-gates of `copilot_pr_followup`; `currentSubGate` outside this list falls back to `draft`.
 *
 * @example
 * ```ts
 * COPILOT_SUB_GATES.includes('watch'); // true
 * ```
 */
export const COPILOT_SUB_GATES = ['draft', 'watch', 'pre-approval'] as const;

/**
 * Gate of every strategy without sub-gates.
 *
 * @example
 * ```ts
 * lookupAcceptanceTemplate('wait_watch', DEFAULT_GATE).maxFinalizationTurns; // 4
 * ```
 */
export const DEFAULT_GATE = 'default' as const;
/**
 * Gate of `local_implementation` when the resolver output carries a top-level `spikeIntakeState`.
 *
 * @example
 * ```ts
 * lookupAcceptanceTemplate('local_implementation', SPIKE_GATE).criteria[0]?.id; // 'spike-recorded'
 * ```
 */
export const SPIKE_GATE = 'spike' as const;

/**
 * Spec sources the envelope distinguishes (`specSource`); anything else is dropped.
 *
 * @example
 * ```ts
 * SPEC_SOURCES; // ['phase_doc', 'pr_body']
 * ```
 */
export const SPEC_SOURCES = ['phase_doc', 'pr_body'] as const;
/** One of {@link SPEC_SOURCES}. */
export type SpecSource = (typeof SPEC_SOURCES)[number];

/**
 * Criterion phrase rewritten under `specSource: "pr_body"` …
 *
 * @example
 * ```ts
 * ACCEPTANCE_TEMPLATES.get('local_implementation::default')?.criteria[0]?.must.includes(PHASE_DOC_PHRASE); // true
 * ```
 */
export const PHASE_DOC_PHRASE = 'from the active phase doc';
/**
 * … into this phrase.
 *
 * @example
 * ```ts
 * envelope.acceptance.criteria[0]?.must.includes(PR_BODY_PHRASE); // under specSource 'pr_body'
 * ```
 */
export const PR_BODY_PHRASE = 'from the PR description';

/**
 * The terminal reconciliation tuple: a resolver result with exactly these three values is a
 * terminal, actionable envelope (stop and reconcile) rather than routed work.
 *
 * @example
 * ```ts
 * bundle.routeKind === RECONCILE_TUPLE.routeKind;
 * ```
 */
export const RECONCILE_TUPLE = Object.freeze({
  routeKind: 'needs_reconcile',
  selectedGate: 'fail_closed_reconcile',
  selectedStrategy: null,
} as const);

/**
 * `bundleKind` a wrapped reconcile startup result carries at both levels.
 *
 * @example
 * ```ts
 * startupResult.bundleKind === RECONCILE_BUNDLE_KIND && startupResult.bundle.bundleKind === RECONCILE_BUNDLE_KIND;
 * ```
 */
export const RECONCILE_BUNDLE_KIND = 'needs_reconcile' as const;
/**
 * Outer display key `selectedStrategy` of a wrapped reconcile startup result.
 *
 * @example
 * ```ts
 * startupResult.selectedStrategy === RECONCILE_OUTER_STRATEGY; // wrapped reconcile result
 * ```
 */
export const RECONCILE_OUTER_STRATEGY = 'none' as const;
/**
 * The stop rule every terminal reconciliation envelope carries, alone or before `merge`.
 *
 * @example
 * ```ts
 * reconcileEnvelope.stopRules[0] === RECONCILE_STOP_RULE; // true
 * ```
 */
export const RECONCILE_STOP_RULE = 'reconcile' as const;
/**
 * The acceptance criterion id a terminal reconciliation envelope must require.
 *
 * @example
 * ```ts
 * reconcileEnvelope.acceptance.criteria.some((c) => c.id === RECONCILE_CRITERION_ID); // true
 * ```
 */
export const RECONCILE_CRITERION_ID = 'reconcile' as const;
/**
 * Stop rule forced by `autonomy.humanMergeOnly`.
 *
 * @example
 * ```ts
 * deriveStopRules({ autonomy: { stopAt: [], humanMergeOnly: true } }, 'wait_watch'); // [MERGE_STOP_RULE]
 * ```
 */
export const MERGE_STOP_RULE = 'merge' as const;

/**
 * Recognized fail-closed directive prefixes of a terminal reconciliation `nextAction`
 * (compared case-insensitively against the trimmed action).
 *
 * The first three are the directives the reference router actually emits on the tuple:
 * `Stop and reconcile …` (its canonical action, for conflicting or unroutable state and for the
 * startup/resume bundle), `Reconcile …` (an unrecognized retrospective checkpoint state) and
 * `Complete or explicitly skip the required post-run behavioral retrospective …` (a missing
 * retrospective checkpoint, which the router also fails closed to reconcile). The last three are
 * our own spellings of the same imperative for other routers.
 *
 * @example
 * ```ts
 * hasFailClosedDirective('Stop and reconcile the PR linkage.'); // true
 * ```
 */
export const FAIL_CLOSED_DIRECTIVE_PREFIXES = Object.freeze([
  'Stop and reconcile',
  'Reconcile',
  'Complete or explicitly skip the required post-run behavioral retrospective',
  'Fail closed',
  'Fail-closed',
  'Halt and reconcile',
] as const);

/**
 * True when `action` starts with one of {@link FAIL_CLOSED_DIRECTIVE_PREFIXES} (case-insensitive,
 * on a word boundary).
 *
 * @example
 * ```ts
 * hasFailClosedDirective('reconcile the retrospective checkpoint state'); // true
 * hasFailClosedDirective('Reconciliation is optional'); // false
 * ```
 */
export function hasFailClosedDirective(action: string): boolean {
  const a = action.trim().toLowerCase();
  return FAIL_CLOSED_DIRECTIVE_PREFIXES.some((p) => {
    const q = p.toLowerCase();
    return a.startsWith(q) && (a.length === q.length || !/[a-z0-9_-]/.test(a[q.length] as string));
  });
}

/**
 * External healthy-wait budget (`COPILOT_REVIEW_WAIT_TIMEOUT_MS`): 30 minutes.
 *
 * @example
 * ```ts
 * lookupAcceptanceTemplate('copilot_pr_followup', 'watch').needsAttentionAfterMs === COPILOT_REVIEW_WAIT_TIMEOUT_MS; // true
 * ```
 */
export const COPILOT_REVIEW_WAIT_TIMEOUT_MS = 1_800_000;
/**
 * Default `needsAttentionAfterMs` / `activeNoticeAfterMs`: 5 minutes.
 *
 * @example
 * ```ts
 * lookupAcceptanceTemplate('issue_intake', 'default').activeNoticeAfterMs === DEFAULT_ATTENTION_MS; // true
 * ```
 */
export const DEFAULT_ATTENTION_MS = 300_000;

/**
 * Fallback of `maxCopilotRounds` when the merged settings lack `refinement.maxCopilotRounds`.
 *
 * @example
 * ```ts
 * buildHandoffEnvelope(resolver, {}, {}, opts).maxCopilotRounds === DEFAULT_MAX_COPILOT_ROUNDS; // true
 * ```
 */
export const DEFAULT_MAX_COPILOT_ROUNDS = 5;

/**
 * Repo-relative root of loop-owned worktrees.
 *
 * @example
 * ```ts
 * deriveCwd(target, { repoRoot: '/repo' }); // `/repo/${WORKTREE_NAMESPACE}/issue-42`
 * ```
 */
export const WORKTREE_NAMESPACE = 'tmp/worktrees/dev-loops';
