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

  it('the cycle machine: stopped is the sink, 25 stop edges (15 onError, 10 guarded stops)', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    expect(errorSinks(g)).toEqual(['cycle.stopped']);
    const c = classifyEdges(g);
    const stop = count(c, 'stop');
    expect(stop).toHaveLength(25);
    expect(count(c, 'error')).toEqual([]);
    expect(g.edges.filter((e) => e.kind === 'error').every((e) => c.get(e.id) === 'stop')).toBe(true);
    expect(g.edges.filter((e) => stop.includes(e.id) && e.kind !== 'error')).toHaveLength(10);
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
