/**
 * `handoff run` without `--persist` stores nothing, so it prints no run id (`handoff inspect`
 * would refuse it with no_such_run) and says how to persist instead; with `--persist` the printed
 * id is one `inspect` loads. Uses the built CLI (`npm run build` first).
 */
import { describe, expect, it } from 'vitest';
import { NOT_PERSISTED } from '../../src/cli/run.js';
import { EASY, handoffOf, runArgs, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import { runCli } from '../helpers/cli.js';

describe('handoff run: the run id only when the run is stored', () => {
  it('unpersisted: no id on the summary line, the --persist hint instead; --json stays the bare record', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(runArgs(p.dir, `node ${TS_WORKER}`), { cwd: p.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).toMatch(/^run unpersisted: solved$/m);
      expect(r.stdout).not.toMatch(/^run \d{8}T\d{6}Z-/m);
      expect(r.stdout).toContain(`\n${NOT_PERSISTED}\n`);
      expect(NOT_PERSISTED).toMatch(/rerun with --persist/);

      // the first run solved every target: this one finds none (accepted as solved with --allow-empty)
      const json = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, '--json', '--allow-empty'), {
        cwd: p.dir,
      });
      expect(json.code, json.stderr).toBe(0);
      expect(handoffOf(json.stdout).status).toBe('solved');
      expect(json.stdout).not.toContain(NOT_PERSISTED);
    });
  }, 60_000);

  it('persisted: the printed id is inspectable and no hint is printed', async () => {
    await withGitProject(EASY, async (p) => {
      const r = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, '--persist'), { cwd: p.dir });
      expect(r.code, r.stderr).toBe(0);
      expect(r.stdout).not.toContain(NOT_PERSISTED);
      const runId = /^run (\S+): solved$/m.exec(r.stdout)?.[1] as string;
      expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);
      const inspect = await runCli(['inspect', runId, '--project', p.dir]);
      expect(inspect.code, inspect.stderr).toBe(0);
      expect(inspect.stdout).toContain(`run ${runId}`);
    });
  }, 60_000);
});
