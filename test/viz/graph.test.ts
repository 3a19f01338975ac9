/** The machine → graph model: counts and names match what each machine's config defines. */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { createMachine, setup } from 'xstate';
import { chainMachine, cycleMachine, gateMachine } from '../../machines/index.js';
import { edgeLabel, guardText, isWithin, nodeIndex } from '../../src/viz/graph.js';
import { machineGraph } from '../../src/viz/index.js';

type Cfg = {
  states?: Record<string, Cfg>;
  on?: Record<string, unknown>;
  always?: unknown;
  invoke?: unknown;
  onDone?: unknown;
  initial?: unknown;
  type?: string;
};

/** Counts states, transition candidates, finals and guarded candidates straight from machine.config. */
function countConfig(config: Cfg) {
  let states = 0;
  let transitions = 0;
  let finals = 0;
  const guards: string[] = [];
  const list = (t: unknown): unknown[] => (t === undefined ? [] : Array.isArray(t) ? t : [t]);
  const note = (t: unknown): void => {
    for (const c of list(t)) {
      transitions++;
      const g = (c as { guard?: unknown }).guard;
      if (typeof g === 'string') guards.push(g);
      else if (g !== null && typeof g === 'object' && typeof (g as { type?: unknown }).type === 'string')
        guards.push((g as { type: string }).type);
      else if (typeof g === 'function') guards.push('<combinator>');
    }
  };
  const walk = (c: Cfg): void => {
    for (const t of Object.values(c.on ?? {})) note(t);
    note(c.always);
    for (const i of list(c.invoke)) {
      note((i as { onDone?: unknown }).onDone);
      note((i as { onError?: unknown }).onError);
    }
    note(c.onDone);
    for (const s of Object.values(c.states ?? {})) {
      states++;
      if (s.type === 'final') finals++;
      walk(s);
    }
  };
  walk(config);
  return { states, transitions, finals, guards };
}

const MACHINES: [string, AnyStateMachine][] = [
  ['cycle', cycleMachine as unknown as AnyStateMachine],
  ['chain', chainMachine as unknown as AnyStateMachine],
  ['gate', gateMachine as unknown as AnyStateMachine],
];

