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
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { sep } from 'node:path';
import { killUntilGone } from '../process/index.js';

const inside = (root: string, p: string): boolean => p === root || p.startsWith(`${root}${sep}`);

/** `f()`, or `fallback` when it throws (a process that is gone, or not ours to read). */
function orElse<T>(f: () => T, fallback: T): T {
  try {
    return f();
  } catch {
    return fallback;
  }
}

/**
 * True when the process is already on its way out: a zombie or dead task, or one with SIGKILL
 * pending (the session sweep's kill lands when the process next leaves the kernel, and until then
 * it still shows its working directory). Such a process was killed by the containment, not left
 * behind; counting it again would report one leftover twice.
 */
function dying(pid: number): boolean {
  const status = orElse<string>(() => readFileSync(`/proc/${pid}/status`, 'utf8'), '');
  const state = /^State:\s+(\S)/m.exec(status)?.[1];
  if (state === 'Z' || state === 'X') return true;
  const SIGKILL_BIT = 1n << 8n; // signal 9
  for (const field of ['SigPnd', 'ShdPnd']) {
    const hex = new RegExp(`^${field}:\\s+([0-9a-f]+)`, 'm').exec(status)?.[1];
    if (hex !== undefined && (BigInt(`0x${hex}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

function holdsProject(pid: number, root: string): boolean {
  const cwd = orElse<string | null>(() => readlinkSync(`/proc/${pid}/cwd`), null);
  if (cwd !== null && inside(root, cwd)) return true;
  for (const fd of orElse<string[]>(() => readdirSync(`/proc/${pid}/fd`), [])) {
    const target = orElse<string | null>(() => readlinkSync(`/proc/${pid}/fd/${fd}`), null);
    if (target !== null && inside(root, target)) return true;
  }
  return false;
}

function pidsNow(): number[] {
  return orElse<string[]>(() => readdirSync('/proc'), [])
    .filter((e) => /^\d+$/.test(e))
    .map(Number);
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
  return new Set(pidsNow());
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
  return insideNow(root, existing);
}

function insideNow(root: string, existing: ReadonlySet<number>): number[] {
  return pidsNow().filter(
    (pid) => pid !== process.pid && !existing.has(pid) && holdsProject(pid, root) && !dying(pid),
  );
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
  return killUntilGone(() => insideNow(root, existing));
}
