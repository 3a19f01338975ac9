/**
 * The static strategy + gate → acceptance/control template table, and the lookup that fails
 * closed on an unknown combination (listing every known one).
 */
import {
  COPILOT_REVIEW_WAIT_TIMEOUT_MS,
  DEFAULT_ATTENTION_MS,
  DEFAULT_GATE,
  PHASE_DOC_PHRASE,
  RECONCILE_CRITERION_ID,
  RECONCILE_TUPLE,
  SPIKE_GATE,
} from './constants.js';
import { envelopeError } from './errors.js';
import type { AcceptanceCriterion } from './schema.js';

/** One row of the template table. */
export interface AcceptanceTemplate {
  readonly criteria: readonly Readonly<AcceptanceCriterion>[];
  readonly evidence: readonly string[];
  readonly maxFinalizationTurns: number;
  readonly needsAttentionAfterMs: number;
  readonly activeNoticeAfterMs: number;
}

/**
 * The table key of a strategy + gate (`strategy::gate`; a `null` strategy keys as `null`).
 *
 * @example
 * ```ts
 * acceptanceKey('copilot_pr_followup', 'draft'); // 'copilot_pr_followup::draft'
 * acceptanceKey(null, 'fail_closed_reconcile'); // 'null::fail_closed_reconcile'
 * ```
 */
export function acceptanceKey(strategy: string | null, gate: string): string {
  return `${strategy === null ? 'null' : strategy}::${gate}`;
}

const required = (id: string, must: string): AcceptanceCriterion => ({ id, must, severity: 'required' });

const CONTRACT_COMPLIANCE = required(
  'contract-compliance',
  'The work satisfies the governing contract and its acceptance criteria.',
);
const CI_GREEN = required('ci-green', 'CI is green on the current head commit.');
const VERIFY_GREEN = required('verify-green', 'The project verification command passes without failures.');
const BASE_EVIDENCE = ['commands-run', 'validation-output'] as const;
const LOCAL_EVIDENCE = ['commands-run', 'validation-output', 'changed-files'] as const;
const DRAFT_EVIDENCE = ['commands-run', 'validation-output', 'review-findings'] as const;

function row(
  criteria: readonly AcceptanceCriterion[],
  evidence: readonly string[],
  maxFinalizationTurns: number,
  attentionMs: number = DEFAULT_ATTENTION_MS,
): AcceptanceTemplate {
  return {
    criteria,
    evidence,
    maxFinalizationTurns,
    needsAttentionAfterMs: attentionMs,
    activeNoticeAfterMs: attentionMs,
  };
}

function deepFreezeTemplate(t: AcceptanceTemplate): AcceptanceTemplate {
  for (const c of t.criteria) Object.freeze(c);
  Object.freeze(t.criteria);
  Object.freeze(t.evidence);
  return Object.freeze(t);
}

const UI_REVIEW_CRITERIA = [
  required('no-product-code-writes', 'No product code is written; the review only observes the running app.'),
  required('worktree-only', 'Every write stays inside the isolated worktree.'),
  required('outward-review-pending', 'Outward review stays pending or draft; nothing is approved or merged.'),
  required('ack-destructive-migrations', 'Destructive migrations are acknowledged before they run.'),
];

