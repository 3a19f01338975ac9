/**
 * The audit's restart rule (pure, over steps a real chain machine took): a resumed chain run's
 * new actor begins at `chain.ready`, and its first step is a restart — allowed when it is the
 * machine's first step in its write, or follows an actor that reached a final state (a run
 * stopped at a seam whose leftover steps an older run-store journal wrote with the resumed
 * batch). A restart anywhere else, one of a machine that is not resumable (the cycle machine), or
 * any restart with `resumable: []` stays a finding; after a restart the replay is as strict as
 * from the start.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine } from '../../machines/index.js';
import {
  auditTrace,
  createTraceCollector,
  initialConfiguration,
  type TracedBatch,
} from '../../src/audit/index.js';
import { isTraceRestart, machineFinished, RESUMABLE_MACHINES } from '../../src/audit/trace-restart.js';
import { SeamError } from '../../src/chain/index.js';
import type { TraceStep } from '../../src/store/store-types.js';
import { machineGraph, nodeIndex } from '../../src/viz/graph.js';
import { goodStages, tripBaton, tripChain } from '../chain/trip-fixture.js';

const chainGraph = machineGraph(chainMachine as unknown as AnyStateMachine);
const chainIndex = nodeIndex(chainGraph);
const RUN = '20261201T120000Z-0123abcd';
const cite = (line: number) => `trip-1#${line}`;
const GRAPHS = [machineGraph(cycleMachine as unknown as AnyStateMachine), chainGraph];

/**
 * The steps of a real trip chain whose `route` stage throws once (a worker's hostile message:
 * newlines and a forged trace in its text): the first run (START, intent's commit, route failed,
 * GIVE_UP) and the resumed run from the SeamError's checkpoint, split at each commit.
 */
async function realRuns(): Promise<{ first: TraceStep[][]; resumed: TraceStep[][] }> {
  const stages = goodStages();
  const route = stages.route;
  let calls = 0;
  stages.route = async (...args: Parameters<typeof route>) => {
    calls += 1;
    if (calls === 1)
      throw new Error(
        'down\n{"trace":[{"machine":"chain","from":"chain.ready","event":"START","to":"chain.accepted"}]}',
      );
    return route(...args);
  };
  const chain = tripChain(stages);
  const collector = createTraceCollector({ machines: ['chain'] });
  const split = (into: TraceStep[][]) => () => {
    into.push(collector.take());
  };
  const first: TraceStep[][] = [];
  const err = await chain
    .run(tripBaton(chain), { inspect: collector.inspect, onCommit: split(first) })
    .catch((e: unknown) => e);
  expect(err).toBeInstanceOf(SeamError);
  first.push(collector.take()); // after the last commit: route failed, GIVE_UP
  const resumed: TraceStep[][] = [];
  await chain.run((err as SeamError).checkpoint, { inspect: collector.inspect, onCommit: split(resumed) });
  return { first, resumed };
}

const batchesOf = (traces: readonly (readonly TraceStep[])[]): TracedBatch[] =>
  traces.map((trace, i) => ({ first_seq: i + 1, last_seq: i + 1, trace }));

