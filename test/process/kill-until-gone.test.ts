/**
 * The one kill loop behind both process sweeps: every pid the finder reports is SIGKILLed, the
 * finder is asked again while it reports new pids, a pid already gone is skipped.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { describe, expect, it } from 'vitest';
import { killUntilGone } from '../../src/process/index.js';

const sleeper = (): ChildProcess => spawn('sleep', ['30'], { stdio: 'ignore' });

describe('killUntilGone', () => {
  it('kills what the finder reports, asks again, and stops when nothing new appears', async () => {
    const a = sleeper();
    const b = sleeper();
    const exits = [once(a, 'exit'), once(b, 'exit')];
    const answers: number[][] = [[a.pid as number], [a.pid as number, b.pid as number], [b.pid as number]];
    let calls = 0;
    const killed = killUntilGone(() => answers[calls++] ?? []);
    expect(killed).toBe(2);
    // the third answer held only an already-killed pid: nothing new, the loop ended there
    expect(calls).toBe(3);
    const [ea, eb] = await Promise.all(exits);
    expect(ea?.[1]).toBe('SIGKILL');
    expect(eb?.[1]).toBe('SIGKILL');
  });

  it('skips a pid that is gone and gives up after eight passes of a finder that never empties', () => {
    // pid_max on Linux is at most 2^22: this pid cannot exist
    let calls = 0;
    expect(
      killUntilGone(() => {
        calls++;
        return [2 ** 22 + 7 + calls];
      }),
    ).toBe(0);
    expect(calls).toBe(8);
  });
});
