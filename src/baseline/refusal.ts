/**
 * The refusals of the baseline primitive as {@link HandoffError}s: input errors (`usage`,
 * `invalid_record`, `duplicate_path`, `unknown_path`) and operational errors (`io_error`). The
 * CLI maps the codes to its exit statuses (2 input, 4 operational; src/cli/exit-codes.ts).
 */
import { HandoffError } from '../errors/index.js';

/**
 * An input refusal (`usage`, `invalid_record`, `duplicate_path`, `unknown_path`; the CLI exits 2).
 *
 * @example
 * ```ts
 * throw inputRefusal('unknown_path', 'not in the baseline', { unknown: ['/r/x'] });
 * ```
 */
export function inputRefusal(
  code: 'usage' | 'invalid_record' | 'duplicate_path' | 'unknown_path',
  message: string,
  details: Record<string, unknown> = {},
): HandoffError {
  return new HandoffError(code, message, { details });
}

/**
 * An operational refusal (`io_error`; the CLI exits 4): a target exists but is unreadable or not a
 * regular file.
 *
 * @example
 * ```ts
 * throw operationalRefusal('/r/dir: not a regular file', { path: '/r/dir' });
 * ```
 */
export function operationalRefusal(message: string, details: Record<string, unknown> = {}): HandoffError {
  return new HandoffError('io_error', message, { details });
}
