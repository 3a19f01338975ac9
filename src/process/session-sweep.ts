/**
 * The session sweep (layer 3, effects): every contained child gets a random token in its
 * environment ({@link SESSION_ENV}); environments are inherited, so every descendant carries it too,
 * including one that left the process group with `setsid`. After the child's end, the sweep kills
 * each process that still carries the token. Linux reads `/proc/<pid>/environ`; on other systems
 * (no `/proc`) the sweep finds nothing and the process-group kill is the only containment.
 *
 * Limits (docs/worker-protocol.md § Threat model): a descendant that rewrites its own environment
 * before the sweep, or one started through a service manager outside the tree, is not found.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { killUntilGone } from './kill-until-gone.js';

/** The environment variable carrying a contained run's session token. */
export const SESSION_ENV = 'HANDOFF_WORKER_SESSION';

/**
 * The process group of `pid` read from `/proc/<pid>/stat`, or `null` when the process is gone or
 * the file cannot be read.
 */
function processGroupOf(pid: number): number | null {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses, so read after the last ')'
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  const pgrp = Number(fields[2]);
  return Number.isInteger(pgrp) ? pgrp : null;
}

/**
 * Pids (other than this process) whose environment carries `SESSION_ENV=<token>`. With
 * `exceptGroup`, members of that process group are left out: the caller has already SIGKILLed the
 * group and a member may still be visible for a moment while the kernel takes it down.
 *
 * @example
 * ```ts
 * sessionPids('4f2a…'); // [] once every descendant is gone
 * ```
 */
export function sessionPids(token: string, exceptGroup?: number): number[] {
  const needle = Buffer.from(`\0${SESSION_ENV}=${token}\0`);
  const first = Buffer.from(`${SESSION_ENV}=${token}\0`);
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const out: number[] = [];
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    const pid = Number(e);
    if (pid === process.pid) continue;
    let env: Buffer;
    try {
      env = readFileSync(`/proc/${e}/environ`);
    } catch {
      continue; // gone, or not ours to read
    }
    if (!env.includes(needle) && !env.subarray(0, first.length).equals(first)) continue;
    if (exceptGroup !== undefined && processGroupOf(pid) === exceptGroup) continue;
    out.push(pid);
  }
  return out;
}

/**
 * Kills (SIGKILL) every process carrying the session token, repeating while new ones appear (a
 * forking descendant); returns how many were signalled. `exceptGroup` names a process group the
 * caller has already SIGKILLed: its dying members are neither signalled again nor counted, so the
 * count means "escaped the group kill" however fast the kernel reaps.
 *
 * @example
 * ```ts
 * sweepSession(token); // 1 when a detached `setsid sleep 60` was left behind
 * ```
 */
export function sweepSession(token: string, exceptGroup?: number): number {
  return killUntilGone(() => sessionPids(token, exceptGroup));
}
