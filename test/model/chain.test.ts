/**
 * Model-based tests of machines/chain.ts: shortest paths generated from the machine's graph with
 * an explicit events function (realistic stage deltas and seam outcomes computed by the pure seam
 * rules), replayed on a live actor, an invariant table keyed by state, full state and transition
 * coverage, and a fast-check random walk over the pure transition function.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyMachineSnapshot,
  createActor,
  fromPromise,
  getInitialSnapshot,
  getNextSnapshot,
} from 'xstate';
import { type ChainMachineContext, type ChainMachineInput, chainMachine } from '../../machines/chain.js';
import {
  type Baton,
  checkDelta,
  commitBaton,
  seedBaton,
  stageDelta,
  stageRunId,
} from '../../src/chain/index.js';
import { tripBaton, tripChain } from '../chain/trip-fixture.js';
import { boundedShortestPaths } from './bounded-paths.js';

const chain = tripChain();
const b0 = tripBaton(chain);

const GOOD: Record<string, ReturnType<typeof stageDelta>> = {
  intent: stageDelta({
    city: { value: 'Shanghai', evidence: ['chat://1'] },
    policy: { value: { latest_departure: '20:00' }, evidence: ['policy://v3'] },
  }),
  route: stageDelta({ depart_by: { value: '18:00', evidence: ['maps://42'] } }),
  pay: stageDelta({ payment_id: { value: 'pay-1', evidence: ['bank://1'] } }, ['ticket://1']),
};

function inputFor(baton: Baton, specs: ChainMachineInput['specs'] = chain.specs): ChainMachineInput {
  return {
    chain_id: chain.chain_id,
    contract_digest: chain.contract_digest,
    specs,
    initial_keys: chain.initial_keys,
    baton,
    max_attempts: 2,
  };
}

/** Specs whose `route` needs a fact nobody commits: reaching a missing fact right after a commit. */
const specsWithGap = chain.specs.map((s) =>
  s.name === 'route' ? { ...s, requires: [...s.requires, 'visa'] } : s,
);

/** The baton of a completed run (START on it goes straight to accepted). */
function doneBaton(): Baton {
  let b = b0;
  for (const stage of ['intent', 'route', 'pay']) {
    const out = checkDelta(chain, b, GOOD[stage]);
    if (!out.ok) throw new Error('fixture');
    b = out.baton;
  }
  return b;
}

function inputOf(c: ChainMachineContext): ChainMachineInput {
  return {
    chain_id: c.chain_id,
    contract_digest: c.contract_digest,
    specs: c.specs,
    initial_keys: c.initial_keys,
    baton: c.baton,
    max_attempts: c.max_attempts,
  };
}

/** A revision-1 baton missing `policy`: the only way to reach missing_required_fact. */
function gapBaton(): Baton {
  const b1 = checkDelta(chain, b0, GOOD.intent);
  if (!b1.ok) throw new Error('fixture');
  const gap = seedBaton({
    baton_id: 'trip-1',
    contract_digest: chain.contract_digest,
    intent: 'x',
    records: b1.baton.records.filter((r) => r.key !== 'policy'),
  });
  return commitBaton(gap, {
    stage_name: 'intent',
    records: [],
    artifact_refs: [],
    receipt: () => b1.receipt,
  });
}

type Ev = { type: string; output?: unknown; error?: unknown };

/** Every event that matters in a state, with outputs computed from the context. */
function eventsFor(s: AnyMachineSnapshot): Ev[] {
  const c = s.context as ChainMachineContext;
  switch (s.value) {
    case 'ready':
      return [{ type: 'START' }];
    case 'running': {
      const stage = chain.specs[c.baton.revision]?.name ?? '';
      return [
        { type: 'xstate.done.actor.stage', output: GOOD[stage] },
        { type: 'xstate.done.actor.stage', output: stageDelta({}) },
        { type: 'xstate.error.actor.stage', error: new Error('agent down') },
      ];
    }
    case 'validating':
      return [
        { type: 'xstate.done.actor.seam', output: checkDelta(chain, c.baton, c.delta) },
        { type: 'xstate.error.actor.seam', error: new Error('validator host crashed') },
      ];
    case 'committed':
      return [
        { type: 'xstate.done.actor.journal' },
        { type: 'xstate.error.actor.journal', error: new Error('disk full') },
      ];
    case 'failed':
      return [{ type: 'RETRY' }, { type: 'GIVE_UP' }];
    default:
      return [];
  }
}

