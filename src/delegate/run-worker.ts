/**
 * Running an in-process worker (layer 3, effects): a function or an object with a `run` method,
 * called with a frozen dispatch and an abort signal, raced against the host's signal and a time
 * budget. Whatever the worker does — throw anything, return a thenable that throws, never settle —
 * the result is an {@link Attempt}; this never rejects.
 */
import type { Dispatch } from '../contract/index.js';
import { describeThrown } from './describe-thrown.js';
import { sandboxedAnswer } from './sandboxed-answer.js';
import type { Attempt } from './settle-rules.js';
import { readHandoff } from './violations.js';

/**
 * What a worker receives besides the dispatch.
 *
 * @example
 * ```ts
 * const worker: DelegateFn = async (d, { signal }) => myAgent.run(d, { signal });
 * ```
 */
export interface DelegateContext {
  /** Aborted when the delegation gives up on the worker (timeout, the host's signal). */
  readonly signal: AbortSignal;
}

/**
 * An in-process worker: receives the dispatch (deep-frozen) and returns — or resolves to — its
 * handoff. The answer is untrusted: it is read once into plain data and checked.
 *
 * @example
 * ```ts
 * const worker: DelegateFn = async (d) => handoffFor(d); // "solved, changed nothing"
 * ```
 */
export type DelegateFn = (dispatch: Dispatch, context: DelegateContext) => unknown;

/**
 * A worker: a {@link DelegateFn}, or any object with such a `run` method (called on the object).
 *
 * @example
 * ```ts
 * const worker: DelegateWorker = { async run(d) { return handoffFor(d); } };
 * ```
 */
export type DelegateWorker = DelegateFn | { run(dispatch: Dispatch, context: DelegateContext): unknown };

/**
 * How long a worker may run, and the host's abort.
 *
 * @example
 * ```ts
 * await runWorker(worker, dispatch, { timeoutMs: 60_000, signal: controller.signal });
 * ```
 */
export interface RunWorkerOptions {
  /** The host's signal: aborting it ends the attempt as a `user-stop`. */
  readonly signal?: AbortSignal;
  /** Milliseconds the worker may take (1 … 2^31-1); past it the attempt is an operational error. */
  readonly timeoutMs?: number;
}

async function call(worker: DelegateWorker, dispatch: Dispatch, context: DelegateContext): Promise<unknown> {
  if (typeof worker === 'function') return await worker(dispatch, context);
  if (typeof worker !== 'object' || worker === null) throw new TypeError('the worker is not a function');
  const run = (worker as { run?: unknown }).run;
  if (typeof run !== 'function')
    throw new TypeError('the worker is neither a function nor an object with a run method');
  return await (run as DelegateFn).call(worker, dispatch, context);
}

/**
 * Runs `worker` on `dispatch` once: resolves to its answer, read as a handoff the moment it
 * arrives (`returned`), or to a failure — it threw
 * or rejected (`operational-error`, "the worker threw: …"), ran past `timeoutMs`
 * (`operational-error`), or the host's signal aborted (`user-stop`). On a timeout or abort the
 * worker's own signal is aborted; an in-process worker that ignores it keeps running, and whatever
 * it does later is outside every check (see docs/tutorial-embed.md § Limits).
 *
 * @example
 * ```ts
 * await runWorker(async () => { throw 'nope'; }, dispatch); // { kind: 'failed', failure: { stop: 'operational-error', detail: 'the worker threw: nope' } }
 * ```
 */
export async function runWorker(
  worker: DelegateWorker,
  dispatch: Dispatch,
  o: RunWorkerOptions = {},
): Promise<Attempt> {
  const controller = new AbortController();
  if (o.signal?.aborted) {
    controller.abort();
    return {
      kind: 'failed',
      failure: { stop: 'user-stop', detail: 'aborted by the host before the worker started' },
    };
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort: (() => void) | undefined;
  const stopped = new Promise<Attempt>((resolve) => {
    if (o.timeoutMs !== undefined) {
      const ms = o.timeoutMs;
      timer = setTimeout(() => {
        controller.abort();
        resolve({
          kind: 'failed',
          failure: { stop: 'operational-error', detail: `the worker did not return within ${ms} ms` },
        });
      }, ms);
    }
    if (o.signal !== undefined) {
      onAbort = () => {
        controller.abort();
        resolve({ kind: 'failed', failure: { stop: 'user-stop', detail: 'aborted by the host' } });
      };
      o.signal.addEventListener('abort', onAbort, { once: true });
    }
  });
  const work = (async (): Promise<Attempt> => {
    try {
      const answer = await call(worker, dispatch, { signal: controller.signal });
      // read once, as soon as it arrives: every check, and the host, see this copy, whatever the
      // worker does with the object it returned afterwards
      const sandboxed = sandboxedAnswer(answer);
      if (sandboxed !== null) {
        // a command worker's sandbox report: what it wrote outside its owned files, discarded
        return { kind: 'returned', read: readHandoff(sandboxed.handoff), discarded: sandboxed.discarded };
      }
      return { kind: 'returned', read: readHandoff(answer) };
    } catch (e) {
      return {
        kind: 'failed',
        failure: { stop: 'operational-error', detail: `the worker threw: ${describeThrown(e)}` },
      };
    }
  })();
  try {
    return await Promise.race([work, stopped]);
  } finally {
    if (timer !== undefined) clearTimeout(timer);
    if (onAbort !== undefined) o.signal?.removeEventListener('abort', onAbort);
  }
}
