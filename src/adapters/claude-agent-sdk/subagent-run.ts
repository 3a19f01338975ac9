/**
 * Running one Claude subagent to its final message (layer 3, effects): call `query` with the
 * prompt and an AbortController of the adapter's own, read the message stream until the first
 * `result` message, close the stream there, and read that message into an answer. Every way a
 * stream can misbehave — throw, end early, never end, flood, answer too much, keep talking after
 * its result — ends as a value; this never rejects.
 */
import type { Options } from '@anthropic-ai/claude-agent-sdk';
import { HandoffError } from '../../errors/index.js';
import { parseAnswerText } from './answer-text.js';
import { type ClaudeQuery, loadClaudeQuery } from './query.js';
import { ClaudeSubagentError, type SubagentFailureReason } from './subagent-error.js';

/**
 * Bounds of one subagent run.
 *
 * @example
 * ```ts
 * const limits: SubagentLimits = { maxMessages: 2_000, maxResultChars: 64 * 1024 };
 * ```
 */
export interface SubagentLimits {
  /**
   * Messages read, the result included (default 10,000): a stream that has not sent its result
   * by then ends as `too_many_messages`.
   */
  readonly maxMessages?: number;
  /** Characters of the final text, or of the structured output as JSON (default 1,048,576). */
  readonly maxResultChars?: number;
}

/**
 * Default bounds of a run.
 *
 * @example
 * ```ts
 * DEFAULT_SUBAGENT_LIMITS.maxResultChars; // 1048576
 * ```
 */
export const DEFAULT_SUBAGENT_LIMITS: Required<SubagentLimits> = Object.freeze({
  maxMessages: 10_000,
  maxResultChars: 1_048_576,
});

/**
 * A subagent run that ended with a `success` result: its answer and what the result said about
 * the run. `answer` is the result's `structured_output` when present (as plain JSON), else its
 * `result` text parsed as JSON (`format: 'json'`), else that text itself (`format: 'text'`).
 *
 * @example
 * ```ts
 * const run: SubagentRun = { answer: { facts: [], artifact_refs: [] }, format: 'json', session_id: 's-1', num_turns: 2, total_cost_usd: 0.01, messages: 5 };
 * ```
 */
export interface SubagentRun {
  readonly answer: unknown;
  readonly format: 'structured' | 'json' | 'text';
  /** The session id the stream reported (first message carrying one), or null. */
  readonly session_id: string | null;
  /** `num_turns` of the result, when a number. */
  readonly num_turns: number | null;
  /** `total_cost_usd` of the result, when a number. */
  readonly total_cost_usd: number | null;
  /** Messages read, the result included. */
  readonly messages: number;
}

/**
 * What {@link runSubagent} resolves to.
 *
 * @example
 * ```ts
 * const out = await runSubagent({ query, prompt: 'hi', signal });
 * if (!out.ok) console.error(out.error.reason, out.error.message);
 * ```
 */
export type SubagentOutcome =
  | { readonly ok: true; readonly run: SubagentRun }
  | { readonly ok: false; readonly error: ClaudeSubagentError };

/**
 * What {@link runSubagent} needs.
 *
 * @example
 * ```ts
 * const input: RunSubagentInput = { query, prompt: 'Answer with JSON', options: { maxTurns: 4 }, signal };
 * ```
 */
export interface RunSubagentInput {
  /** The SDK's `query` or a stand-in; undefined loads the SDK's own on first use. */
  readonly query?: ClaudeQuery | undefined;
  readonly prompt: string;
  /** SDK options; `abortController` is replaced by the adapter's own (aborting yours aborts it). */
  readonly options?: Options | undefined;
  /** Aborting it ends the run as `aborted` and aborts the SDK's controller. */
  readonly signal: AbortSignal;
  readonly limits?: SubagentLimits | undefined;
}

const DETAIL_CHARS = 300;
const CLOSE_GRACE_MS = 250;
const ABORTED = Symbol('aborted');