describe('machineGraph', () => {
  for (const [name, machine] of MACHINES) {
    it(`${name}: one node per state and one edge per transition candidate of the config`, () => {
      const g = machineGraph(machine);
      const c = countConfig(machine.config as Cfg);
      expect(g.nodes.length - 1).toBe(c.states);
      expect(g.edges.length).toBe(c.transitions);
      expect(g.nodes.filter((n) => n.final).length).toBe(c.finals);
      expect(c.states).toBeGreaterThan(5);
    });

    it(`${name}: guard names appear in config order, combinators spelled out`, () => {
      const g = machineGraph(machine);
      const c = countConfig(machine.config as Cfg);
      const fromGraph = g.edges
        .filter((e) => e.guard !== null)
        .map((e) =>
          /^(and|or|not)\(/.test(e.guard as string)
            ? '<combinator>'
            : (e.guard as string).replace(/\(.*$/, ''),
        );
      expect([...fromGraph].sort()).toEqual([...c.guards].sort());
    });

    it(`${name}: every edge connects known nodes and every compound has one initial child`, () => {
      const g = machineGraph(machine);
      const index = nodeIndex(g);
      for (const e of g.edges) {
        expect(index.has(e.source)).toBe(true);
        for (const t of e.targets) expect(index.has(t)).toBe(true);
      }
      for (const n of g.nodes.filter((x) => x.type === 'compound')) {
        expect(n.children.filter((k) => index.get(k)?.initial).length).toBe(1);
      }
    });

    it(`${name}: is deterministic`, () => {
      expect(JSON.stringify(machineGraph(machine))).toBe(JSON.stringify(machineGraph(machine)));
    });
  }

  it('cycle: compound phases, finals, invokes with done/error edges', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    const index = nodeIndex(g);
    expect(g.id).toBe('cycle');
    expect(index.get('cycle.plan')?.type).toBe('compound');
    expect(index.get('cycle.plan')?.initial).toBe(true);
    expect(index.get('cycle.plan.discover')?.initial).toBe(true);
    expect(g.nodes.filter((n) => n.final).map((n) => n.key)).toEqual(['solved', 'stuck', 'stopped']);
    const discover = index.get('cycle.plan.discover');
    expect(discover?.invoke).toEqual([{ id: 'discover', src: 'diagnostics' }]);
    const fromDiscover = g.edges.filter((e) => e.source === 'cycle.plan.discover');
    expect(fromDiscover.map((e) => e.kind)).toEqual(['done', 'done', 'error']);
    expect(fromDiscover[0]?.guard).toBe('noOpenTargets');
    expect(fromDiscover[0]?.targets).toEqual(['cycle.solved']);
    expect(fromDiscover[2]?.actions).toEqual(['setErrorStop(phase=diagnostics)']);
    // every invoke has its error edge
    for (const n of g.nodes)
      for (const i of n.invoke)
        expect(g.edges.some((e) => e.source === n.id && e.kind === 'error' && e.invoke === i.id)).toBe(true);
    // guards that read an actor output are named after what they test
    expect(g.edges.some((e) => e.guard === 'answeredStop')).toBe(true);
    expect(g.edges.some((e) => e.kind === 'always')).toBe(true);
  });

  it('static guard params are printed; dynamic ones are not', () => {
    const m = setup({
      guards: {
        answered: (_, p: { answer: string }) => p.answer === 'stop',
        seen: (_, p: unknown) => p !== null,
      },
    }).createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: {
          on: {
            GO: [
              { guard: { type: 'answered', params: { answer: 'stop' } }, target: 'b' },
              { guard: { type: 'seen', params: ({ event }: { event: unknown }) => event }, target: 'b' },
            ],
          },
        },
        b: { type: 'final' },
      },
    });
    const g = machineGraph(m as unknown as AnyStateMachine);
    expect(g.edges.map((e) => e.guard)).toEqual(['answered(answer=stop)', 'seen']);
  });

  it('chain: and() guard, reenter self-transition, events', () => {
    const g = machineGraph(chainMachine as unknown as AnyStateMachine);
    const retry = g.edges.filter((e) => e.event === 'RETRY');
    expect(retry.map((e) => e.guard)).toEqual(['and(canRetry, requiresPresent)', 'canRetry']);
    expect(retry[1]?.reenter).toBe(true);
    expect(retry[1]?.targets).toEqual(['chain.failed']);
    expect(retry.map((e) => e.order)).toEqual([0, 1]);
    expect(edgeLabel(retry[0] as (typeof retry)[number])).toBe('RETRY [and(canRetry, requiresPresent)]');
  });

  it('gate: the root-level HARD_STOP transition has the root as source', () => {
    const g = machineGraph(gateMachine as unknown as AnyStateMachine);
    const hard = g.edges.filter((e) => e.event === 'HARD_STOP');
    expect(hard).toHaveLength(1);
    expect(hard[0]?.source).toBe('gate');
    expect(hard[0]?.targets).toEqual(['gate.stopped']);
  });

  it('handles targetless, parallel and inline guards', () => {
    const m = setup({ guards: { ok: () => true }, actions: { log: () => {} } }).createMachine({
      id: 'p',
      type: 'parallel',
      states: {
        left: {
          initial: 'a',
          states: {
            a: { on: { PING: { actions: 'log' }, GO: { guard: { type: 'ok' }, target: 'b' } } },
            b: {},
          },
        },
        right: { initial: 'x', states: { x: { always: { guard: () => false, target: 'y' } }, y: {} } },
      },
    });
    const g = machineGraph(m as unknown as AnyStateMachine);
    const index = nodeIndex(g);
    expect(index.get('p')?.type).toBe('parallel');
    expect(index.get('p.left')?.initial).toBe(false);
    const ping = g.edges.find((e) => e.event === 'PING');
    expect(ping?.targets).toEqual([]);
    expect(ping?.actions).toEqual(['log']);
    expect(g.edges.find((e) => e.kind === 'always')?.guard).toBe('inline');
    expect(guardText({ type: 'x', params: { n: 1 } })).toBe('x(n=1)');
    expect(isWithin(index, 'p.left.a', 'p.left')).toBe(true);
    expect(isWithin(index, 'p.left', 'p.left.a')).toBe(false);
    const plain = createMachine({
      id: 'q',
      initial: 'a',
      states: { a: { on: { E: 'b' } }, b: { type: 'final' } },
    });
    expect(machineGraph(plain as unknown as AnyStateMachine).edges[0]?.targets).toEqual(['q.b']);
  });
});
