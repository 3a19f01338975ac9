/**
 * The one error of a failed durable step: which step (named by the caller's label, e.g.
 * `cache_tmp_fsync`), how many bytes reached the file, and the underlying Node error.
 */
import { HandoffError } from '../errors/index.js';
import { errnoOf } from './errno.js';

/**
 * A failed step: a {@link HandoffError} with code `io_error`, the step's name, how many bytes of
 * the target reached the file, and the cause (`details.step`, `details.bytes_written`).
 *
 * @example
 * ```ts
 * throw new StepFailure('fsync', err, written);
 * ```
 */
export class StepFailure extends HandoffError {
  constructor(
    readonly step: string,
    override readonly cause: unknown,
    readonly bytesWritten = 0,
  ) {
    super('io_error', `${step} failed: ${errnoOf(cause) || String((cause as Error)?.message ?? cause)}`, {
      details: { step, bytes_written: bytesWritten },
      cause,
    });
    this.name = 'StepFailure';
  }
}

/**
 * The underlying error of a {@link StepFailure} (the Node error with its `code`), or `e` itself.
 * For callers whose contract is to throw the raw file-system error.
 *
 * @example
 * ```ts
 * try { publishFile(fsl, file, data); } catch (e) { throw causeOf(e); } // e.g. EACCES, not io_error
 * ```
 */
export function causeOf(e: unknown): unknown {
  return e instanceof StepFailure ? e.cause : e;
}
