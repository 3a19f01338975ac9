/**
 * The session sweep finds descendants by the token in their environment; a process group the
 * caller already SIGKILLed is left out, so "swept" counts only what escaped the group kill.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { SESSION_ENV, sessionPids, sweepSession } from '../../src/process/index.js';

describe('session sweep', () => {
  it('finds a token-carrying process, skips it when its group is exempt, and kills it otherwise', async () => {
    const token = 'a1b2c3d4e5f6a1b2c3d4e5f6';
    const leader = spawn('sleep', ['30'], {
      stdio: 'ignore',
      detached: true, // its own process group, whose id is its pid
      env: { ...process.env, [SESSION_ENV]: token },
    });
    const pid = leader.pid as number;
    const exited = once(leader, 'exit');
    expect(sessionPids(token)).toEqual([pid]);
    expect(sessionPids(token, pid)).toEqual([]); // a member of the exempt group
    expect(sessionPids(token, pid + 1_000_000)).toEqual([pid]); // another group: still found
    expect(sweepSession(token, pid)).toBe(0); // exempt: neither counted nor signalled
    expect(leader.exitCode).toBeNull();
    expect(sweepSession(token)).toBe(1);
    const [, signal] = await exited;
    expect(signal).toBe('SIGKILL');
    expect(sessionPids('ffffffffffffffffffffffff')).toEqual([]);
  });
});
