/**
 * Order-preserving async map with bounded concurrency, used to observe many files at once without
 * flooding the thread pool or the file-descriptor table.
 */

/** Default number of files inspected concurrently. */
export const DEFAULT_CONCURRENCY = 16;

/**
 * Maps `items` through `fn` with at most `limit` calls in flight; results keep the input order.
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
  const worker = async (): Promise<void> => {
    while (failure === undefined) {
      const i = next++;
      if (i >= items.length) return;
      try {
        out[i] = await fn(items[i] as T, i);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const n = Math.max(1, Math.min(limit, items.length));
  await Promise.all(Array.from({ length: n }, worker));
  if (failure !== undefined) throw failure.error;
  return out;
}
