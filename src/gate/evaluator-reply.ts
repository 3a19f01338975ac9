/**
 * How an evaluator's answer maps to a response or an {@link EvaluatorFailure} (pure): the one
 * mapping of every transport (the subprocess evaluator's stdout and exit code, the HTTP
 * evaluator's body and status). No answer at all is `unavailable`; an answer cut at the size limit
 * is `invalid-data`; a body `{"error": {"kind": "no-key"|…, "detail"}}` reports that failure (any
 * kind but `no-key` is `unavailable`) whatever the status; a failed transport status (a non-zero
 * exit, a non-2xx answer) without such a body is `unavailable`; a body that is not JSON is
 * `invalid-data`. The timeout is the caller's (its deadline's abort signal), never read here.
 */
import { EvaluatorFailure } from './evaluator.js';

/**
 * One evaluator answer, as a transport received it.
 *
 * @example
 * ```ts
 * const reply: EvaluatorReply = { unreachable: null, truncated: false, limit: 1024, source: 'stdout',
 *   body: '{"claims": []}', failed: null };
 * ```
 */
export interface EvaluatorReply {
  /** Why no answer was received at all (cannot start, cannot connect): the failure's detail; else null. */
  readonly unreachable: string | null;
  /** The answer was cut at `limit` characters. */
  readonly truncated: boolean;
  /** The size limit the answer was read under. */
  readonly limit: number;
  /** What the answer is called in a detail (`stdout`, `response body`). */
  readonly source: string;
  /** The answer's text. */
  readonly body: string;
  /** How the transport says the answer failed (a non-zero exit, a non-2xx status), or null when it did not. */
  readonly failed: string | null;
}

/**
 * The parsed response of a reply, or the {@link EvaluatorFailure} it maps to (thrown: a port
 * reports failures by throwing them).
 *
 * @example
 * ```ts
 * const raw = evaluatorVerdict({ unreachable: null, truncated: false, limit: 8 << 20,
 *   source: 'response body', body: text, failed: res.ok ? null : `evaluator answered HTTP ${res.status}` });
 * ```
 * @throws EvaluatorFailure `unavailable`, `no-key` or `invalid-data`.
 */
export function evaluatorVerdict(r: EvaluatorReply): unknown {
  if (r.unreachable !== null) throw new EvaluatorFailure('unavailable', r.unreachable);
  if (r.truncated) throw new EvaluatorFailure('invalid-data', `evaluator output exceeds ${r.limit} bytes`);
  let parsed: unknown;
  let parseError: string | null = null;
  try {
    parsed = JSON.parse(r.body.trim());
  } catch (e) {
    parseError = (e as Error).message;
  }
  const err = (parsed as { error?: { kind?: unknown; detail?: unknown } } | undefined)?.error;
  if (err !== undefined && typeof err === 'object' && err !== null) {
    const kind = err.kind === 'no-key' ? 'no-key' : 'unavailable';
    throw new EvaluatorFailure(kind, String(err.detail ?? 'evaluator reported an error'));
  }
  if (r.failed !== null) throw new EvaluatorFailure('unavailable', r.failed);
  if (parseError !== null)
    throw new EvaluatorFailure('invalid-data', `evaluator ${r.source} is not JSON: ${parseError}`);
  return parsed;
}
