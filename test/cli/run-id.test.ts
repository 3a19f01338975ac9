/**
 * One exit status for a malformed run id, wherever a command takes one: `handoff inspect`,
 * `handoff store load --run-id` and `handoff run --persist --prior-run` all refuse it with code
 * `bad_run_id` and exit 3 (the run store's refusal exit, `nothing_written`), before touching a
 * store or a project.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorExitCode } from '../../src/cli/exit-codes.js';
import { runArgs } from '../e2e/helpers.js';
import { runCli } from '../helpers/cli.js';

const MALFORMED = ['latest', '../etc', '20261130T100000Z-0A1B2C3D', '20261130T100000Z-0a1b2c3'];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'handoff-run-id-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('a malformed run id exits 3 (bad_run_id) in inspect, store load and run --prior-run', () => {
  it('the exit table maps bad_run_id to 3 for every command', () => {
    for (const command of ['inspect', 'store', 'run', undefined])
      expect(errorExitCode('bad_run_id', command)).toBe(3);
  });

  it.each(MALFORMED)('%s', async (id) => {
    const root = join(dir, 'store');
    const inspect = await runCli(['inspect', id, '--root', root], { cwd: dir });
    expect(inspect.code).toBe(3);
    // one human line naming the code (the machine line is `--json`'s)
    expect(inspect.stderr).toMatch(/^handoff inspect: .* \[bad_run_id\] — .*\n$/);
    expect(inspect.stderr.trimEnd().split('\n')).toHaveLength(1);

    const load = await runCli(['store', 'load', '--root', root, '--run-id', id], { cwd: dir });
    expect(load.code).toBe(3);
    expect(JSON.parse(load.stdout)).toMatchObject({ outcome: 'nothing_written', code: 'bad_run_id' });

    const run = await runCli(runArgs(dir, 'node worker.js', '--persist', '--prior-run', id), { cwd: dir });
    expect(run.code).toBe(3);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/^handoff run: --prior-run names a run id .* \[bad_run_id\]/);
    const json = await runCli(runArgs(dir, 'node worker.js', '--persist', '--prior-run', id, '--json'), {
      cwd: dir,
    });
    expect(json.code).toBe(3);
    expect(JSON.parse(json.stderr)).toMatchObject({ error: 'bad_run_id', details: { run_id: id } });
  });
});