function serialize(s: AnyMachineSnapshot): string {
  const c = s.context as ChainMachineContext;
  return JSON.stringify([
    s.value,
    c.baton.snapshot_id,
    c.attempt,
    c.failure?.code ?? null,
    c.delta === null ? null : JSON.stringify(c.delta),
    c.pending?.baton.snapshot_id ?? null,
    c.acceptance?.receipt_id ?? null,
  ]);
}

/** Invariants keyed by state; a state without an entry fails the coverage test. */
const INVARIANTS: Record<string, (c: ChainMachineContext) => void> = {
  ready: (c) => {
    expect(c.failure).toBeNull();
    expect(c.pending).toBeNull();
    expect(c.attempt).toBe(0);
  },
  running: (c) => {
    expect(c.failure).toBeNull();
    expect(c.checkpoint).toBeNull();
    expect(c.attempt).toBeGreaterThanOrEqual(1);
    expect(c.attempt).toBeLessThanOrEqual(c.max_attempts);
    const stage = c.specs[c.baton.revision]?.name as string;
    expect(c.stage_run_id).toBe(stageRunId(c.baton, stage));
  },
  validating: (c) => {
    expect(c.failure).toBeNull();
    expect(c.stage_run_id).toBe(stageRunId(c.baton, c.specs[c.baton.revision]?.name as string));
  },
  committed: (c) => {
    expect(c.pending).not.toBeNull();
    expect(c.pending?.baton.revision).toBe(c.baton.revision + 1);
    expect(c.pending?.receipt.input_fingerprint).toBe(c.baton.fingerprint);
    expect(c.pending?.receipt.stage_run_id).toBe(c.stage_run_id);
  },
  failed: (c) => {
    expect(c.failure).not.toBeNull();
    // a seam failure always holds the input baton of the failed stage as checkpoint
    expect(c.checkpoint).toBe(c.baton);
    expect(c.failure?.stage).toBe(c.specs[c.baton.revision]?.name);
    expect(c.pending).toBeNull();
    expect(c.attempt).toBeGreaterThanOrEqual(1);
  },
  accepted: (c) => {
    expect(c.baton.revision).toBe(c.specs.length);
    expect(c.acceptance?.artifact_id).toBe(c.baton.snapshot_id);
    expect(c.acceptance?.decision).toBe('accepted');
    expect(c.failure).toBeNull();
  },
  stopped: (c) => {
    expect(c.failure).not.toBeNull();
    expect(c.checkpoint).toBe(c.baton);
    expect(c.acceptance).toBeNull();
  },
};

function checkInvariants(s: AnyMachineSnapshot): void {
  const inv = INVARIANTS[String(s.value)];
  if (!inv) throw new Error(`no invariant for state ${String(s.value)}`);
  inv(s.context as ChainMachineContext);
}

/** Every (source, event type, target) edge the machine declares. */
function declaredEdges(): Set<string> {
  const out = new Set<string>();
  for (const node of Object.values(chainMachine.root.states)) {
    for (const [eventType, defs] of node.transitions) {
      for (const d of defs) {
        for (const t of d.target ?? [node]) out.add(`${node.key}|${eventType}|${t.key}`);
      }
    }
  }
  return out;
}

/** Far above what the bounded inputs reach (86 states, 13 deep); a broken machine fails with a named path. */
const CHAIN_BOUND = { maxStates: 400, maxDepth: 40 } as const;

