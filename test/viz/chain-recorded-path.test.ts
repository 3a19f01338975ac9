/**
 * The recorded path of a chain run (pure): the chain machine's steps its baton commits carried are
 * drawn as they were taken — a stage failure and its retry included, which the commit-derived path
 * cannot show —, the acceptance (after the last write) is appended from the journal through the
 * machine's edge, and a step the machine does not allow (a forged or edited trace) is a gap, as
 * in the cycle report. The generic core draws any machine from its initial state.
 */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { chainMachine, cycleMachine } from '../../machines/index.js';
import type { TraceStep } from '../../src/store/store-types.js';
import {
  CHAIN_ACCEPTANCE_LIMIT,
  CHAIN_PATH_LIMIT,
  type ChainJournalLike,
  chainJournalPath,
  chainRecordedPath,
  machineGraph,
  type RecordedStep,
  recordedTrail,
} from '../../src/viz/index.js';

const chain = machineGraph(chainMachine as unknown as AnyStateMachine);
const RUN = '20261202T100000Z-0123abcd';
const STAGES = ['intent', 'route', 'pay'];

/** A chain run's commits: one per stage in `stages`, revisions 1.. */
function load(commits: number): ChainJournalLike {
  return {
    run_id: RUN,
    manifest: { stages: STAGES, start_baton: { revision: 0, snapshot_id: 'b::r0::0' } },
    events: Array.from({ length: commits }, (_, i) => ({
      seq: i + 1,
      payload: {
        baton: { revision: i + 1, snapshot_id: `b::r${i + 1}::${i}` },
        receipt: { stage_name: STAGES[i] as string },
      },
    })),
  };
}

const step = (from: string, event: string, to: string, guard?: string): TraceStep => ({
  machine: 'chain',
  from: `chain.${from}`,
  event,
  to: `chain.${to}`,
  ...(guard === undefined ? {} : { guard }),
});
const DONE_STAGE = 'xstate.done.actor.stage';
const DONE_SEAM = 'xstate.done.actor.seam';
const DONE_JOURNAL = 'xstate.done.actor.journal';

/** The steps commit `seq` carries: from the previous commit (or START) to its own `committed`. */
function commitSteps(seq: number, opts: { retry?: boolean } = {}): RecordedStep[] {
  const enter =
    seq === 1
      ? step('ready', 'START', 'running', 'requiresPresent')
      : step('committed', DONE_JOURNAL, 'running', 'requiresPresent');
  const steps = [
    enter,
    ...(opts.retry === true
      ? [
          step('running', 'xstate.error.actor.stage', 'failed'),
          step('failed', 'RETRY', 'running', 'and(canRetry, requiresPresent)'),
        ]
      : []),
    step('running', DONE_STAGE, 'validating'),
    step('validating', DONE_SEAM, 'committed', 'seamPassed'),
  ];
  return steps.map((s) => ({ step: s, cite: `${RUN}#${seq}`, lastSeq: seq }));
}

const edgeOf = (from: string, event: string, to: string) =>
  chain.edges.find(
    (e) => e.source === `chain.${from}` && e.event === event && e.targets.join(',') === `chain.${to}`,
  )?.id as string;

