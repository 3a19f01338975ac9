/**
 * The bounded graph walk of the model tests: a machine whose graph never ends (a counter without a
 * ceiling, as an inverted guard makes one) fails fast with the path that broke the bound, and a
 * finite machine gets exactly the paths of `getShortestPaths`.
 */
import { describe, expect, it } from 'vitest';
import { type AnyMachineSnapshot, assign, setup } from 'xstate';
import { getShortestPaths } from 'xstate/graph';
import { boundedShortestPaths, WalkBoundError, walkSize } from './bounded-paths.js';

const counter = (ceiling: number) =>
  setup({ types: { context: {} as { n: number } } }).createMachine({
    id: 'counter',
    context: { n: 0 },
    initial: 'idle',
    states: {
      idle: { on: { GO: 'counting' } },
      counting: {
        on: {
          INC: {
            guard: ({ context }) => context.n < ceiling,
            actions: assign({ n: ({ context }) => context.n + 1 }),
          },
          STOP: 'done',
        },
      },
      done: { type: 'final' },
    },
  });

const events = (s: AnyMachineSnapshot) =>
  s.matches('idle') ? [{ type: 'GO' }] : s.matches('counting') ? [{ type: 'INC' }, { type: 'STOP' }] : [];
const serializeState = (s: AnyMachineSnapshot) => JSON.stringify([s.value, s.context]);

describe('boundedShortestPaths', () => {
  it('gives the same paths as getShortestPaths on a finite graph', () => {
    const m = counter(3);
    const bounded = boundedShortestPaths(m, { events, serializeState }, { maxStates: 50, maxDepth: 10 });
    const plain = getShortestPaths(m, { events: events as never, serializeState: serializeState as never });
    expect(bounded.map((p) => p.steps.map((s) => s.event.type))).toEqual(
      plain.map((p) => p.steps.map((s) => s.event.type)),
    );
    expect(walkSize(bounded)).toEqual({ states: 9, depth: 5 });
  });

  it('stops an unbounded graph at maxStates and names the path that got there', () => {
    const run = () =>
      boundedShortestPaths(
        counter(Number.POSITIVE_INFINITY),
        { events, serializeState },
        { maxStates: 20, maxDepth: 1_000 },
      );
    expect(run).toThrow(WalkBoundError);
    expect(run).toThrow(/passed 20 distinct states/);
    try {
      run();
    } catch (e) {
      const path = (e as WalkBoundError).path.split('\n').map((l) => l.trim());
      expect(path[0]).toBe('"idle"');
      expect(path[1]).toBe('GO → "counting"');
      expect(path.slice(2).every((l) => l === 'INC → "counting"')).toBe(true);
      expect(path.length).toBeGreaterThan(10);
    }
  });

  it('stops a walk deeper than maxDepth', () => {
    expect(() =>
      boundedShortestPaths(counter(100), { events, serializeState }, { maxStates: 10_000, maxDepth: 5 }),
    ).toThrow(/6 events deep \(bound 5\)/);
  });
});
