/**
 * `handoff inspect` on a real stored autoprove run: the recorded path (the run's transition trace)
 * and the path inferred from its journal alone never pass a state that asks a human (autoprove
 * asks none). The run is made by the built CLI (`handoff run --mode
 * autoprove --persist`), so run `npm run build` first.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { cycleMachine } from '../../machines/index.js';
import { createFsStore } from '../../src/store/index.js';
import { isWithin, machineGraph, nodeIndex } from '../../src/viz/graph.js';
import { overlayPath } from '../../src/viz/index.js';
import { AUTOPROVE_LIMIT, AUTOPROVE_UNREACHABLE, journalPath } from '../../src/viz/journal-path.js';
import { EASY, HARD, runArgs, TS_WORKER, withGitProject } from '../e2e/helpers.js';
import { runCli, stdoutJson } from '../helpers/cli.js';

const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
const index = nodeIndex(g);
const avoidIds = AUTOPROVE_UNREACHABLE.map((p) => `${g.root}.${p}`);
const inAvoided = (id: string) => avoidIds.some((a) => isWithin(index, id, a));
/** The states each edge leaves and enters (`source`, `targets`). */
const touched = (edgeIds: readonly string[]): string[] =>
  edgeIds.flatMap((id) => {
    const e = g.edges.find((x) => x.id === id);
    if (e === undefined) throw new Error(`no edge ${id}`);
    return [e.source, ...e.targets];
  });

const RUN = '20261130T100000Z-0a1b2c3d';

interface InspectJson {
  path: { finished: boolean; steps: { state: string; cite: string }[]; limits: string[] };
  overlay: { steps: { inferred: string[]; edge: string | null }[]; gaps: unknown[] };
}

describe('autoprove: no human answers on the inferred path', () => {
  it('the avoided states are exactly the human questions of the cycle machine and the stuck review after one', () => {
    const human = g.nodes.filter((n) => n.invoke.some((i) => i.src === 'human')).map((n) => n.id);
    expect([...human, `${g.root}.boundary.stuckReview`].sort()).toEqual([...avoidIds].sort());
  });

  it('a prove run keeps the stuck-review mapping and avoids nothing; an autoprove run maps a review after a replan to review', () => {
    const ev = (seq: number, kind: string) => ({ seq, kind, payload: {} });
    const events = [ev(1, 'handoff'), ev(2, 'replan'), ev(3, 'review')];
    const prove = journalPath({ run_id: RUN, events, manifest: { dispatch: { mode: 'prove' } } });
    expect(prove.mode).toBe('prove');
    expect(prove.avoid).toEqual([]);
    expect(prove.steps.at(-1)?.state).toBe('boundary.stuckReview');
    const auto = journalPath({ run_id: RUN, events, manifest: { dispatch: { mode: 'autoprove' } } });
    expect(auto.mode).toBe('autoprove');
    expect(auto.avoid).toEqual(AUTOPROVE_UNREACHABLE);
    expect(auto.steps.at(-1)?.state).toBe('review');
    expect(auto.limits).toContain(AUTOPROVE_LIMIT);
    expect(journalPath({ run_id: RUN, events }).mode).toBeNull();
  });

  it('a stored autoprove run that ends stuck is drawn without asking a human', async () => {
    await withGitProject({ ...HARD, ...EASY }, async (p) => {
      const run = await runCli(runArgs(p.dir, `node ${TS_WORKER}`, '--persist'), { cwd: p.dir });
      expect(run.code, run.stderr).toBe(3);
      const runId = /^run (\S+): stuck$/m.exec(run.stdout)?.[1] as string;
      expect(runId).toMatch(/^\d{8}T\d{6}Z-[0-9a-f]{8}$/);

      const r = await runCli(['inspect', runId, '--project', p.dir, '--format', 'json']);
      expect(r.code, r.stderr).toBe(0);
      const j = stdoutJson<InspectJson>(r);
      // a persisted run records its transitions: inspect draws them, nothing inferred
      expect(j.path.finished).toBe(true);
      expect(j.path.steps.at(-1)?.state).toBe('stuck');
      expect(j.path.limits[0]).toMatch(/^the path is the run's recorded transition trace/);
      expect(j.overlay.gaps).toEqual([]);
      expect(j.overlay.steps.flatMap((s) => s.inferred)).toEqual([]);
      const recorded = j.overlay.steps.flatMap((s) => (s.edge === null ? [] : [s.edge]));
      expect(recorded.length).toBeGreaterThan(5);
      expect(touched(recorded).filter(inAvoided)).toEqual([]);

      // the journal alone (what a run without a trace gives): the inference avoids every human state
      const store = createFsStore({ projectRoot: p.dir, env: {} });
      const l = await store.load(runId);
      store.close();
      if (!l.ok) throw new Error(l.detail);
      const journal = journalPath(l.value);
      expect(journal.limits).toContain(AUTOPROVE_LIMIT);
      const aware = overlayPath(g, journal.steps, { avoid: journal.avoid });
      expect(aware.gaps).toEqual([]);
      const awareEdges = aware.steps.flatMap((s) => [...s.inferred, ...(s.edge === null ? [] : [s.edge])]);
      expect(awareEdges.length).toBeGreaterThan(0);
      expect(touched(awareEdges).filter(inAvoided)).toEqual([]);
      // the same steps without the mode-aware avoidance: the shortest chain asks the blocker question
      const naive = overlayPath(g, journal.steps);
      const naiveEdges = naive.steps.flatMap((s) => s.inferred);
      expect(touched(naiveEdges)).toContain(`${g.root}.boundary.askBlocker`);

      const text = await runCli(['inspect', runId, '--project', p.dir]);
      expect(text.code, text.stderr).toBe(0);
      expect(text.stdout).toContain('recorded transition trace');
    });
  }, 60_000);
});
