/**
 * Calling a stage (effects layer: timers): the stage gets its detached view and a
 * {@link StageContext} whose `signal` aborts when the stage's time limit passes, so a stage that
 * honours it (an agent call, a fetch) really stops; the seam does not wait for one that does not.
 */
import { HandoffError } from '../errors/index.js';
import type { BatonView } from './baton-view.js';

/** What a stage gets besides its view. */
export interface StageContext {
  /**
   * Aborted (reason: an Error named `TimeoutError`) when the stage exceeds its time limit, or when
   * the runtime driving it stops. Pass it on to agent calls and fetches.
   */
  readonly signal: AbortSignal;
}

/** A stage: receives a detached read-only view, returns (or resolves to) a StageDelta. */
export type StageFn = (view: BatonView, context: StageContext) => unknown;

/** A stage ran past its time limit: a `stage_failed` {@link HandoffError} named `TimeoutError`. */
class StageTimeoutError extends HandoffError {
  constructor(timeoutMs: number) {
    super('stage_failed', `stage exceeded ${timeoutMs} ms`, { details: { timeout_ms: timeoutMs } });
    this.name = 'TimeoutError';
  }
}

/**
 * Runs `fn(view, {signal})` under a time limit of `timeoutMs`: resolves to whatever the stage
 * returns, rejects with what it throws, or — when the limit passes first — aborts the signal and
 * rejects with a `TimeoutError` (the seam turns all rejections into `stage_failed`). `outer`, when
 * given, aborts the stage's signal too (e.g. the xstate actor's signal).
 *
 * @example
 * ```ts
 * const delta = await callStage(stage, view, 60_000);
 * ```
 */
export async function callStage(
  fn: StageFn,
  view: BatonView,
  timeoutMs: number,
  outer?: AbortSignal,
): Promise<unknown> {
  const control = new AbortController();
  const onOuter = () => control.abort(outer?.reason);
  outer?.addEventListener('abort', onOuter, { once: true });
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const e = new StageTimeoutError(timeoutMs);
      control.abort(e);
      reject(e);
    }, timeoutMs);
    timer.unref?.();
  });
  try {
    return await Promise.race([Promise.resolve().then(() => fn(view, { signal: control.signal })), timeout]);
  } finally {
    clearTimeout(timer);
    outer?.removeEventListener('abort', onOuter);
  }
}
