/**
 * The default sanctioned-command map the `handoff envelope build` CLI injects into every envelope
 * (seed 003: a mandatory default of every handoff envelope; the reference's `loop build-envelope`
 * CLI injects its repository's map the same way). The library builder stays consumer-agnostic: it
 * carries only the map its caller passes. It is the dev-loops repository's own map
 * (`scripts/loop/sanctioned-commands.mjs` in mfittko/dev-loops, issue 34): the same operations, the
 * same 19 wrapper paths, the same forbidden and orchestrator-owned entries, in the same order; a
 * repository with other wrappers passes its own map with `--sanctioned FILE`. `examples/envelope/sanctioned-commands.json` is the same map
 * as a file (a test keeps the two equal).
 */
import { deepFreeze } from '../canonical/index.js';
import type { SanctionedCommands } from './schema.js';

/**
 * The CLI's default sanctioned-command map (deep-frozen; key order is the order it is delivered in).
 *
 * @example
 * ```ts
 * DEFAULT_SANCTIONED_COMMANDS.orchestratorOwned; // ['gh pr merge', …]
 * ```
 */
export const DEFAULT_SANCTIONED_COMMANDS: Readonly<SanctionedCommands> = deepFreeze<SanctionedCommands>({
  reads: {
    'pr-facts': 'scripts/github/view-pr.mjs',
    'ci-status': 'scripts/github/probe-ci-status.mjs',
    'ci-wait': 'scripts/github/wait-pr-checks.mjs',
    'ci-logs': 'scripts/github/fetch-ci-logs.mjs',
    'issue-list': 'scripts/github/list-issues.mjs',
    'issue-facts': 'scripts/github/view-issue.mjs',
    'copilot-review-state': 'scripts/github/probe-copilot-review.mjs',
    'review-threads': 'scripts/github/list-review-threads.mjs',
    'gate-coordination': 'scripts/loop/detect-pr-gate-coordination-state.mjs',
  },
  edits: {
    'pr-body-title-assignee-milestone': 'scripts/github/edit-pr.mjs',
    'issue-body-title-assignee-milestone': 'scripts/github/edit-issue.mjs',
    'issue-comment': 'scripts/github/comment-issue.mjs',
    'issue-create': 'scripts/github/create-issue.mjs',
  },
  lifecycle: {
    'ready-for-review': 'scripts/github/ready-for-review.mjs',
    'pr-create': 'scripts/github/create-pr.mjs',
    'copilot-request': 'scripts/github/request-copilot-review.mjs',
    'reply-resolve-thread': 'scripts/github/reply-resolve-review-thread.mjs',
    'reply-resolve-threads': 'scripts/github/reply-resolve-review-threads.mjs',
    'gate-verdict-comment': 'scripts/github/upsert-checkpoint-verdict.mjs',
  },
  forbidden: [
    'gh pr view',
    'gh pr checks',
    'gh pr edit',
    'gh issue view',
    'node -e',
    'node --input-type=module -e',
    'node -p',
    'python -c',
    'python3 -c',
    'tailing subagent transcripts',
    'sleep-poll loops',
  ],
  orchestratorOwned: [
    'gh pr merge',
    'board status transitions (move-queue-item / sync-item-status.mjs; current batch model)',
  ],
});
