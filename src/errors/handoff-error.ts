/**
 * The one error type of handoff-runtime. Every refusal that is thrown (rather than returned as a
 * result record) is a {@link HandoffError} with a machine-readable `code` from the closed
 * catalogue in `error-codes.ts`; failure classes (`SeamError`, `EvaluatorFailure`, `StepFailure`)
 * extend it. A library error never names a process exit code: mapping codes to exit statuses is
 * the CLI's concern (src/cli/exit-codes.ts).
 */
import type { HandoffErrorCode } from './error-codes.js';

/** Brand used by {@link isHandoffError}; survives duplicated module copies via the global symbol registry. */
export const HANDOFF_ERROR_BRAND: unique symbol = Symbol.for('handoff-runtime.HandoffError') as never;

/** Options for constructing a {@link HandoffError}. */
export interface HandoffErrorOptions {
  /** Structured, JSON-clean details (paths, fields, observed values). */
  readonly details?: Record<string, unknown>;
  /** The underlying error, if any. */
  readonly cause?: unknown;
}

/**
 * Base error of the runtime.
 *
 * @example
 * ```ts
 * throw new HandoffError('busy', 'run is locked by another mutation', { details: { run_id } });
 * ```
 */
export class HandoffError extends Error {
  /** Brand for cross-realm detection. */
  readonly [HANDOFF_ERROR_BRAND] = true;
  /** Machine-readable code (see {@link HandoffErrorCode}). */
  readonly code: HandoffErrorCode;
  /** Structured details; always an object. */
  readonly details: Record<string, unknown>;

  constructor(code: HandoffErrorCode, message: string, options: HandoffErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'HandoffError';
    this.code = code;
    this.details = options.details ?? {};
  }

  /** JSON form: `{ name, code, message, details }`. */
  toJSON(): { name: string; code: string; message: string; details: Record<string, unknown> } {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

/**
 * True when `value` is a {@link HandoffError} (by brand, so it works across module copies).
 *
 * @example
 * ```ts
 * try { … } catch (e) { if (isHandoffError(e) && e.code === 'busy') retry(); }
 * ```
 */
export function isHandoffError(value: unknown): value is HandoffError {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[HANDOFF_ERROR_BRAND] === true
  );
}
