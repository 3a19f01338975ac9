/**
 * The default sanctioned-command map the `handoff envelope build` CLI injects into every envelope
 * (seed 003: a mandatory default of every handoff envelope; the reference's `loop build-envelope`
 * CLI injects its repository's map the same way). The library builder stays consumer-agnostic: it
 * carries only the map its caller passes. The operation names and wrapper paths are the dev-loops
 * layout (`scripts/github/*.mjs`, `scripts/loop/*.mjs`); a repository with other wrappers passes
 * its own map with `--sanctioned FILE`. `examples/envelope/sanctioned-commands.json` is the same map
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
    'pr-facts': 'scripts/github/pr-facts.mjs',
    'ci-status': 'scripts/github/ci-status.mjs',
    'ci-wait': 'scripts/github/ci-wait.mjs',
    'ci-logs': 'scripts/github/ci-logs.mjs',
    'issue-list': 'scripts/github/issue-list.mjs',
    'copilot-review-state': 'scripts/github/copilot-review-state.mjs',
    'review-threads': 'scripts/github/review-threads.mjs',
    'gate-coordination': 'scripts/loop/gate-coordination.mjs',
  },
  edits: {
    'pr-body-title-assignee-milestone': 'scripts/github/pr-edit.mjs',
    'issue-body-title-assignee-milestone': 'scripts/github/issue-edit.mjs',
    'issue-comment': 'scripts/github/issue-comment.mjs',
  },
  lifecycle: {
    'ready-for-review': 'scripts/github/pr-ready.mjs',
    'pr-create': 'scripts/github/pr-create.mjs',
    'copilot-request': 'scripts/github/copilot-request.mjs',
    'reply-resolve-threads': 'scripts/github/reply-resolve-threads.mjs',
    'gate-verdict-comment': 'scripts/loop/gate-verdict-comment.mjs',
  },
  forbidden: [
    'gh pr view',
    'gh pr checks',
    'gh pr edit',
    'node -e',
    'node --input-type=module -e',
    'node -p',
    'python -c',
    'python3 -c',
    'tail -f',
    'sleep',
  ],
  orchestratorOwned: ['gh pr merge', 'scripts/github/merge-pr.mjs', 'board status transition'],
});