const rows: ReadonlyArray<readonly [string | null, string, AcceptanceTemplate]> = [
  [
    'copilot_pr_followup',
    'draft',
    row(
      [
        required('ac-check', 'Every acceptance criterion of the linked issue is met or explicitly tracked.'),
        required('scope', 'Every changed file belongs to this change; nothing unrelated rides along.'),
        required('coverage', 'Tests cover the changed behaviour, including edge cases and error paths.'),
        required('dod-alignment', "The implementation matches the issue's definition of done."),
      ],
      DRAFT_EVIDENCE,
      4,
    ),
  ],
  [
    'copilot_pr_followup',
    'watch',
    row(
      [
        required('copilot-activity', 'New Copilot review activity (comments, threads, reviews) is detected.'),
        required(
          'no-stuck-watch',
          'The watch never stalls: a timeout or new activity triggers the follow-up.',
        ),
      ],
      ['commands-run'],
      2,
      COPILOT_REVIEW_WAIT_TIMEOUT_MS,
    ),
  ],
  [
    'copilot_pr_followup',
    'pre-approval',
    row(
      [
        required('full-gate-chain', 'The pre-approval gate chain ran with every configured review angle.'),
        required('clean-verdict', 'The pre-approval gate returned a clean verdict (no blocking findings).'),
        required('unresolved-threads', 'Every review thread is resolved before the pre-approval gate runs.'),
        CI_GREEN,
      ],
      [...DRAFT_EVIDENCE, 'residual-risks'],
      6,
    ),
  ],
  [
    'final_approval',
    DEFAULT_GATE,
    row(
      [
        required('gate-evidence', 'All required gate evidence (draft and pre-approval gates) is present.'),
        required('human-confirmation', 'A human operator explicitly confirms merge readiness.'),
        CI_GREEN,
      ],
      ['validation-output', 'manual-notes'],
      2,
    ),
  ],
  [
    'local_implementation',
    DEFAULT_GATE,
    row(
      [
        required('phase-ac', `Every phase acceptance criterion ${PHASE_DOC_PHRASE} is satisfied.`),
        VERIFY_GREEN,
      ],
      LOCAL_EVIDENCE,
      6,
    ),
  ],
  [
    'local_implementation',
    SPIKE_GATE,
    row(
      [
        required('spike-recorded', 'The spike findings are recorded in the spike findings document.'),
        VERIFY_GREEN,
      ],
      LOCAL_EVIDENCE,
      6,
    ),
  ],
  ['issue_intake', DEFAULT_GATE, row([CONTRACT_COMPLIANCE], BASE_EVIDENCE, 4)],
  ['external_pr_followup', DEFAULT_GATE, row([CONTRACT_COMPLIANCE], BASE_EVIDENCE, 4)],
  ['reviewer_fixer', DEFAULT_GATE, row([CONTRACT_COMPLIANCE], BASE_EVIDENCE, 4)],
  ['wait_watch', DEFAULT_GATE, row([CONTRACT_COMPLIANCE], BASE_EVIDENCE, 4, COPILOT_REVIEW_WAIT_TIMEOUT_MS)],
  ['ui_review', DEFAULT_GATE, row(UI_REVIEW_CRITERIA, BASE_EVIDENCE, 4)],
  [
    RECONCILE_TUPLE.selectedStrategy,
    RECONCILE_TUPLE.selectedGate,
    row(
      [
        required(
          RECONCILE_CRITERION_ID,
          'Reconcile the authoritative state before any routing; no strategy runs until it succeeds.',
        ),
      ],
      BASE_EVIDENCE,
      1,
    ),
  ],
];

/**
 * The template table, keyed by {@link acceptanceKey}. Deep-frozen.
 *
 * @example
 * ```ts
 * ACCEPTANCE_TEMPLATES.get('wait_watch::default')?.needsAttentionAfterMs; // 1800000
 * ```
 */
export const ACCEPTANCE_TEMPLATES: ReadonlyMap<string, AcceptanceTemplate> = new Map(
  rows.map(([s, g, t]) => [acceptanceKey(s, g), deepFreezeTemplate(t)] as const),
);

/**
 * Every known `strategy::gate` key, in table order.
 *
 * @example
 * ```ts
 * knownAcceptanceCombos().includes('null::fail_closed_reconcile'); // true
 * ```
 */
export function knownAcceptanceCombos(): string[] {
  return [...ACCEPTANCE_TEMPLATES.keys()];
}

/**
 * Looks up the template of a strategy + gate.
 *
 * @example
 * ```ts
 * lookupAcceptanceTemplate('copilot_pr_followup', 'watch').maxFinalizationTurns; // 2
 * ```
 * @throws HandoffError `envelope_unknown_template` listing every known combination.
 */
export function lookupAcceptanceTemplate(strategy: string | null, gate: string): AcceptanceTemplate {
  const key = acceptanceKey(strategy, gate);
  const template = ACCEPTANCE_TEMPLATES.get(key);
  if (template === undefined) {
    const known = knownAcceptanceCombos();
    throw envelopeError(
      'envelope_unknown_template',
      `no acceptance template for strategy "${String(strategy)}" + gate "${gate}". Known combos: ${known.join(', ')}`,
      { strategy, gate, known },
    );
  }
  return template;
}
