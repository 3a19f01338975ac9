/**
 * Main path versus error/stop edges: error sinks are final states named stopped/failed/error/
 * aborted; edges into them are stop (lane) edges, other invoke errors are error edges.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine, gateMachine } from '../../machines/index.js';
import { classifyEdges, edgeClass, errorSinks, isErrorSink, isLaneEdge } from '../../src/viz/edge-class.js';
import { machineGraph } from '../../src/viz/graph.js';
import { vizEdge, vizNode } from './layout-fixtures.js';

/** The parts of an xstate state node this test reads. */
interface DefNode {
  readonly id: string;
  readonly states: Record<string, DefNode>;
  readonly transitions: Map<string, readonly { readonly target?: readonly { readonly id: string }[] }[]>;
  readonly always?: readonly { readonly target?: readonly { readonly id: string }[] }[];
}

/** Every transition the machine defines (on, onDone, onError, always), with its target ids. */
function definedTransitions(n: DefNode): { error: boolean; targets: string[] }[] {
  const out: { error: boolean; targets: string[] }[] = [];
  for (const [event, list] of n.transitions)
    for (const t of list)
      out.push({ error: event.startsWith('xstate.error.'), targets: (t.target ?? []).map((x) => x.id) });
  for (const t of n.always ?? []) out.push({ error: false, targets: (t.target ?? []).map((x) => x.id) });
  for (const child of Object.values(n.states)) out.push(...definedTransitions(child));
  return out;
}

const count = (m: Map<string, string>, c: string): string[] =>
  [...m].filter(([, v]) => v === c).map(([k]) => k);

describe('edge classes', () => {
  it('an error sink is a final state named like a stop or failure', () => {
    expect(isErrorSink(vizNode('m.stopped', 'm', { final: true, type: 'final' }))).toBe(true);
    expect(isErrorSink(vizNode('m.failed', 'm', { final: true, type: 'final' }))).toBe(true);
    expect(isErrorSink(vizNode('m.failed', 'm'))).toBe(false);
    expect(isErrorSink(vizNode('m.solved', 'm', { final: true, type: 'final' }))).toBe(false);
  });

  it('stop: every target a sink; error: an onError elsewhere; main: the rest', () => {
    const sinks = new Set(['m.stopped']);
    expect(edgeClass(vizEdge('e0', 'm.a', ['m.stopped']), sinks)).toBe('stop');
    expect(edgeClass(vizEdge('e1', 'm.a', ['m.stopped'], { kind: 'error' }), sinks)).toBe('stop');
    expect(edgeClass(vizEdge('e2', 'm.a', ['m.b'], { kind: 'error' }), sinks)).toBe('error');
    expect(edgeClass(vizEdge('e3', 'm.a', ['m.b', 'm.stopped']), sinks)).toBe('main');
    expect(edgeClass(vizEdge('e4', 'm.a', []), sinks)).toBe('main');
    expect(isLaneEdge(vizEdge('e0', 'm.a', ['m.stopped']), sinks)).toBe(true);
  });

  it('the cycle machine: stopped is the sink, every transition into it a stop edge (onError and guarded stops), the deep-mode errors into its rollback error edges', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    expect(errorSinks(g)).toEqual(['cycle.stopped']);
    const c = classifyEdges(g);
    const stop = count(c, 'stop');
    // counted from the machine definition itself, not from the graph
    const def = definedTransitions(cycleMachine.root as unknown as DefNode);
    const intoStopped = def.filter(
      (t) => t.targets.length > 0 && t.targets.every((x) => x === 'cycle.stopped'),
    );
    const errorsElsewhere = def.filter((t) => t.error && !t.targets.every((x) => x === 'cycle.stopped'));
    expect(intoStopped.filter((t) => t.error).length).toBeGreaterThan(20);
    expect(intoStopped.filter((t) => !t.error).length).toBeGreaterThan(15);
    expect(stop).toHaveLength(intoStopped.length);
    expect(g.edges.filter((e) => stop.includes(e.id) && e.kind === 'error')).toHaveLength(
      intoStopped.filter((t) => t.error).length,
    );
    expect(g.edges.filter((e) => stop.includes(e.id) && e.kind !== 'error')).toHaveLength(
      intoStopped.filter((t) => !t.error).length,
    );
    // the deep mode's baseline/worker/verify errors roll back, a failed rollback ends stuck
    const errors = count(c, 'error').map((id) => g.edges.find((e) => e.id === id));
    expect(errors).toHaveLength(errorsElsewhere.length);
    expect(errors.map((e) => `${e?.source}>${e?.targets.join(',')}`)).toEqual([
      'cycle.work.deep.baseline>cycle.work.deep.rollback',
      'cycle.work.deep.dispatching>cycle.work.deep.rollback',
      'cycle.work.deep.verify>cycle.work.deep.rollback',
      'cycle.work.deep.rollback>cycle.stuck',
    ]);
    expect(g.edges.filter((e) => e.kind === 'error').every((e) => c.get(e.id) !== 'main')).toBe(true);
  });

  it('chain and gate: errors into live states stay error edges, only stops go to the lane', () => {
    const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
    expect(errorSinks(chain)).toEqual(['chain.stopped']);
    const cc = classifyEdges(chain);
    expect(count(cc, 'stop')).toEqual(['e14']);
    expect(count(cc, 'error')).toEqual(['e4', 'e7', 'e11']);
    const gate = machineGraph(gateMachine as unknown as AnyStateMachine);
    expect(errorSinks(gate)).toEqual(['gate.stopped']);
    const gc = classifyEdges(gate);
    expect(count(gc, 'stop')).toEqual(['e0', 'e6', 'e15']);
    expect(count(gc, 'error')).toHaveLength(8);
  });
});
