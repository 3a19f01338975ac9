/**
 * The one kill loop of the process sweeps (layer 3, effects): SIGKILL every pid a finder reports,
 * look again, and repeat while new ones appear (a forking descendant), at most eight passes.
 */

/** How many times the finder is asked again after a kill round. */
const MAX_PASSES = 8;

/**
 * Kills (SIGKILL) every pid `find` reports, asking again while it reports new ones; returns how
 * many distinct processes were signalled. A pid that is already gone is skipped silently.
 *
 * @example
 * ```ts
 * killUntilGone(() => sessionPids(token)); // 1 when a detached `setsid sleep 60` was left behind
 * ```
 */
export function killUntilGone(find: () => readonly number[]): number {
  const killed = new Set<number>();
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const pids = find().filter((p) => !killed.has(p));
    if (pids.length === 0) break;
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
        killed.add(pid);
      } catch {
        // already gone
      }
    }
  }
  return killed.size;
}
