/**
 * The replay configuration on a small machine with nesting and a parallel region: entering a
 * compound state descends through initial children, a transition leaves only the states under its
 * domain, and a transition within one region keeps the other region's state.
 */
import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { applyTransition, initialConfiguration } from '../../src/audit/configuration.js';
import { machineGraph } from '../../src/viz/graph.js';

const m = createMachine({
  id: 'm',
  initial: 'a',
  states: {
    a: { initial: 'a1', states: { a1: { on: { NEXT: 'a2' } }, a2: {} }, on: { GO: 'p' } },
    p: {
      type: 'parallel',
      states: {
        left: { initial: 'l1', states: { l1: { on: { L: 'l2' } }, l2: {} } },
        right: { initial: 'r1', states: { r1: {}, r2: {} } },
      },
      on: { BACK: '#m.a.a2' },
    },
  },
});
const g = machineGraph(m);
const index = new Map(g.nodes.map((n) => [n.id, n]));

describe('replay configuration', () => {
  it('starts in the initial leaves and moves by domain', () => {
    expect(initialConfiguration(g)).toEqual(['m.a.a1']);
    expect(applyTransition(index, ['m.a.a1'], 'm.a.a1', ['m.a.a2'])).toEqual(['m.a.a2']);
    const p = applyTransition(index, ['m.a.a2'], 'm.a', ['m.p']);
    expect(p.sort()).toEqual(['m.p.left.l1', 'm.p.right.r1']);
    const l = applyTransition(index, p, 'm.p.left.l1', ['m.p.left.l2']);
    expect(l.sort()).toEqual(['m.p.left.l2', 'm.p.right.r1']);
    expect(applyTransition(index, l, 'm.p', ['m.a.a2'])).toEqual(['m.a.a2']);
    expect(applyTransition(index, ['m.a.a1'], 'm.a.a1', [])).toEqual(['m.a.a1']);
  });
});
