/**
 * Stop-rule derivation: `autonomy.stopAt` when configured, else the strategy default, with `merge`
 * forced under `autonomy.humanMergeOnly`; the terminal reconciliation tuple always stops at
 * `reconcile` (plus `merge` under human-only merge) and ignores both.
 */
import { MERGE_STOP_RULE, RECONCILE_STOP_RULE, type Strategy } from './constants.js';
import type { DevLoopsSettings } from './schema.js';

/**
 * Default stop rules per strategy (used when `autonomy.stopAt` is absent).
 *
 * @example
 * ```ts
 * STRATEGY_DEFAULT_STOP_RULES.copilot_pr_followup; // ['draft-pr', 'merge']
 * ```
 */
export const STRATEGY_DEFAULT_STOP_RULES: Readonly<Record<Strategy, readonly string[]>> = Object.freeze({
  copilot_pr_followup: Object.freeze(['draft-pr', MERGE_STOP_RULE]),
  issue_intake: Object.freeze([MERGE_STOP_RULE]),
  external_pr_followup: Object.freeze([MERGE_STOP_RULE]),
  reviewer_fixer: Object.freeze([MERGE_STOP_RULE]),
  wait_watch: Object.freeze([MERGE_STOP_RULE]),
  final_approval: Object.freeze([MERGE_STOP_RULE]),
  local_implementation: Object.freeze([]),
  ui_review: Object.freeze([
    'no-product-code-writes',
    'worktree-only',
    'outward-review-pending',
    'ack-destructive-migrations',
    MERGE_STOP_RULE,
  ]),
});

/**
 * True only when `autonomy.humanMergeOnly === true`.
 *
 * @example
 * ```ts
 * isHumanMergeOnly({ autonomy: { humanMergeOnly: true } }); // true
 * ```
 */
export function isHumanMergeOnly(settings: DevLoopsSettings): boolean {
  return settings.autonomy?.humanMergeOnly === true;
}

function withForcedMerge(rules: string[], settings: DevLoopsSettings): string[] {
  if (isHumanMergeOnly(settings) && !rules.includes(MERGE_STOP_RULE)) rules.push(MERGE_STOP_RULE);
  return rules;
}

/**
 * Stop rules of routed work.
 *
 * @example
 * ```ts
 * deriveStopRules({}, 'local_implementation'); // []
 * deriveStopRules({ autonomy: { stopAt: [], humanMergeOnly: true } }, 'wait_watch'); // ['merge']
 * ```
 */
export function deriveStopRules(settings: DevLoopsSettings, strategy: string): string[] {
  const configured = settings.autonomy?.stopAt;
  const base = Array.isArray(configured)
    ? [...configured]
    : [
        ...(Object.hasOwn(STRATEGY_DEFAULT_STOP_RULES, strategy)
          ? STRATEGY_DEFAULT_STOP_RULES[strategy as Strategy]
          : []),
      ];
  return withForcedMerge(base, settings);
}

/**
 * Stop rules of the terminal reconciliation tuple: `['reconcile']`, plus `'merge'` only under
 * human-only merge. `autonomy.stopAt` is ignored.
 *
 * @example
 * ```ts
 * reconcileStopRules({ autonomy: { stopAt: ['draft-pr'] } }); // ['reconcile']
 * ```
 */
export function reconcileStopRules(settings: DevLoopsSettings): string[] {
  return withForcedMerge([RECONCILE_STOP_RULE], settings);
}
