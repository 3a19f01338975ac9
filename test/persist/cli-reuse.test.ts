/**
 * Prior-run reuse through the built CLI on the fs store: a stuck run, an external edit, the
 * read-only preview, custody with the approval token, and start --prior-run recording the
 * source-note as event #1.
 */
import { mkdir, realpath, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { recordBaseline } from '../../src/baseline/record.js';
import type { Dispatch } from '../../src/contract/index.js';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { dispatch as baseDispatch, stuckHandoff, tempDir } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
  dir = await realpath(dir);
});
afterEach(async () => {
  await cleanup();
});

type R = Record<string, unknown>;

describe('handoff persist reuse | custody | start --prior-run', () => {
  it('previews drift, approves it by token, and starts the new run with a source-note', async () => {
    const project = join(dir, 'project');
    await mkdir(join(project, 'src'), { recursive: true });
    const A = join(project, 'src', 'Foo.lean');
    await writeFile(A, 'theorem foo : True := sorry\n');
    const store = join(dir, 'store');
    const file = async (name: string, v: unknown) => {
      const p = join(dir, name);
      await writeFile(p, JSON.stringify(v));
      return p;
    };
    const cli = async (args: string[], state: string | null, code = 0): Promise<R> => {
      const r = await runCli(
        ['persist', ...args, '--root', store, ...(state === null ? [] : ['--state', state])],
        {
          cwd: project,
          env: { HANDOFF_RUN_PERSIST_STATE: '' },
        },
      );
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(code);
      return stdoutJson<R>(r);
    };
    const d1: Dispatch = {
      ...baseDispatch(),
      target: 'src/Foo.lean:42',
      owned_files: [A],
      file_baseline: await recordBaseline([A], { cwd: project }),
    };
    const s1 = join(dir, 's1.json');
    const start1 = await cli(['start', '--dispatch', await file('d1.json', d1)], s1);
    const prior = start1.run_id as string;
    const stuck = { ...stuckHandoff(), target: d1.target, files_owned: [A], file_baseline: d1.file_baseline };
    expect((await cli(['finish', '--payload', await file('h1.json', stuck)], s1)).stored).toBe(true);

    await writeFile(A, 'theorem foo : True := trivial\n');
    const common = ['--prior-run', prior, '--target', d1.target, '--scope', 'sorry', '--mode', 'prove'];
    const preview = await cli(['reuse', ...common, '--owned-file', A], null);
    expect(preview).toMatchObject({ schema: 'run-persist-reuse/v1', prior_run: prior });
    const drift = preview.drift as { result: string; approval_token: string };
    expect(drift.result).toBe('drift');
    const reportFile = await file('report.json', preview);

    const unapproved = await cli(['custody', '--report', reportFile, '--owned-file', A], null, 3);
    expect(unapproved.code).toBe('drift_unapproved');
    const custody = await cli(
      ['custody', '--report', reportFile, '--owned-file', A, '--approve', drift.approval_token],
      null,
    );
    expect(custody).toMatchObject({ schema: 'run-persist-custody/v1', result: 'drift' });

    const d2: Dispatch = {
      ...d1,
      file_baseline: custody.fresh_baseline as Dispatch['file_baseline'],
      prior_blocker: stuckHandoff().blocker_signature,
      evidence_delta: ['source changed: the proof now uses trivial'],
    };
    const s2 = join(dir, 's2.json');
    const noReport = await cli(
      ['start', '--dispatch', await file('d2.json', d2), '--prior-run', prior],
      s2,
      3,
    );
    expect(noReport.code).toBe('reuse_report_required');
    const start2 = await cli(
      [
        'start',
        '--dispatch',
        await file('d2.json', d2),
        '--prior-run',
        prior,
        '--reuse-report',
        reportFile,
        '--approve',
        drift.approval_token,
      ],
      s2,
    );
    expect(start2).toMatchObject({ action: 'continue', prior_run: prior, run_created: true });
    expect(start2.source_note_cite).toBe(`${start2.run_id as string}#1`);
    const status = await cli(['status'], s2);
    expect(status).toMatchObject({
      prior_run: prior,
      last_seq: 1,
      source_note_cite: start2.source_note_cite,
    });
  });
});