describe('the restart rule', () => {
  it('a real resume: the new actor’s START opens its write — ok, listed as a restart; with resumable: [] it is not_active', async () => {
    const { first, resumed } = await realRuns();
    expect(first).toHaveLength(2);
    expect(first[1]?.map((s) => s.to)).toEqual(['chain.running', 'chain.failed', 'chain.stopped']);
    expect(resumed[0]?.[0]).toMatchObject({ from: 'chain.ready', event: 'START' });
    expect(JSON.stringify([first, resumed])).not.toContain('down'); // the worker's text is no step
    // what a journal writes: the commits' steps; the stopped run's last steps never reach a commit
    const written = batchesOf([first[0] as TraceStep[], ...resumed]);
    const r = auditTrace('trip-1', written, GRAPHS, cite);
    expect(r).toMatchObject({ ok: true, findings: [] });
    expect(r.restarts).toEqual([{ cite: 'trip-1#2', index: 0, machine: 'chain' }]);
    const strict = auditTrace('trip-1', written, GRAPHS, cite, { resumable: [] });
    expect(strict.ok).toBe(false);
    expect(strict.restarts).toEqual([]);
    expect(strict.findings).toEqual([
      expect.objectContaining({ code: 'not_active', cite: 'trip-1#2', index: 0 }),
    ]);
  });

  it('an older run-store journal’s shape (the stopped run’s steps, then the resumed START, in one batch) is ok: the old actor finished', async () => {
    const { first, resumed } = await realRuns();
    const joined = [...(first[1] as TraceStep[]), ...(resumed[0] as TraceStep[])];
    const r = auditTrace(
      'trip-1',
      batchesOf([first[0] as TraceStep[], joined, ...resumed.slice(1)]),
      GRAPHS,
      cite,
    );
    expect(r).toMatchObject({ ok: true, findings: [] });
    expect(r.restarts).toEqual([{ cite: 'trip-1#2', index: 3, machine: 'chain' }]);
  });

  it('hostile: a restart in the middle of a write while the old actor runs is not_active; an impossible step after a forged restart is flagged', async () => {
    const { first, resumed } = await realRuns();
    const start = resumed[0]?.[0] as TraceStep;
    const second = resumed[1] as TraceStep[]; // committed→running, running→validating, validating→committed
    const mid = [second[0] as TraceStep, start, ...second.slice(1)];
    const r = auditTrace(
      'trip-1',
      batchesOf([first[0] as TraceStep[], resumed[0] as TraceStep[], mid]),
      GRAPHS,
      cite,
    );
    expect(r.findings).toEqual([expect.objectContaining({ code: 'not_active', cite: 'trip-1#3', index: 1 })]);
    expect(r.restarts).toEqual([{ cite: 'trip-1#2', index: 0, machine: 'chain' }]);
    // a restart at a write's start, then validating→committed without the stage's step
    const skip = [start, second[2] as TraceStep];
    const s = auditTrace('trip-1', batchesOf([first[0] as TraceStep[], skip]), GRAPHS, cite);
    expect(s.findings).toEqual([expect.objectContaining({ code: 'not_active', cite: 'trip-1#2', index: 1 })]);
    // a second START right after a restart (the new actor is in running, not finished) is flagged
    const twice = [start, start];
    const t = auditTrace('trip-1', batchesOf([first[0] as TraceStep[], twice]), GRAPHS, cite);
    expect(t.findings).toEqual([expect.objectContaining({ code: 'not_active', cite: 'trip-1#2', index: 1 })]);
  });

  it('only a resumable machine restarts: the same shape of the cycle machine stays not_active', () => {
    const g = GRAPHS[0] as (typeof GRAPHS)[number];
    const initial = initialConfiguration(g);
    const edge = g.edges.find(
      (e) =>
        initial.includes(e.source) && e.targets.length === 1 && !initial.includes(e.targets[0] as string),
    );
    if (edge === undefined) throw new Error('the cycle machine has no edge out of its initial state');
    const step: TraceStep = {
      machine: g.id,
      from: edge.source,
      event: edge.event === '' ? 'xstate.always' : edge.event,
      to: edge.targets.join(','),
      ...(edge.guard === null ? {} : { guard: edge.guard }),
    };
    // the cycle machine is resumable (`handoff run --resume`): here only the chain is
    const r = auditTrace(RUN, batchesOf([[step], [step]]), GRAPHS, undefined, { resumable: ['chain'] });
    expect(r.findings).toEqual([expect.objectContaining({ code: 'not_active', cite: `${RUN}#2`, index: 0 })]);
    expect(r.restarts).toEqual([]);
    expect(RESUMABLE_MACHINES).toEqual(['chain', 'cycle']);
    const resumable = auditTrace(RUN, batchesOf([[step], [step]]), GRAPHS);
    expect(resumable.restarts).toEqual([{ cite: `${RUN}#2`, index: 0, machine: g.id }]);
  });

  it('isTraceRestart and machineFinished answer from the configuration, never throw on foreign states', () => {
    const start: TraceStep = { machine: 'chain', from: 'chain.ready', event: 'START', to: 'chain.running' };
    const at = (leaves: string[], firstInWrite: boolean) => ({
      graph: chainGraph,
      index: chainIndex,
      leaves,
      firstInWrite,
    });
    expect(isTraceRestart(start, at(['chain.committed'], true))).toBe(true);
    expect(isTraceRestart(start, at(['chain.committed'], false))).toBe(false);
    expect(isTraceRestart(start, at(['chain.stopped'], false))).toBe(true);
    expect(isTraceRestart(start, at(['chain.ready'], true))).toBe(false); // active: an ordinary step
    const journalDone: TraceStep = { ...start, from: 'chain.committed', event: 'xstate.done.actor.journal' };
    expect(isTraceRestart(journalDone, at(['chain.stopped'], true))).toBe(false); // not from the initial state
    expect(isTraceRestart({ ...start, from: 'chain.nowhere' }, at(['chain.committed'], true))).toBe(false);
    expect(isTraceRestart({ ...start, machine: 'transfer' }, at(['chain.committed'], true))).toBe(false);
    expect(isTraceRestart(start, { ...at(['chain.committed'], true), resumable: [] })).toBe(false);
    expect(machineFinished(chainIndex, 'chain', ['chain.stopped'])).toBe(true);
    expect(machineFinished(chainIndex, 'chain', ['chain.accepted'])).toBe(true);
    expect(machineFinished(chainIndex, 'chain', ['chain.failed'])).toBe(false);
    expect(machineFinished(chainIndex, 'chain', ['chain.nowhere'])).toBe(false);
  });
});
