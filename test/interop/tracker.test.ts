/**
 * The cycle tracker as the reference's own shell suite drives it (issue 17 item 4):
 * `SID=$(tracker init …)` is the bare session id, and after `tick` the output carries
 * `deep_this_cycle=0/…` and `kw_search_this_cycle=0/3`; `can-deep` and `kw-search-can` print
 * their counters after the verdict.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir = '';
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'interop-tracker-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const tracker = (args: string[], env: Record<string, string> = {}) =>
  runCli(['tracker', ...args], { env: { HANDOFF_SESSION_DIR: dir, HANDOFF_TRACKER_NOW_MS: '5000', ...env } });

describe('the reference suite’s expectations', () => {
  it('SID=$(init) is usable as is; tick greps find kw_search_this_cycle=0/3 and deep_this_cycle=0/', async () => {
    const init = await tracker(['init', '--max-cycles=5', '--max-stuck=2'], { HANDOFF_TRACKER_NOW_MS: '0' });
    expect(init.code, init.stderr).toBe(0);
    const sid = init.stdout.replace(/\n$/, ''); // what $(…) captures
    expect(sid).toMatch(/^[A-Za-z0-9._-]+$/);
    const env = { HANDOFF_TRACKER_SESSION: sid };
    expect((await tracker(['deep'], env)).code).toBe(0);
    expect((await tracker(['kw-search'], env)).code).toBe(0);
    const tick = await tracker(['tick', '--stuck=no'], env);
    expect(tick.code, tick.stderr).toBe(0);
    const lines = tick.stdout.split('\n');
    expect(lines).toContain('kw_search_this_cycle=0/3');
    expect(lines.some((l) => l.startsWith('deep_this_cycle=0/'))).toBe(true);
    expect(lines).toContain('elapsed_seconds=5');
    expect(lines).toContain('consecutive_deep_cycles=1/2');
    const deep = await tracker(['can-deep'], env);
    expect(deep.stdout.split('\n').slice(0, 4)).toEqual([
      'result=ok',
      'deep_this_cycle=0/1',
      'consecutive_deep_cycles=1/2',
      'elapsed_seconds=5',
    ]);
    const kw = await tracker(['kw-search-can'], env);
    expect(kw.stdout).toBe('result=ok\nkw_search_this_cycle=0/3\nelapsed_seconds=5\n');
  });
});