function clip(text: string, max = DETAIL_CHARS): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

function describe(e: unknown): string {
  try {
    if (e instanceof Error) return clip(`${e.name}: ${e.message}`);
    return clip(String(e));
  } catch {
    return 'a value that could not be described';
  }
}

/**
 * Checks {@link SubagentLimits} (positive integers) and fills in the defaults.
 *
 * @example
 * ```ts
 * subagentLimits({ maxMessages: 50 }); // { maxMessages: 50, maxResultChars: 1048576 }
 * ```
 * @throws HandoffError `usage` for a limit that is not a positive integer.
 */
export function subagentLimits(limits: SubagentLimits = {}): Required<SubagentLimits> {
  const out = { ...DEFAULT_SUBAGENT_LIMITS, ...limits };
  for (const [k, v] of Object.entries(out)) {
    if (!(Number.isSafeInteger(v) && v >= 1))
      throw new HandoffError('usage', `${k} must be a positive integer, got ${String(v)}`);
  }
  return out;
}

function field(m: unknown, key: string): unknown {
  return typeof m === 'object' && m !== null ? (m as Record<string, unknown>)[key] : undefined;
}

function numberOr(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}

/** Reads a `result` message into an outcome (it may be a hostile object: every read is guarded). */
function readResult(
  m: unknown,
  base: { session_id: string | null; messages: number },
  max: number,
): SubagentOutcome {
  const fail = (reason: SubagentFailureReason, detail: string): SubagentOutcome => ({
    ok: false,
    error: new ClaudeSubagentError(reason, detail),
  });
  const subtype = field(m, 'subtype');
  const isError = field(m, 'is_error');
  const turns = numberOr(field(m, 'num_turns'));
  const run = {
    session_id: base.session_id,
    messages: base.messages,
    num_turns: turns,
    total_cost_usd: numberOr(field(m, 'total_cost_usd')),
  };
  const after = turns === null ? '' : ` after ${turns} turn(s)`;
  if (subtype !== 'success' || isError === true) {
    const errors = field(m, 'errors');
    const text = field(m, 'result');
    const why = Array.isArray(errors)
      ? errors.filter((e): e is string => typeof e === 'string').join('; ')
      : typeof text === 'string'
        ? text
        : '';
    const label = subtype === 'success' ? 'success with is_error' : clip(String(subtype), 60);
    return fail(
      'error_result',
      `the subagent ended with ${label}${after}${why === '' ? '' : `: ${clip(why)}`}`,
    );
  }
  const structured = field(m, 'structured_output');
  if (structured !== undefined) {
    let json: unknown;
    try {
      json = JSON.stringify(structured);
    } catch (e) {
      return fail('bad_result', `the structured output is not JSON: ${describe(e)}`);
    }
    if (typeof json !== 'string') return fail('bad_result', 'the structured output is not JSON');
    if (json.length > max)
      return fail(
        'result_too_large',
        `the structured output is ${json.length} characters, over the limit of ${max}`,
      );
    return { ok: true, run: { ...run, answer: JSON.parse(json) as unknown, format: 'structured' } };
  }
  const text = field(m, 'result');
  if (typeof text !== 'string') return fail('bad_result', 'the success result has no result text');
  if (text.length > max)
    return fail('result_too_large', `the result text is ${text.length} characters, over the limit of ${max}`);
  const a = parseAnswerText(text);
  return { ok: true, run: { ...run, answer: a.value, format: a.format } };
}

/** Ends the stream: `return()` on the iterator (bounded wait when `wait`), never rejecting. */
async function closeStream(it: AsyncIterator<unknown> | null, wait: boolean): Promise<void> {
  if (it === null) return;
  let ret: unknown;
  try {
    ret = typeof it.return === 'function' ? it.return() : undefined;
  } catch {
    return;
  }
  const done = Promise.resolve(ret).then(
    () => undefined,
    () => undefined,
  );
  if (!wait) return;
  let timer: NodeJS.Timeout | undefined;
  const grace = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, CLOSE_GRACE_MS);
    timer.unref?.();
  });
  await Promise.race([done, grace]);
  clearTimeout(timer);
}

