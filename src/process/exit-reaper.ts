/**
 * Contained children do not outlive their runtime (layer 3, effects). A contained child runs in a
 * process group of its own, so a signal that ends this process (a terminal's Ctrl-C reaches the
 * foreground group only; `handoff` ends through `exit` on SIGINT/SIGTERM) would otherwise leave
 * a worker running — still writing into a workspace whose run is over. Each running child
 * registers a reaper here; when this process exits, every reaper still registered runs
 * synchronously (SIGKILL of the child's group, then the session sweep).
 *
 * A SIGKILL of this process runs no exit hook: the children then live on until their own time
 * budget or the next sweep of their session, as before.
 */

const reapers = new Set<() => void>();
let hooked = false;

function reapAll(): void {
  for (const reap of [...reapers]) {
    reapers.delete(reap);
    try {
      reap();
    } catch {
      // best effort at exit: one child that cannot be signalled does not spare the others
    }
  }
}

/**
 * Registers `reap` to run if this process exits while it is registered; returns the function that
 * unregisters it (call it once the child is gone).
 *
 * @example
 * ```ts
 * const release = reapOnExit(() => process.kill(-child.pid, 'SIGKILL'));
 * child.on('close', release);
 * ```
 */
export function reapOnExit(reap: () => void): () => void {
  if (!hooked) {
    hooked = true;
    process.on('exit', reapAll);
  }
  reapers.add(reap);
  return () => {
    reapers.delete(reap);
  };
}

/**
 * How many reapers are registered (children this process would kill at exit).
 *
 * @example
 * ```ts
 * pendingReapers(); // 0 once every contained child has ended
 * ```
 */
export function pendingReapers(): number {
  return reapers.size;
}
