/**
 * What a checked tool call returns to the calling agent (layer 3, adapter): the delegation's
 * outcome, the one valid run-contract/v1 handoff, the failed checks and the journal cite — also
 * when the call was refused before anything ran (its arguments, the rerun guard).
 */
import type { Handoff } from '../../contract/index.js';
import type { DelegateOutcome } from '../../delegate/settle-rules.js';
import type { DelegateCheck } from '../../delegate/violations.js';

/**
 * The checks a tool call can fail: every check of `delegate` (`DELEGATE_CHECKS`), plus two the
 * tool applies before dispatching — `arguments` (the call's arguments do not make a task inside the
 * tool's root: an escaping path, a link, a file the tool does not allow, an invalid task) and
 * `rerun_guard` (the same task again after a refusal or a blocker, with no new evidence).
 *
 * @example
 * ```ts
 * const c: ToolCheck = 'arguments';
 * ```
 */
export type ToolCheck = DelegateCheck | 'arguments' | 'rerun_guard';

/**
 * One failed check of a tool call.
 *
 * @example
 * ```ts
 * const v: ToolViolation = { check: 'arguments', detail: 'owned file ../etc/passwd is outside /repo' };
 * ```
 */
export interface ToolViolation {
  readonly check: ToolCheck;
  readonly detail: string;
}

/**
 * The result of one checked tool call — the tool's output as the SDK records it
 * (`RunToolCallOutputItem.output`), and, as JSON, what the calling model reads.
 *
 * - `outcome`: `accepted` (every check passed: the worker's own handoff), `refused` (a check
 *   failed, or the arguments or the rerun guard stopped the call before dispatch), `failed` (the
 *   worker gave no answer to check: it threw, timed out, ran out of turns, its output was not a
 *   handoff, or it stopped itself on an error).
 * - `handoff`: always a valid run-contract/v1 handoff; the runtime's own unless `accepted`.
 * - `cite`: `<run_id>#<seq>` of the journaled handoff when the tool has a store, else null.
 *
 * @example
 * ```ts
 * const r: CheckedToolResult = { outcome: 'accepted', handoff, violations: [], cite: '20261201T100000Z-0a1b2c3d#1' };
 * ```
 */
export interface CheckedToolResult {
  readonly outcome: DelegateOutcome;
  readonly handoff: Handoff;
  readonly violations: readonly ToolViolation[];
  readonly cite: string | null;
}