/**
 * Runs one subagent: calls `query({ prompt, options })` with the adapter's own AbortController
 * in `options.abortController` (aborted when `signal` or your own controller aborts, and always
 * once the run has ended, so nothing the SDK started outlives the call), reads messages until the
 * first `result`, then closes the stream (`return()`): nothing the stream would yield after its
 * result is read. A `success` result without `is_error` gives the answer (see
 * {@link SubagentRun}); everything else is a {@link ClaudeSubagentError} as a value. Never rejects.
 *
 * @example
 * ```ts
 * const out = await runSubagent({ query, prompt: 'Reply with {"ok":true}', signal: AbortSignal.timeout(60_000) });
 * if (out.ok) console.log(out.run.answer); // { ok: true }
 * ```
 */
export async function runSubagent(input: RunSubagentInput): Promise<SubagentOutcome> {
  const limits = subagentLimits(input.limits);
  const fail = (reason: SubagentFailureReason, detail: string): SubagentOutcome => ({
    ok: false,
    error: new ClaudeSubagentError(reason, detail),
  });
  const { signal } = input;
  const own = input.options?.abortController?.signal;
  if (signal.aborted || own?.aborted === true) return fail('aborted', 'aborted before the subagent started');
  // the SDK gets a controller of the run's own: the caller's signal and your controller abort it,
  // and reading stops the moment it aborts, whether or not the stream ever yields again
  const controller = new AbortController();
  const onAbort = () => controller.abort(signal.reason);
  const onOwn = () => controller.abort(own?.reason);
  const aborted = new Promise<typeof ABORTED>((resolve) => {
    controller.signal.addEventListener('abort', () => resolve(ABORTED), { once: true });
  });
  signal.addEventListener('abort', onAbort, { once: true });
  own?.addEventListener('abort', onOwn, { once: true });
  let it: AsyncIterator<unknown> | null = null;
  let messages = 0;
  let session: string | null = null;
  try {
    const query = input.query ?? (await loadClaudeQuery());
    if (controller.signal.aborted) return fail('aborted', 'aborted before the subagent started');
    const stream = query({
      prompt: input.prompt,
      options: { ...input.options, abortController: controller },
    });
    it = stream[Symbol.asyncIterator]() as AsyncIterator<unknown>;
    for (;;) {
      const pending = Promise.resolve(it.next());
      pending.catch(() => undefined);
      const step = await Promise.race([pending, aborted]);
      if (step === ABORTED) {
        void closeStream(it, false);
        return fail('aborted', `aborted after ${messages} message(s), before a result`);
      }
      if (step.done === true)
        return fail('no_result', `the stream ended after ${messages} message(s) without a result message`);
      const m: unknown = step.value;
      messages += 1;
      const sid = field(m, 'session_id');
      if (session === null && typeof sid === 'string') session = clip(sid, 200);
      if (field(m, 'type') === 'result') {
        const out = readResult(m, { session_id: session, messages }, limits.maxResultChars);
        await closeStream(it, true);
        return out;
      }
      if (messages >= limits.maxMessages) {
        void closeStream(it, false);
        return fail('too_many_messages', `more than ${limits.maxMessages} messages without a result`);
      }
    }
  } catch (e) {
    void closeStream(it, false);
    if (controller.signal.aborted)
      return fail('aborted', `aborted after ${messages} message(s), before a result`);
    return fail('threw', `the query threw after ${messages} message(s): ${describe(e)}`);
  } finally {
    signal.removeEventListener('abort', onAbort);
    own?.removeEventListener('abort', onOwn);
    controller.abort(new Error('the subagent run has ended'));
  }
}
