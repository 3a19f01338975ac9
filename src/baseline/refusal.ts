/**
 * The refusals of the baseline primitive as {@link HandoffError}s: input errors carry
 * `details.exit_code` 2, operational errors 4, drift 3 — the CLI's exit codes.
 */
import { HandoffError } from '../errors/index.js';

/** Exit code of input errors (usage, malformed baseline, unknown path, duplicates). */
export const EXIT_INPUT = 2;
/** Exit code of drift. */
export const EXIT_DRIFT = 3;
/** Exit code of operational errors (a target exists but cannot be baselined). */
export const EXIT_OPERATIONAL = 4;

/**
 * An input refusal (`usage`, `invalid_record`, `duplicate_path`, `unknown_path`) with exit code 2.
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
  return new HandoffError(code, message, { details: { ...details, exit_code: EXIT_INPUT } });
}

/**
 * An operational refusal (`io_error`) with exit code 4: a target exists but is unreadable or not a
 * regular file.
 *
 * @example
 * ```ts
 * throw operationalRefusal('/r/dir: not a regular file', { path: '/r/dir' });
 * ```
 */
export function operationalRefusal(message: string, details: Record<string, unknown> = {}): HandoffError {
  return new HandoffError('io_error', message, { details: { ...details, exit_code: EXIT_OPERATIONAL } });
}
