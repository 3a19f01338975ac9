/**
 * Processes a worker left behind in its case project (layer 3, processes). The runtime's
 * containment (src/process) kills the worker's process group and every process carrying its
 * session token; a descendant that left the group with `setsid` and wiped its environment escapes
 * both. What such a process usually still has is its working directory (inherited: the case
 * project) or an open file there, so after the worker exited the harness looks at the processes
 * that did not exist before the worker started, finds those whose cwd or an open file descriptor
 * is inside the case project, and kills them (SIGKILL). Linux reads `/proc`; elsewhere nothing is
 * found. A process that also changed its directory and holds no file there is not found
 * (docs/conformance.md).
 */
import { readdir, readlink } from 'node:fs/promises';
import { sep } from 'node:path';

const inside = (root: string, p: string): boolean => p === root || p.startsWith(`${root}${sep}`);

async function holdsProject(pid: number, root: string): Promise<boolean> {
  const cwd = await readlink(`/proc/${pid}/cwd`).catch(() => null);
  if (cwd !== null && inside(root, cwd)) return true;
  const fds = await readdir(`/proc/${pid}/fd`).catch(() => [] as string[]);
  for (const fd of fds) {
    const target = await readlink(`/proc/${pid}/fd/${fd}`).catch(() => null);
    if (target !== null && inside(root, target)) return true;
  }
  return false;
}

/**
 * The pids running now (empty without `/proc`). Taken before a worker starts, it lets the sweep
 * look only at processes that appeared since.
 *
 * @example
 * ```ts
 * const before = await runningPids();
 * ```
 */
export async function runningPids(): Promise<ReadonlySet<number>> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  return new Set(entries.filter((e) => /^\d+$/.test(e)).map(Number));
}

/**
 * Pids (other than this process, and not in `existing`) whose working directory or an open file
 * is inside `root` (a real path). A zombie or another user's process is not readable and not
 * listed.
 *
 * @example
 * ```ts
 * await processesInside('/tmp/handoff-conformance-case-1-x', before); // [] once the worker is gone
 * ```
 */
export async function processesInside(
  root: string,
  existing: ReadonlySet<number> = new Set(),
): Promise<number[]> {
  const out: number[] = [];
  for (const pid of await runningPids()) {
    if (pid === process.pid || existing.has(pid)) continue;
    if (await holdsProject(pid, root)) out.push(pid);
  }
  return out;
}

/**
 * Kills (SIGKILL) every process {@link processesInside} finds, repeating while new ones appear (a
 * forking leftover); resolves to how many were signalled.
 *
 * @example
 * ```ts
 * const before = await runningPids();
 * // … the worker runs and exits …
 * await sweepProject(root, before); // 1 when a detached late writer with a wiped environment was left behind
 * ```
 */
export async function sweepProject(root: string, existing: ReadonlySet<number> = new Set()): Promise<number> {
  const killed = new Set<number>();
  for (let pass = 0; pass < 8; pass++) {
    const pids = (await processesInside(root, existing)).filter((p) => !killed.has(p));
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
