/**
 * Resuming a killed run (pure rules over a real loaded journal of the memory store): the state that
 * continues it (same run id, history and last seq from the journal, knowledge rebuilt, nothing in
 * flight), the journal's last known bytes per file (custody), and the refusals — a damaged
 * journal, a run whose trace reached the cycle's final state.
 */
import { describe, expect, it } from 'vitest';
import { custodyDrift, cycleEnded, resumeVerdict } from '../../src/persist/resume-rules.js';
import { createMemoryStore, type RunLoad } from '../../src/store/index.js';
import { dispatch, workerHandoff } from './fixtures.js';

const H = (c: string) => c.repeat(64);
const P = '/repo/Mathlib/Foo.lean';
const baseline = (sha: string) => ({
  schema: 'file-baseline/v1' as const,
  files: [{ path: P, realpath: P, exists: true, sha256: sha, size: 1300 }],
});

/** A journal: the manifest's dispatch (sha 0…), a worker handoff (sha 1…), a note, a redispatch (sha 1…). */
async function journal(): Promise<RunLoad> {
  const store = createMemoryStore({
    now: () => new Date('2026-12-06T12:00:00Z'),
    runIdSuffix: () => '0a1b2c3d',
  });
  const c = await store.createRun({
    dispatch: dispatch(),
    trackerSessionId: null,
    now: '2026-12-06T12:00:00Z',
  });
  const id = c.run_id as string;
  await store.append(id, 'handoff', workerHandoff());
  await store.append(id, 'note', { kind: 'failed-avenue', text: 'exact foo: type mismatch', lean: null });
  await store.append(id, 'dispatch', { ...dispatch(), file_baseline: baseline(H('1')) });
  const l = await store.load(id);
  if (!l.ok) throw new Error(l.detail);
  return l.value;
}

const at = { storageRoot: 'memory:', projectRoot: '/p', runDirectory: null };

describe('resumeVerdict', () => {
  it('rebuilds the state from the journal: same run, last seq, history with cites, knowledge', async () => {
    const run = await journal();
    const v = resumeVerdict(run, at);
    expect(v.ok).toBe(true);
    if (!v.ok) return;
    expect(v.state).toMatchObject({
      run_id: run.run_id,
      last_seq: 3,
      inflight: null,
      stopped: null,
      finished: null,
    });
    expect(v.state.history.map((e) => e.cite)).toEqual([1, 2, 3].map((n) => `${run.run_id}#${n}`));
    expect(v.state.knowledge?.accumulated.failed_avenues).toContain(`${run.run_id}#2`);
    expect(v.state.knowledge?.current.file_baseline).toEqual(baseline(H('1')));
    expect(v.handoffs.map((h) => h.cite)).toEqual([`${run.run_id}#1`]);
    expect(v.lastDispatch.file_baseline).toEqual(baseline(H('1')));
    expect(v.custody).toEqual([{ path: P, exists: true, sha256: H('1'), origin: `${run.run_id}#3` }]);
  });

  it('a damaged journal and a finished run are refused', async () => {
    const run = await journal();
    const damaged = resumeVerdict({ ...run, damaged: true }, at);
    expect(damaged).toMatchObject({ ok: false, code: 'journal_damaged' });
    const done = resumeVerdict(run, at, [
      { machine: 'cycle', from: 'cycle.review', event: 'xstate.done.actor.review', to: 'cycle.solved' },
    ]);
    expect(done).toMatchObject({ ok: false, code: 'run_finished' });
  });
});

describe('custodyDrift and cycleEnded', () => {
  const known = [{ path: '/p/A.lean', exists: true, sha256: H('b'), origin: 'R#3' }];
  it('names a modified or deleted file with the record it was last known at; an unchanged one is fine', () => {
    expect(custodyDrift(known, [{ path: '/p/A.lean', exists: true, sha256: H('b') }])).toEqual([]);
    expect(custodyDrift(known, [{ path: '/p/A.lean', exists: true, sha256: H('c') }])).toEqual([
      '/p/A.lean (modified; last known at R#3)',
    ]);
    expect(custodyDrift(known, [{ path: '/p/A.lean', exists: false, sha256: null }])).toEqual([
      '/p/A.lean (deleted; last known at R#3)',
    ]);
    expect(custodyDrift(known, [{ path: '/p/B.lean', exists: true, sha256: H('d') }])).toEqual([]);
  });
  it('only a cycle step into a final state ends the run', () => {
    expect(
      cycleEnded([{ machine: 'cycle', from: 'cycle.plan', event: 'e', to: 'cycle.work.dispatching' }]),
    ).toBe(false);
    expect(cycleEnded([{ machine: 'chain', from: 'x', event: 'e', to: 'cycle.solved' }])).toBe(false);
    expect(cycleEnded([{ machine: 'cycle', from: 'x', event: 'e', to: 'cycle.stopped' }])).toBe(true);
  });
});
