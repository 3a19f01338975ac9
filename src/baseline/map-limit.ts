/**
 * Order-preserving async map with bounded concurrency that yields to the event loop regularly, used
 * to observe many files without flooding the thread pool or starving other work (small files are
 * observed synchronously, see observe.ts).
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** Default number of files inspected concurrently (matters for large, streamed files). */
export const DEFAULT_CONCURRENCY = 16;

/** Longest stretch of synchronous work, in milliseconds, before {@link mapLimit} yields. */
export const YIELD_EVERY_MS = 10;

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the input order.
 * Yields to the event loop whenever {@link YIELD_EVERY_MS} have passed since the last yield.
 * Rejects with the first error after the in-flight calls have settled.
 *
 * @example
 * ```ts
 * const sizes = await mapLimit(paths, 8, async (p) => (await stat(p)).size);
 * ```
 */
export async function mapLimit<T, R>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const out = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  let lastYield = performance.now();
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const i = next++;
      if (i >= items.length) return;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (error) {
        failure ??= { error };
      }
      if (performance.now() - lastYield > YIELD_EVERY_MS) {
        lastYield = performance.now();
        await yieldToLoop();
      }
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure !== undefined) throw failure.error;
  return out;
}
