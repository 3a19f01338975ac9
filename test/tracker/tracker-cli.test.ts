import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'tracker-cli-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

function kv(text: string): Record<string, string> {
  return Object.fromEntries(
    text
      .trim()
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

function tracker(args: string[], env: Record<string, string> = {}) {
  return runCli(['tracker', ...args], { env: { HANDOFF_SESSION_DIR: dir, ...env } });
}

describe('handoff tracker', () => {
  it('runs a session end to end and stops at the limit', async () => {
    const envFile = join(dir, 'env');
    const init = await tracker(['init', '--max-cycles=2', '--max-stuck-cycles', '5', '--session', 's1'], {
      HANDOFF_ENV_FILE: envFile,
      HANDOFF_TRACKER_NOW_MS: '1000',
    });
    expect(init.code).toBe(0);
    // the reference's callers do SID=$(tracker init …): stdout is the bare id
    expect(init.stdout).toBe('s1\n');
    expect(init.stderr).toBe(`state_file=${join(dir, 'handoff-tracker-s1.json')}\n`);
    expect(await readFile(envFile, 'utf8')).toBe('HANDOFF_TRACKER_SESSION=s1\n');
    const env = { HANDOFF_TRACKER_SESSION: 's1', HANDOFF_TRACKER_NOW_MS: '1000' };
    const t1 = await tracker(['tick', '--stuck=yes'], env);
    expect(t1.code).toBe(0);
    expect(t1.stdout).toBe(
      [
        'result=ok',
        'cycles=1/2',
        'consecutive_stuck=1/5',
        'elapsed_seconds=0',
        'elapsed_display=0m/unlimited',
        'deep_this_cycle=0/1',
        'consecutive_deep_cycles=0/2',
        'kw_search_this_cycle=0/3',
        '',
      ].join('\n'),
    );
    const t2 = await tracker(['tick', '--stuck=no'], env);
    expect(t2.code).toBe(1);
    expect(kv(t2.stdout)).toMatchObject({ result: 'LIMIT_REACHED', violation: 'max-cycles' });
    const st = await tracker(['status'], { ...env, HANDOFF_TRACKER_NOW_MS: '181000' });
    expect(kv(st.stdout)).toMatchObject({
      cycles_total: '2',
      stuck_cycles_total: '1',
      elapsed_display: '3m/unlimited',
    });
    const stop = await tracker(['stop'], { ...env, HANDOFF_ENV_FILE: envFile });
    expect(stop.code).toBe(0);
    expect(await readFile(envFile, 'utf8')).toBe('');
    const gone = await tracker(['status'], env);
    expect(gone.code).toBe(2);
    expect(gone.stderr).toMatch(/^error=no tracker session 's1'/);
    expect((await readdir(dir)).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('denies deep and searches with reasons, exit 1', async () => {
    await tracker(['init', '--max-cycles=5', '--max-stuck=2', '--max-runtime=1m', '--session', 's2'], {
      HANDOFF_TRACKER_NOW_MS: '0',
    });
    const env = { HANDOFF_TRACKER_SESSION: 's2', HANDOFF_TRACKER_NOW_MS: '0' };
    expect((await tracker(['can-deep'], env)).code).toBe(0);
    expect((await tracker(['deep'], env)).code).toBe(0);
    const denied = await tracker(['can-deep'], env);
    expect(denied.code).toBe(1);
    expect(denied.stdout).toBe(
      'result=denied\nreason=max-deep-per-cycle\ndeep_this_cycle=1/1\nconsecutive_deep_cycles=0/2\nelapsed_seconds=0\n',
    );
    const late = await tracker(['kw-search-can'], { ...env, HANDOFF_TRACKER_NOW_MS: '60000' });
    expect(late.stdout).toBe(
      'result=denied\nreason=max-runtime\nkw_search_this_cycle=0/3\nelapsed_seconds=60\n',
    );
    expect((await tracker(['kw-search'], env)).code).toBe(0);
    const claim = await tracker(['reset-claim'], env);
    expect(claim.code).toBe(2);
    expect(claim.stderr).toMatch(/^error=no claim is active/);
  });

  it('rejects usage errors and corrupt state with exit 2', async () => {
    expect((await tracker(['init', '--max-stuck=2'])).code).toBe(2);
    expect((await tracker(['init', '--max-cycles=2', '--max-stuck=2', '--max-runtime=2d'])).code).toBe(2);
    expect((await tracker(['bogus'])).code).toBe(2);
    expect((await tracker(['status'])).code).toBe(2);
    await writeFile(join(dir, 'handoff-tracker-bad.json'), '{"schema":"cycle-tracker/v1"');
    const bad = await tracker(['status', '--session', 'bad']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^error=.*not JSON/);
    await tracker(['init', '--max-cycles=2', '--max-stuck=2', '--session', 's3']);
    const noStuck = await tracker(['tick', '--session', 's3']);
    expect(noStuck.code).toBe(2);
    expect(noStuck.stderr).toMatch(/--stuck=yes\|no/);
  });

  it('takes the spec aliases and refuses a second active claim', async () => {
    const init = await tracker(
      [
        'init',
        '--max-cycles',
        '3',
        '--max-stuck-cycles=2',
        '--max-total-runtime=90s',
        '--max-consecutive-deep-cycles=4',
        '--max-knowledge-search-per-cycle=1',
        '--session',
        's4',
      ],
      { HANDOFF_TRACKER_NOW_MS: '0' },
    );
    expect(init.code, init.stderr).toBe(0);
    const env = { HANDOFF_TRACKER_SESSION: 's4', HANDOFF_TRACKER_NOW_MS: '30000' };
    const st = kv((await tracker(['status'], env)).stdout);
    expect(st).toMatchObject({
      consecutive_stuck: '0/2',
      consecutive_deep_cycles: '0/4',
      kw_search_this_cycle: '0/1',
    });
    expect(st.elapsed_display).toBe('30s/90s');
    expect((await tracker(['kw-search'], env)).code).toBe(0);
    const spent = await tracker(['kw-search-can'], env);
    expect(spent.code).toBe(1);
    expect(kv(spent.stdout)).toEqual({
      result: 'denied',
      reason: 'max-knowledge-search-per-cycle',
      kw_search_this_cycle: '1/1',
      elapsed_seconds: '30',
    });
    expect((await tracker(['start-claim'], env)).code).toBe(0);
    const again = await tracker(['start-claim'], env);
    expect(again.code).toBe(2);
    expect(again.stderr).toMatch(/^error=a claim is already active/);
  });
});
