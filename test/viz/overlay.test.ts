/** Path overlay: step resolution, edge matching with visit counts, inference, gaps, rendering. */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine, gateMachine } from '../../machines/index.js';
import { machineGraph, overlayPath, toDot, toHtml, toJson, toMermaid } from '../../src/viz/index.js';

const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
const cycle = machineGraph(cycleMachine as unknown as AnyStateMachine);
const gate = machineGraph(gateMachine as unknown as AnyStateMachine);
const edgeId = (g: typeof chain, source: string, target: string, guard: string | null = null): string => {
  const e = g.edges.find(
    (x) => x.source === source && x.targets.includes(target) && (guard === null || x.guard === guard),
  );
  if (e === undefined) throw new Error(`no edge ${source} -> ${target}`);
  return e.id;
};

/** A chain run: two seams, one refusal and a retry, then accepted. */
const CHAIN_RUN = [
  { state: 'ready' },
  { state: 'running', event: 'START' },
  { state: 'validating' },
  { state: 'committed' },
  { state: 'running' },
  { state: 'validating' },
  { state: 'failed' },
  { state: 'running', event: 'RETRY' },
  { state: 'validating' },
  { state: 'committed' },
  { state: 'accepted' },
];

describe('overlayPath', () => {
  it('matches each consecutive pair to its edge and counts visits', () => {
    const o = overlayPath(chain, CHAIN_RUN);
    expect(o.nodeVisits).toEqual({
      'chain.ready': 1,
      'chain.running': 3,
      'chain.validating': 3,
      'chain.committed': 2,
      'chain.failed': 1,
      'chain.accepted': 1,
    });
    expect(o.edgeVisits[edgeId(chain, 'chain.running', 'chain.validating')]).toBe(3);
    expect(o.edgeVisits[edgeId(chain, 'chain.validating', 'chain.committed')]).toBe(2);
    // the unguarded validating -> failed (seam refused), not the error edge
    const refused = chain.edges.find(
      (e) => e.source === 'chain.validating' && e.kind === 'done' && e.guard === null,
    );
    expect(o.edgeVisits[refused?.id as string]).toBe(1);
    expect(o.edgeVisits[edgeId(chain, 'chain.failed', 'chain.running')]).toBe(1);
    expect(o.edgeVisits[edgeId(chain, 'chain.committed', 'chain.accepted')]).toBe(1);
    expect(o.gaps).toEqual([]);
    expect(o.current).toBe('chain.accepted');
    expect(Object.keys(o.inferredEdges)).toEqual([]);
  });

  it('prefers the edge of the given event', () => {
    const o = overlayPath(chain, [{ state: 'failed' }, { state: 'failed', event: 'RETRY' }]);
    expect(Object.keys(o.edgeVisits)).toEqual([edgeId(chain, 'chain.failed', 'chain.failed')]);
    const a = overlayPath(chain, [{ state: 'ready' }, { state: 'failed', event: 'START' }]);
    expect(Object.keys(a.edgeVisits)).toEqual([edgeId(chain, 'chain.ready', 'chain.failed')]);
  });

  it('a repeated state without an event is a stay, not a self-loop', () => {
    const o = overlayPath(chain, [{ state: 'failed' }, { state: 'failed' }]);
    expect(o.edgeVisits).toEqual({});
    expect(o.nodeVisits['chain.failed']).toBe(2);
  });

  it('resolves ids, dotted paths and state values', () => {
    const o = overlayPath(cycle, [
      { state: 'cycle.plan.discover' },
      { state: { plan: 'choose' } },
      { state: 'plan.planning' },
    ]);
    expect(o.steps.map((s) => s.nodes)).toEqual([
      ['cycle.plan.discover'],
      ['cycle.plan.choose'],
      ['cycle.plan.planning'],
    ]);
    expect(o.steps[1]?.edge).toBe(edgeId(cycle, 'cycle.plan.discover', 'cycle.plan.choose'));
  });

  it('infers the shortest chain between phases that no single edge connects', () => {
    // a human's falsification policy (replan.askFalsify → work.falsify) is a single replan → work
    // edge; a run that asks no human avoids that question, and the chain runs through the boundary
    const falsify = edgeId(cycle, 'cycle.replan.askFalsify', 'cycle.work.falsify');
    expect(overlayPath(cycle, [{ state: 'replan' }, { state: 'work' }]).steps[1]?.edge).toBe(falsify);
    const avoid = ['replan.askFalsify'];
    const o = overlayPath(cycle, [{ state: 'replan' }, { state: 'work' }], { avoid });
    const step = o.steps[1];
    expect(step?.edge).toBeNull();
    expect(step?.inferred.length).toBeGreaterThanOrEqual(2);
    const chainEdges = step?.inferred.map((id) => cycle.edges.find((e) => e.id === id)) ?? [];
    expect(chainEdges[0]?.source.startsWith('cycle.replan')).toBe(true);
    expect(chainEdges.at(-1)?.targets.some((t) => t.startsWith('cycle.work'))).toBe(true);
    expect(chainEdges.some((e) => e?.source === 'cycle.replan.askFalsify')).toBe(false);
    expect(o.inferredNodes['cycle.boundary'] ?? o.inferredNodes['cycle.boundary.tick']).toBeGreaterThan(0);
    const noInfer = overlayPath(cycle, [{ state: 'replan' }, { state: 'work' }], { avoid, infer: false });
    expect(noInfer.gaps).toHaveLength(1);
  });

  it('reports unknown states and unreachable pairs as gaps', () => {
    const o = overlayPath(gate, [
      { state: 'provisional' },
      { state: 'nowhere' },
      { state: 'leadReview' },
      { state: 'provisional' },
    ]);
    expect(o.gaps.map((g) => g.step)).toEqual([1, 3]);
    expect(o.steps[1]?.nodes).toEqual([]);
  });

  it('uses the root transition from any state', () => {
    const o = overlayPath(gate, [{ state: 'routing' }, { state: 'stopped', event: 'HARD_STOP' }]);
    expect(o.steps[1]?.edge).toBe(gate.edges.find((e) => e.event === 'HARD_STOP')?.id);
  });

  it('is drawn in every format', () => {
    const o = overlayPath(chain, CHAIN_RUN);
    const running = edgeId(chain, 'chain.running', 'chain.validating');
    const mermaid = toMermaid(chain, { overlay: o });
    expect(mermaid).toContain('classDef visited');
    expect(mermaid).toMatch(/ {2}class [\w,]*running[\w,]* visited/);
    expect(mermaid).toContain('class accepted current');
    expect(mermaid).toContain('running --> validating : done: stage (visited x3)');
    const dot = toDot(chain, { overlay: o });
    expect(dot).toMatch(new RegExp(`id="${running}", color="#e65100"`));
    expect(dot).toContain('(visited x3)');
    const html = toHtml(chain, { overlay: o });
    expect(html).toMatch(
      new RegExp(`<g class="edge kind-done visited" data-id="${running}"[^>]*data-visits="3"`),
    );
    expect(html).toMatch(
      /<g class="node state leaf type-final final visited current" data-id="chain.accepted" data-visits="1"/,
    );
    expect(html).toContain('<section class="path">');
    const json = JSON.parse(toJson(chain, o)) as {
      overlay: { edge_visits: Record<string, number>; current: string };
    };
    expect(json.overlay.edge_visits[running]).toBe(3);
    expect(json.overlay.current).toBe('chain.accepted');
  });
});
