/**
 * The seed's executable sequence through the built CLI on the fs store: start → note → review →
 * replan → dispatch → handoff → finish. Seqs are dense 1..n, every cite resolves to an earlier
 * event, and the stored final handoff equals `status`.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, stdoutJson } from '../helpers/cli.js';
import { batchReview, dispatch, replan, stuckHandoff, tempDir, workerHandoff } from './fixtures.js';

let dir: string;
let cleanup: () => Promise<void>;
beforeEach(async () => {
  ({ dir, cleanup } = await tempDir());
});
afterEach(async () => {
  await cleanup();
});

type R = Record<string, unknown> & { action: string; cite?: string; seq?: number; run_id?: string };

describe('handoff persist: the executable sequence', () => {
  it('drives a whole run and the journal matches what the helper reported', async () => {
    const store = join(dir, 'store');
    const project = join(dir, 'project');
    await mkdir(project);
    const stateDir = join(dir, 'private');
    await mkdir(stateDir);
    const env = { HANDOFF_RUN_PERSIST_STATE: join(stateDir, 'run-persist.json'), HANDOFF_RUN_STORE: '' };
    const file = async (name: string, v: unknown) => {
      const p = join(dir, name);
      await writeFile(p, JSON.stringify(v));
      return p;
    };
    const cli = async (args: string[], code = 0): Promise<R> => {
      const r = await runCli(['persist', ...args], { env, cwd: project });
      expect(r.code, `${args[0]}: ${r.stdout}${r.stderr}`).toBe(code);
      return stdoutJson<R>(r);
    };

    const start = await cli([
      'start',
      '--root',
      store,
      '--dispatch',
      await file('d.json', dispatch()),
      '--tracker-session-id',
      'sid',
    ]);
    expect(start.action).toBe('continue');
    const runId = start.run_id as string;
    const cites: string[] = [];
    const n = await cli(['note', '--kind', 'failed-avenue', '--text', 'exact foo: type mismatch']);
    cites.push(n.cite as string);
    const rv = await cli(['review', '--payload', await file('review.json', batchReview())]);
    cites.push(rv.cite as string);
    const rp = await cli([
      'replan',
      '--payload',
      await file('replan.json', replan([n.cite as string, rv.cite as string])),
    ]);
    cites.push(rp.cite as string);
    const d2 = await cli(['dispatch', '--payload', await file('d2.json', dispatch())]);
    cites.push(d2.cite as string);
    const w = await cli(['handoff', '--payload', await file('w.json', workerHandoff())]);
    cites.push(w.cite as string);
    const final = {
      ...stuckHandoff(),
      failed_avenues: [n.cite as string],
      evidence: { ...stuckHandoff().evidence, top_candidates: [w.cite as string] },
    };
    const f = await cli(['finish', '--payload', await file('final.json', final)]);
    expect(f).toMatchObject({ action: 'done', stored: true });
    cites.push(f.cite as string);
    expect(cites).toEqual([1, 2, 3, 4, 5, 6].map((s) => `${runId}#${s}`));

    const load = await runCli(['store', 'load', '--root', store, '--run-id', runId]);
    const loaded = stdoutJson<{
      events: { seq: number; kind: string; payload: Record<string, unknown> }[];
      effective_handoff: { payload: unknown };
    }>(load);
    expect(loaded.events.map((e) => e.seq)).toEqual([1, 2, 3, 4, 5, 6]);
    expect(loaded.events.map((e) => e.kind)).toEqual([
      'note',
      'review',
      'replan',
      'dispatch',
      'handoff',
      'handoff',
    ]);
    // every cite in the journal resolves to an earlier event
    const seqOf = (c: string) => Number(c.split('#')[1]);
    for (const e of loaded.events) {
      const text = JSON.stringify(e.payload);
      for (const m of text.matchAll(/[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#([0-9]+)/g)) {
        expect(m[0].startsWith(runId)).toBe(true);
        expect(seqOf(m[0])).toBeLessThan(e.seq);
      }
    }
    const status = await cli(['status']);
    expect(status.final_handoff).toEqual({ cite: f.cite, handoff: final, outcome: 'committed' });
    expect(loaded.effective_handoff.payload).toEqual((status.final_handoff as { handoff: unknown }).handoff);
    // terminal: a later mutation stops (exit 5) without touching the store
    const after = await cli(['note', '--kind', 'candidate', '--text', 'x'], 5);
    expect(after).toMatchObject({ action: 'stop', outcome: 'terminal' });
    // a dozen CLI processes in a row: its own budget, as a loaded 2-core machine needs
  }, 120_000);

  it('exit codes: usage 2 without state, startup-error 3 for state_exists and invalid_dispatch', async () => {
    const project = join(dir, 'p');
    await mkdir(project);
    const r = await runCli(['persist', 'status'], { env: { HANDOFF_RUN_PERSIST_STATE: '' }, cwd: project });
    expect(r.code).toBe(2);
    const state = join(dir, 'state.json');
    await writeFile(state, '{}');
    const d = join(dir, 'd.json');
    await writeFile(d, JSON.stringify(dispatch()));
    const exists = await runCli(['persist', 'start', '--state', state, '--dispatch', d], { cwd: project });
    expect(exists.code).toBe(3);
    expect(stdoutJson<R>(exists).code).toBe('state_exists');
    await writeFile(d, JSON.stringify({ ...dispatch(), mode: 'x' }));
    const bad = await runCli(['persist', 'start', '--state', join(dir, 's2.json'), '--dispatch', d], {
      cwd: project,
    });
    expect(bad.code).toBe(3);
    expect(stdoutJson<R>(bad).code).toBe('invalid_dispatch');
    // reuse-only flags without --prior-run are usage errors, and nothing is created
    await writeFile(d, JSON.stringify(dispatch()));
    for (const flag of ['--approve', '--evidence-justification', '--reuse-report']) {
      const s3 = join(dir, 's3.json');
      const u = await runCli(['persist', 'start', '--state', s3, '--dispatch', d, flag, 'x'], {
        cwd: project,
      });
      expect(u.code, flag).toBe(2);
      expect(u.stderr).toContain(`${flag} needs --prior-run`);
      await expect(readFile(s3)).rejects.toThrow();
    }
  });
});
