/**
 * The one error type of handoff-runtime. Every refusal that is thrown (rather than returned as a
 * result record) is a {@link HandoffError} with a machine-readable `code` from the specs.
 */

/** Brand used by {@link isHandoffError}; survives duplicated module copies via the global symbol registry. */
export const HANDOFF_ERROR_BRAND: unique symbol = Symbol.for('handoff-runtime.HandoffError') as never;

/**
 * Error codes used across the runtime. Each code is taken from a spec (store refusals, persist
 * startup codes, seam codes, …) or names a generic failure class of this runtime.
 */
export type HandoffErrorCode =
  // generic
  | 'usage'
  | 'invalid_input'
  | 'invalid_record'
  | 'canonical_unsupported'
  | 'internal'
  | 'io_error'
  // run-contract
  | 'rerun_forbidden'
  | 'protocol_error'
  // custody
  | 'custody_violation'
  | 'drift'
  | 'unknown_path'
  | 'duplicate_path'
  // store
  | 'busy'
  | 'journal_damaged'
  | 'containment'
  | 'bad_run_id'
  | 'no_such_run'
  // open for other modules' spec codes
  | (string & {});

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
