/**
 * One delegation at a time per watched place (layer 3, in-process): a delegation watches its whole
 * project and run store, so another delegation writing there at the same time would be taken for
 * the worker's own writes outside its files (and refused, its owned files put back). The cycle
 * runtime dispatches one worker at a time for the same reason. Delegations in this process that
 * share a project root or a file-system store take turns; others run side by side.
 */

const tails = new Map<string, Promise<void>>();

async function acquire(key: string): Promise<() => void> {
  const previous = tails.get(key) ?? Promise.resolve();
  let release: () => void = () => {};
  const mine = new Promise<void>((r) => {
    release = r;
  });
  const tail = previous.then(() => mine);
  tails.set(key, tail);
  await previous;
  return () => {
    release();
    if (tails.get(key) === tail) tails.delete(key);
  };
}

/**
 * Runs `fn` once every earlier call holding any of `keys` has finished, holding them meanwhile
 * (taken in sorted order, so two calls never wait for each other).
 *
 * @example
 * ```ts
 * await withTurns(['/repo', '/repo/.handoff'], () => delegateOnce());
 * ```
 */
export async function withTurns<T>(keys: readonly string[], fn: () => Promise<T>): Promise<T> {
  const releases: (() => void)[] = [];
  try {
    for (const key of [...new Set(keys)].sort()) releases.push(await acquire(key));
    return await fn();
  } finally {
    for (const release of releases.reverse()) release();
  }
}
