/**
 * An {@link EvaluatorPort} behind an HTTP(S) endpoint (a model behind an API): POSTs the
 * `gate-evaluator-request/v1` JSON once, under one deadline — the runner's abort signal, and
 * `timeoutMs` as its own (`AbortSignal.timeout`) — with no retries and no redirects followed (a
 * redirect is `unavailable`: the token never travels to another address). The answer maps through
 * the subprocess evaluator's one mapping ({@link evaluatorVerdict}): the deadline is `timeout`, a
 * connection that fails is `unavailable`, a non-2xx status is `unavailable` unless its body reports
 * `{"error": {"kind": "no-key"}}`, a body that is not JSON (or larger than the limit) is
 * `invalid-data`. An optional bearer token is read from the environment variable `tokenEnv` names:
 * unset or empty is `no-key` before any request. The token is sent only in the `Authorization`
 * header; it is never in the port's id, and every failure detail has it replaced by `[redacted]`.
 */
import { EvaluatorFailure, type EvaluatorPort } from './evaluator.js';
import { evaluatorVerdict } from './evaluator-reply.js';

/**
 * Options of {@link httpEvaluator}.
 *
 * @example
 * ```ts
 * const options: HttpEvaluatorOptions = { timeoutMs: 10_000, tokenEnv: 'EVAL_TOKEN' };
 * ```
 */
export interface HttpEvaluatorOptions {
  /** The request's own deadline in ms (`AbortSignal.timeout`), besides the runner's; default: the runner's only. */
  readonly timeoutMs?: number | undefined;
  /** The NAME of the environment variable holding a bearer token (never the token itself). */
  readonly tokenEnv?: string | undefined;
  /** Where `tokenEnv` is read (default `process.env`). */
  readonly env?: Readonly<Record<string, string | undefined>> | undefined;
  /** Maximum characters read from the body (default 8 MiB); more is invalid data. */
  readonly maxOutputBytes?: number | undefined;
}

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/**
 * Whether `text` names an HTTP evaluator (`http://…` or `https://…`) rather than a command.
 *
 * @example
 * ```ts
 * isHttpEvaluator('https://eval.example/v1/assess'); // true
 * isHttpEvaluator('node'); // false
 * ```
 */
export function isHttpEvaluator(text: string): boolean {
  return /^https?:\/\//i.test(text);
}

/** Replaces every occurrence of `secret` in `text`. */
function redact(text: string, secret: string | null): string {
  return secret === null || secret === '' ? text : text.split(secret).join('[redacted]');
}

/** Reads at most `limit` characters of the body; `truncated` when there was more. */
async function readBody(res: Response, limit: number): Promise<{ body: string; truncated: boolean }> {
  if (res.body === null) return { body: '', truncated: false };
  const reader = res.body.getReader();
  const decoder = new TextDecoder();
  let body = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    body += decoder.decode(value, { stream: true });
    if (body.length > limit) {
      await reader.cancel().catch(() => {});
      return { body: body.slice(0, limit), truncated: true };
    }
  }
  return { body: body + decoder.decode(), truncated: false };
}

/**
 * Creates an HTTP evaluator for `url`.
 *
 * @example
 * ```ts
 * const port = httpEvaluator('https://eval.example/v1/assess', { timeoutMs: 10_000, tokenEnv: 'EVAL_TOKEN' });
 * const a = await runEvaluator({ port, request, deadlineMs: 10_000, now });
 * ```
 * @throws TypeError when `url` is not an http(s) URL, carries credentials, or `tokenEnv` is not a variable name.
 */
export function httpEvaluator(url: string, options: HttpEvaluatorOptions = {}): EvaluatorPort {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    throw new TypeError(`httpEvaluator needs an http(s) URL, got ${JSON.stringify(url)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new TypeError(`httpEvaluator needs an http(s) URL, got ${u.protocol}`);
  if (u.username !== '' || u.password !== '')
    throw new TypeError('httpEvaluator: put no credentials in the URL (use tokenEnv)');
  const tokenEnv = options.tokenEnv;
  if (tokenEnv !== undefined && !ENV_NAME.test(tokenEnv))
    throw new TypeError(
      `httpEvaluator: tokenEnv must name an environment variable, got ${JSON.stringify(tokenEnv)}`,
    );
  const timeoutMs = options.timeoutMs;
  if (timeoutMs !== undefined && (!Number.isInteger(timeoutMs) || timeoutMs < 1))
    throw new TypeError('httpEvaluator: timeoutMs must be a positive integer');
  const limit = options.maxOutputBytes ?? 8 * 1024 * 1024;
  const target = u.href;
  // no query (it may carry a key) and no fragment in the id recorded on assessments
  const id = `http:${u.origin}${u.pathname}`;
  return {
    id,
    async evaluate(request, { signal }) {
      let token: string | null = null;
      if (tokenEnv !== undefined) {
        const v = (options.env ?? process.env)[tokenEnv];
        if (v === undefined || v === '')
          throw new EvaluatorFailure('no-key', `no evaluator token: $${tokenEnv} is not set`);
        token = v;
      }
      const deadline =
        timeoutMs === undefined ? signal : AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);
      const timedOut = () => new EvaluatorFailure('timeout', `no answer from ${id} by the deadline`);
      try {
        let res: Response;
        try {
          res = await fetch(target, {
            method: 'POST',
            headers: {
              'content-type': 'application/json',
              accept: 'application/json',
              ...(token === null ? {} : { authorization: `Bearer ${token}` }),
            },
            body: JSON.stringify(request),
            signal: deadline,
            redirect: 'error',
          });
        } catch (e) {
          if (deadline.aborted) throw timedOut();
          const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause;
          const why = String(cause?.code ?? cause?.message ?? (e as Error).message);
          return evaluatorVerdict({
            unreachable: `cannot reach evaluator ${id}: ${why}`,
            truncated: false,
            limit,
            source: 'response body',
            body: '',
            failed: null,
          });
        }
        let read: { body: string; truncated: boolean };
        try {
          read = await readBody(res, limit);
        } catch (e) {
          if (deadline.aborted) throw timedOut();
          throw new EvaluatorFailure(
            'unavailable',
            `evaluator ${id}: the answer broke off: ${(e as Error).message}`,
          );
        }
        const excerpt = read.body.trim().slice(0, 500);
        return evaluatorVerdict({
          unreachable: null,
          truncated: read.truncated,
          limit,
          source: 'response body',
          body: read.body,
          failed: res.ok ? null : `evaluator answered HTTP ${res.status}${excerpt ? `: ${excerpt}` : ''}`,
        });
      } catch (e) {
        if (e instanceof EvaluatorFailure) throw new EvaluatorFailure(e.kind, redact(e.message, token));
        throw new EvaluatorFailure(
          'unavailable',
          redact(`evaluator ${id} failed: ${(e as Error)?.message ?? String(e)}`, token),
        );
      }
    },
  };
}
