/**
 * `handoff run --persist --prior-run ID`: the full reuse protocol end to end with the real
 * TypeScript worker — preview, drift report, reconciliation (autoprove refuses, prove approves
 * the report's token), custody, start with the source-note as event #1, and the rerun guard.
 */
import { createHash } from 'node:crypto';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { type Handoff, validateHandoff } from '../../src/contract/index.js';
import { runCli } from '../helpers/cli.js';
import { gitLog, gitProject, HARD, TS_WORKER } from './helpers.js';

function handoffOf(text: string): Handoff {
  const v = validateHandoff(JSON.parse(text.slice(text.indexOf('{\n'))) as unknown);
  if (!v.ok) throw new Error(`invalid handoff: ${JSON.stringify(v.issues)}`);
  return v.value;
}

interface Loaded {
  manifest: { prior_run: string | null; dispatch: { target: string; file_baseline: { files: unknown[] } } };
  events: { seq: number; kind: string; payload: Record<string, unknown> }[];
}

describe('handoff run --prior-run: reuse with custody', () => {
  it('refuses drift in autoprove, needs the token in prove, keeps the guard, then cites the prior run', async () => {
    const p = await gitProject(HARD);
    const store = join(p.dir, '.handoff');
    const answers = `${p.dir}-answers.txt`;
    const run = (mode: string, ...more: string[]) =>
      runCli([
        'run',
        '--project',
        p.dir,
        '--target',
        '.',
        '--scope',
        'project',
        '--mode',
        mode,
        '--worker',
        `node ${TS_WORKER}`,
        '--persist',
        ...more,
      ]);
    const listRuns = async () => {
      const r = await runCli(['store', 'list', '--root', store]);
      return r.stdout;
    };
    try {
      // run 1 (prove): the target is stuck, the human stops after the blocker
      await writeFile(answers, 'approve\ncontinue\napprove\napprove\nstop\n');
      const r1 = await run('prove', '--answers', answers);
      expect(r1.code, r1.stderr).toBe(3);
      const prior = /^run (\S+): stuck/m.exec(r1.stdout)?.[1] as string;
      expect(prior).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]+$/);
      expect(handoffOf(r1.stdout).blocker_signature).toBe('H.lean:2:missing library lemma');

      // a well-formed id this store does not hold: bad_prior_run, exit 3 (as inspect and store
      // load answer it), nothing created
      const before = await listRuns();
      const unknown = await run('autoprove', '--prior-run', '20000101T000000Z-00000000', '--json');
      expect(unknown.code).toBe(3);
      expect(unknown.stdout).toBe('');
      expect(JSON.parse(unknown.stderr)).toMatchObject({
        error: 'bad_prior_run',
        details: { reuse_code: 'bad_prior_run', store_code: 'no_such_run' },
      });
      expect(await listRuns()).toBe(before);

      // an owned file changes between the runs
      const edited = `${HARD['H.lean']}-- edited between runs\n`;
      await writeFile(join(p.dir, 'H.lean'), edited);
      const runsBefore = await listRuns();

      // autoprove never accepts drift: an operational-error handoff naming what to reconcile
      const a = await run('autoprove', '--prior-run', prior, '--json');
      expect(a.code).toBe(4);
      expect(JSON.parse(a.stderr.trim().split('\n').at(-1) as string)).toMatchObject({
        error: 'drift_unreconciled',
      });
      const ah = handoffOf(a.stdout);
      expect(ah).toMatchObject({ status: 'stopped', stop_reason: 'operational-error' });
      expect(ah.stop_detail).toMatch(/^drift_unreconciled: .*H\.lean \(modified\)/);
      const token = /approval token: ([0-9a-f]{64})/.exec(a.stderr)?.[1] as string;
      expect(token).toMatch(/^[0-9a-f]{64}$/);
      expect(await readFile(join(p.dir, 'H.lean'), 'utf8')).toBe(edited);

      // prove: the human port is asked; declining leaves the drift unapproved
      await writeFile(answers, 'stop\n');
      const declined = await run('prove', '--prior-run', prior, '--answers', answers, '--json');
      expect(declined.code).toBe(4);
      expect(declined.stderr).toMatch(/"error":"drift_unapproved"/);
      // a token that is not the report's is refused
      const wrong = await run('prove', '--prior-run', prior, '--approve', 'f'.repeat(64), '--json');
      expect(wrong.code).toBe(4);
      expect(wrong.stderr).toMatch(/"error":"approval_mismatch"/);
      // approved, but the same task on the same blocker without new evidence: the guard refuses
      const guarded = await run('prove', '--prior-run', prior, '--approve', token, '--json');
      expect(guarded.code).toBe(3);
      expect(guarded.stderr).toMatch(/"error":"rerun_forbidden"/);
      expect(guarded.stdout).toBe('');
      expect(await listRuns()).toBe(runsBefore);
      expect(gitLog(p.dir)).toEqual(['init']);

      // approved with evidence: the run starts citing the prior run and solves the target
      await writeFile(answers, 'approve\ncommit\napprove\ncontinue\n');
      const ok = await run(
        'prove',
        '--prior-run',
        prior,
        '--approve',
        token,
        '--evidence',
        'use: omega',
        '--answers',
        answers,
      );
      expect(ok.code, ok.stderr).toBe(0);
      expect(ok.stdout).toContain(`reused prior run ${prior}`);
      const runId = /^run (\S+): solved/m.exec(ok.stdout)?.[1] as string;
      const load = await runCli(['store', 'load', '--root', store, '--run-id', runId]);
      expect(load.code, load.stderr).toBe(0);
      const body = JSON.parse(load.stdout) as Loaded;
      expect(body.manifest.prior_run).toBe(prior);
      // the first dispatch is the run's task over the fresh custody baseline of the edited file
      const sha = createHash('sha256').update(edited).digest('hex');
      expect(body.manifest.dispatch).toMatchObject({
        target: '.',
        prior_blocker: 'H.lean:2:missing library lemma',
        evidence_delta: ['use: omega'],
      });
      expect(body.manifest.dispatch.file_baseline.files).toEqual([
        expect.objectContaining({ path: join(p.dir, 'H.lean'), sha256: sha }),
      ]);
      // event #1 is the source-note citing the prior run's records
      const first = body.events[0];
      expect(first).toMatchObject({ seq: 1, kind: 'note' });
      expect(first?.payload.kind).toBe('source-note');
      const note = JSON.parse(first?.payload.text as string) as Record<string, unknown>;
      expect(note).toMatchObject({ schema: 'run-persist-source-note/v1', prior_run: prior });
      expect(String(note.handoff_cite)).toMatch(new RegExp(`^${prior}#\\d+$`));
      // the first worker dispatch carries exactly that custody entry
      const dispatch = body.events.find((e) => e.kind === 'dispatch');
      expect(dispatch).toBeDefined();
      expect((dispatch?.payload.file_baseline as { files: unknown[] } | undefined)?.files).toEqual(
        body.manifest.dispatch.file_baseline.files,
      );
      // replans cite the local source-note
      const replan = body.events.find((e) => e.kind === 'replan');
      expect(replan?.payload.cites).toContain(`${runId}#1`);
      expect(await readFile(join(p.dir, 'H.lean'), 'utf8')).toContain('omega');
    } finally {
      await rm(answers, { force: true });
      await p.cleanup();
    }
  }, 120_000); // eight CLI runs end to end: bounded by its own budget, not the 30 s default
});
