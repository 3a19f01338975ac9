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
 * Pids (other than this process) whose environment carries `SESSION_ENV=<token>`.
 *
 * @example
 * ```ts
 * sessionPids('4f2a…'); // [] once every descendant is gone
 * ```
 */
export function sessionPids(token: string): number[] {
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
    if (env.includes(needle) || env.subarray(0, first.length).equals(first)) out.push(pid);
  }
  return out;
}

/**
 * Kills (SIGKILL) every process carrying the session token, repeating while new ones appear (a
 * forking descendant); returns how many were signalled.
 *
 * @example
 * ```ts
 * sweepSession(token); // 1 when a detached `setsid sleep 60` was left behind
 * ```
 */
export function sweepSession(token: string): number {
  return killUntilGone(() => sessionPids(token));
}
