/**
 * `ClaudeSubagentError`: a subagent run that ended without an answer (layer 0, records). The
 * stage adapter throws it (the seam makes it `stage_failed`) and the worker adapter throws it (the
 * delegation makes it an `operational-error` stop); its message is the detail both quote.
 */

/**
 * Why a subagent run gave no answer:
 * - `threw` — the query (or reading a message) threw or rejected;
 * - `aborted` — the signal, or the `abortController` you passed in the SDK options, was aborted
 *   (a time limit, the host) before a result arrived;
 * - `no_result` — the stream ended without a `result` message;
 * - `error_result` — the result was an error subtype (`error_max_turns`, `error_during_execution`,
 *   `error_max_budget_usd`, `error_max_structured_output_retries`), or `success` with `is_error`;
 * - `bad_result` — the result message is not the SDK's shape (no `result` text, unreadable
 *   `structured_output`);
 * - `too_many_messages` — more messages than the limit before the result;
 * - `result_too_large` — the final text (or structured output as JSON) is longer than the limit.
 *
 * @example
 * ```ts
 * const r: SubagentFailureReason = 'error_result';
 * ```
 */
export type SubagentFailureReason =
  | 'threw'
  | 'aborted'
  | 'no_result'
  | 'error_result'
  | 'bad_result'
  | 'too_many_messages'
  | 'result_too_large';

/**
 * A subagent run that ended without an answer. `name` is `ClaudeSubagentError`, so a seam's
 * `stage_failed` detail reads `ClaudeSubagentError: <message>`.
 *
 * @example
 * ```ts
 * throw new ClaudeSubagentError('no_result', 'the query ended without a result message');
 * ```
 */
export class ClaudeSubagentError extends Error {
  /** Why the run gave no answer. */
  readonly reason: SubagentFailureReason;

  constructor(reason: SubagentFailureReason, message: string) {
    super(message);
    this.name = 'ClaudeSubagentError';
    this.reason = reason;
  }
}