describe('chainRecordedPath', () => {
  it('draws a retried stage as recorded (failed, RETRY) where the derived path shows none', () => {
    const recorded = [...commitSteps(1), ...commitSteps(2, { retry: true }), ...commitSteps(3)];
    const derived = chainJournalPath(load(3));
    const { path, overlay } = chainRecordedPath(chain, recorded, derived, RUN);
    expect(derived.steps.map((s) => s.state)).not.toContain('failed');
    expect(path.steps.map((s) => [s.state, s.stage, s.source, s.seq])).toEqual([
      ['ready', null, 'manifest', null],
      ['running', 'intent', 'trace', 1],
      ['validating', 'intent', 'trace', 1],
      ['committed', 'intent', 'trace', 1],
      ['running', 'route', 'trace', 2],
      ['failed', 'route', 'trace', 2],
      ['running', 'route', 'trace', 2],
      ['validating', 'route', 'trace', 2],
      ['committed', 'route', 'trace', 2],
      ['running', 'pay', 'trace', 3],
      ['validating', 'pay', 'trace', 3],
      ['committed', 'pay', 'trace', 3],
      ['accepted', null, 'acceptance', 3],
    ]);
    expect(path.steps[5]?.cite).toBe(`${RUN}#2`);
    expect(path.finished).toBe(true);
    expect(overlay.gaps).toEqual([]);
    expect(overlay.inferredEdges).toEqual({});
    expect(overlay.current).toBe('chain.accepted');
    expect(overlay.nodeVisits['chain.running']).toBe(4);
    expect(overlay.nodeVisits['chain.failed']).toBe(1);
    expect(overlay.edgeVisits[edgeOf('failed', 'RETRY', 'running')]).toBe(1);
    expect(overlay.edgeVisits[edgeOf('running', 'xstate.error.actor.stage', 'failed')]).toBe(1);
    // the acceptance is drawn through the machine's edge from committed
    const accept = edgeOf('committed', DONE_JOURNAL, 'accepted');
    expect(overlay.steps.at(-1)?.edge).toBe(accept);
    expect(overlay.edgeVisits[accept]).toBe(1);
    expect(path.limits[0]).toMatch(/^the path is the run's recorded transition trace \(11 transitions/);
    expect(path.limits).toContain(CHAIN_ACCEPTANCE_LIMIT);
    expect(path.limits).not.toContain(CHAIN_PATH_LIMIT);
  });

  it('an unfinished run ends at its last commit, with the unfinished limit and no acceptance', () => {
    const { path, overlay } = chainRecordedPath(chain, commitSteps(1), chainJournalPath(load(1)), RUN);
    expect(path.steps.map((s) => s.state)).toEqual(['ready', 'running', 'validating', 'committed']);
    expect(path.finished).toBe(false);
    expect(overlay.current).toBe('chain.committed');
    expect(path.limits.some((l) => l.includes('next stage route'))).toBe(true);
    expect(path.limits.some((l) => l.includes("steps after the run's last commit"))).toBe(true);
    expect(path.limits).not.toContain(CHAIN_ACCEPTANCE_LIMIT);
  });

  it('commits without a trace are named: their steps are missing', () => {
    const recorded = [...commitSteps(1), ...commitSteps(3)];
    const { path } = chainRecordedPath(chain, recorded, chainJournalPath(load(3)), RUN);
    expect(path.limits).toContain(
      `commits written without a trace (their steps are missing from the path): ${RUN}#2`,
    );
  });

  it('hostile: a step the machine lacks is a gap; an unknown target is not drawn; forged strings are clipped to one line', () => {
    const forged: RecordedStep = {
      step: {
        machine: 'chain',
        from: 'chain.validating',
        event: `DROP\n${'x'.repeat(500)}`,
        to: 'chain.<script>alert(1)</script>',
      },
      cite: `${RUN}#2`,
      lastSeq: 2,
    };
    const back: RecordedStep = { step: step('committed', 'START', 'ready'), cite: `${RUN}#2`, lastSeq: 2 };
    const recorded = [...commitSteps(1), back, forged, ...commitSteps(2).slice(1)];
    const { path, overlay } = chainRecordedPath(chain, recorded, chainJournalPath(load(2)), RUN);
    expect(overlay.gaps.map((g) => g.step)).toEqual([4, 5]);
    expect(overlay.gaps[0]?.reason).toBe(
      'chain has no transition from chain.committed on START to chain.ready (see handoff audit)',
    );
    const reason = overlay.gaps[1]?.reason as string;
    expect(reason).not.toContain('\n');
    expect(reason).toContain(`on DROP ${'x'.repeat(114)}…`);
    expect(reason.length).toBeLessThan(400);
    expect(overlay.steps[5]?.nodes).toEqual([]); // the forged target is no state of the machine
    expect(Object.keys(overlay.nodeVisits).every((id) => chain.nodes.some((n) => n.id === id))).toBe(true);
    expect(path.steps[5]?.state).toBe('<script>alert(1)</script>'); // kept as data: the renderers escape it
  });

  it('a trace that does not end where the commits complete the chain: the acceptance is a gap', () => {
    // the last commit's steps are cut after validating: the trace ends outside committed
    const recorded = [...commitSteps(1), ...commitSteps(2), ...commitSteps(3).slice(0, 2)];
    const { overlay, path } = chainRecordedPath(chain, recorded, chainJournalPath(load(3)), RUN);
    expect(path.steps.at(-1)).toMatchObject({ state: 'accepted', source: 'acceptance' });
    expect(overlay.steps.at(-1)?.edge).toBeNull();
    expect(overlay.gaps.at(-1)?.reason).toContain('the recorded trace ends in chain.validating');
  });
});

describe('recordedTrail (any machine)', () => {
  it('starts at the initial leaf state, one step per state change, targetless steps counted only', () => {
    const cycle = machineGraph(cycleMachine as unknown as AnyStateMachine);
    const t = recordedTrail(cycle, [], RUN);
    expect(t.steps).toEqual([
      { state: 'plan.discover', cite: `${RUN}#manifest`, lastSeq: 0, source: 'manifest' },
    ]);
    const c = recordedTrail(
      chain,
      [
        ...commitSteps(1),
        {
          step: { machine: 'chain', from: 'chain.committed', event: 'X', to: '' },
          cite: `${RUN}#1`,
          lastSeq: 1,
        },
      ],
      RUN,
    );
    expect(c.transitions).toBe(4);
    expect(c.steps.map((s) => s.state)).toEqual(['ready', 'running', 'validating', 'committed']);
    expect(c.overlay.gaps).toEqual([]); // a targetless step draws no state (the audit judges it)
  });
});