const pathsFrom = (input: ChainMachineInput) =>
  boundedShortestPaths(
    chainMachine,
    { input, events: (s) => eventsFor(s), serializeState: (s) => serialize(s) },
    CHAIN_BOUND,
  );

// biome-ignore lint/suspicious/noExplicitAny: one pending actor stands in for all three
const neverResolves = fromPromise<any, any>(() => new Promise(() => {}));

describe('chain machine (graph-generated)', () => {
  const paths = [
    ...pathsFrom(inputFor(b0)),
    ...pathsFrom(inputFor(gapBaton())),
    ...pathsFrom(inputFor(b0, specsWithGap)),
    ...pathsFrom(inputFor(doneBaton())),
  ];

  it('generates paths to every state', () => {
    const reached = new Set(paths.map((p) => String(p.state.value)));
    expect([...reached].sort()).toEqual(Object.keys(chainMachine.root.states).sort());
    expect(Object.keys(INVARIANTS).sort()).toEqual(Object.keys(chainMachine.root.states).sort());
  });

  it('replays every shortest path on a live actor; invariants hold at every step', () => {
    const live = chainMachine.provide({
      actors: { runStage: neverResolves, validateDelta: neverResolves, persistCommit: neverResolves },
    });
    for (const path of paths) {
      const first = path.steps[0]?.state.context as ChainMachineContext;
      const actor = createActor(live, { input: inputOf(first) });
      actor.start();
      checkInvariants(actor.getSnapshot());
      for (const step of path.steps) {
        if ((step.event.type as string) === 'xstate.init') continue;
        actor.send(step.event as never);
        const snap = actor.getSnapshot();
        expect(snap.value).toBe(step.state.value);
        checkInvariants(snap);
      }
      expect(actor.getSnapshot().value).toBe(path.state.value);
      actor.stop();
    }
  });

  it('covers every declared transition', () => {
    const seen = new Set<string>();
    for (const path of paths) {
      let prev: AnyMachineSnapshot | undefined;
      for (const step of path.steps) {
        if ((step.event.type as string) !== 'xstate.init' && prev)
          seen.add(`${String(prev.value)}|${step.event.type}|${String(step.state.value)}`);
        prev = step.state as AnyMachineSnapshot;
      }
    }
    const missing = [...declaredEdges()].filter((e) => !seen.has(e));
    expect(missing).toEqual([]);
  });

  it('a retried seam reuses the stage_run_id of the failed attempt', () => {
    const failedThenRetried = paths.find(
      (p) => p.steps.some((s) => s.event.type === 'RETRY') && p.state.value === 'running',
    );
    expect(failedThenRetried).toBeDefined();
    const runIds = failedThenRetried?.steps
      .filter((s) => s.state.value === 'running')
      .map((s) => (s.state.context as ChainMachineContext).stage_run_id);
    expect(new Set(runIds?.slice(-2)).size).toBe(1);
  });

  it('random walks keep every invariant (fast-check over the pure transition)', () => {
    const noise: Ev[] = [{ type: 'START' }, { type: 'RETRY' }, { type: 'GIVE_UP' }];
    fc.assert(
      fc.property(fc.nat(3), fc.array(fc.nat(), { maxLength: 40 }), (variant, choices) => {
        const inputs = [
          inputFor(b0),
          inputFor(gapBaton()),
          inputFor(b0, specsWithGap),
          inputFor(doneBaton()),
        ];
        let s = getInitialSnapshot(chainMachine, inputs[variant] as ChainMachineInput) as AnyMachineSnapshot;
        checkInvariants(s);
        for (const n of choices) {
          if (s.status === 'done') break;
          const options = [...eventsFor(s), ...noise];
          s = getNextSnapshot(
            chainMachine,
            s as never,
            options[n % options.length] as never,
          ) as AnyMachineSnapshot;
          checkInvariants(s);
        }
      }),
      { numRuns: 150 },
    );
  });
});
