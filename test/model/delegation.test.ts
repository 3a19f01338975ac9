/**
 * Model-based tests of machines/delegation.ts: shortest paths generated from the machine's graph
 * with an explicit events function (every answer each host actor can give: journaled or refused
 * dispatches, held or refused snapshots, returned or failed attempts, accepted, refused and failed
 * results, committed or missing journal writes, and actor crashes), replayed on a live actor, an
 * invariant table keyed by state, full state and transition coverage, and a fast-check random walk
 * over the pure transition function.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyMachineSnapshot,
  createActor,
  fromPromise,
  getInitialSnapshot,
  getNextSnapshot,
  type StateNode,
} from 'xstate';
import {
  type DelegationMachineContext,
  type DelegationMachineOutput,
  delegationMachine,
} from '../../machines/delegation.js';
import { handoffFor, validateHandoff } from '../../src/contract/index.js';
import { dispatchRecord } from '../../src/delegate/dispatch-record.js';
import { operationalErrorHandoff, stoppedHandoff } from '../../src/delegate/refusal-handoff.js';
import type { Attempt, CheckResult } from '../../src/delegate/settle-rules.js';
import { readHandoff } from '../../src/delegate/violations.js';
import { storeResult } from '../../src/store/index.js';
import { boundedShortestPaths } from './bounded-paths.js';

const dispatch = dispatchRecord(
  { target: 'src/a.ts:1', scope: 'file', mode: 'autoprove', ownedFiles: ['src/a.ts'] },
  ['/r/src/a.ts'],
  {
    schema: 'file-baseline/v1',
    files: [{ path: '/r/src/a.ts', realpath: '/r/src/a.ts', exists: true, sha256: 'a'.repeat(64), size: 3 }],
  },
  '/tmp',
);
const RUN = '20261130T100000Z-0a1b2c3d';

const ACCEPTED: CheckResult = { outcome: 'accepted', handoff: handoffFor(dispatch), violations: [] };
const REFUSED: CheckResult = {
  outcome: 'refused',
  handoff: stoppedHandoff(dispatch, 'protocol-error', 'invalid handoff record'),
  violations: [{ check: 'schema', detail: 'invalid handoff record' }],
};
const FAILED: CheckResult = {
  outcome: 'failed',
  handoff: operationalErrorHandoff(dispatch, 'the worker threw: x'),
  violations: [],
};
const RETURNED: Attempt = { kind: 'returned', read: readHandoff(handoffFor(dispatch)) };
const WORKER_FAILED: Attempt = {
  kind: 'failed',
  failure: { stop: 'operational-error', detail: 'the worker did not return within 5 ms' },
};

type Ev = { type: string; output?: unknown; error?: unknown };

/** The active leaf as a dotted path (`dispatch`, `journal.accepted`). */
function leaf(s: AnyMachineSnapshot): string {
  const v = s.value as string | Record<string, string>;
  if (typeof v === 'string') return v;
  const [k, child] = Object.entries(v)[0] as [string, string];
  return `${k}.${child}`;
}

const done = (id: string, output: unknown): Ev => ({ type: `xstate.done.actor.${id}`, output });
const error = (id: string): Ev => ({ type: `xstate.error.actor.${id}`, error: new Error(`${id} crashed`) });

/** Every answer each state's actor can give. */
function eventsFor(s: AnyMachineSnapshot): Ev[] {
  switch (leaf(s)) {
    case 'dispatch':
      return [
        done('journalDispatch', { ok: true, runId: RUN, result: storeResult('committed', RUN) }),
        done('journalDispatch', { ok: true, runId: null, result: null }),
        done('journalDispatch', {
          ok: false,
          result: storeResult('nothing_written', null, { code: 'busy', detail: 'run is locked' }),
        }),
        error('journalDispatch'),
      ];
    case 'prepare':
      return [
        done('prepare', { ok: true, held: { snapshot: 1 } }),
        done('prepare', { ok: false, result: REFUSED }),
        done('prepare', { ok: false, result: FAILED }),
        error('prepare'),
      ];
    case 'work':
      return [done('worker', RETURNED), done('worker', WORKER_FAILED), error('worker')];
    case 'check': {
      // the checks accept only an answer the worker returned (settleAttempt's rule)
      const returned = (s.context as DelegationMachineContext).attempt?.kind === 'returned';
      return [
        ...(returned ? [done('check', ACCEPTED)] : []),
        done('check', REFUSED),
        done('check', FAILED),
        error('check'),
      ];
    }
    case 'journal.accepted':
    case 'journal.refused':
    case 'journal.failed': {
      const c = s.context as DelegationMachineContext;
      return [
        done(
          'journalHandoff',
          c.runId === null
            ? { result: null }
            : { result: storeResult('committed', c.runId, { seq: 1 }), cite: `${c.runId}#1` },
        ),
        done('journalHandoff', {
          result: storeResult('indeterminate', c.runId, { step: 'fsync' }),
        }),
        done('journalHandoff', {
          result: storeResult('nothing_written', c.runId, { code: 'busy', detail: 'run is locked' }),
        }),
        error('journalHandoff'),
      ];
    }
    case 'unrecorded':
      return [
        done('restoreOwned', ['owned files restored to their pre-dispatch bytes']),
        error('restoreOwned'),
      ];
    default:
      return [];
  }
}

function serialize(s: AnyMachineSnapshot): string {
  const c = s.context as DelegationMachineContext;
  return JSON.stringify([
    leaf(s),
    c.runId,
    c.held !== null,
    c.attempt?.kind ?? null,
    c.attempt?.kind === 'failed' ? c.attempt.failure.detail : null,
    c.result?.outcome ?? null,
    c.result?.handoff.stop_detail ?? null,
    c.journal?.outcome ?? null,
    c.journal?.detail ?? null,
    c.cite,
  ]);
}

/** A result's handoff is a valid record, and never `solved` unless accepted. */
function checkResult(r: CheckResult | null, outcome: CheckResult['outcome']): void {
  expect(r?.outcome).toBe(outcome);
  expect(validateHandoff(r?.handoff).ok).toBe(true);
  if (outcome !== 'accepted') expect(r?.handoff.status).not.toBe('solved');
  if (outcome === 'accepted') expect(r?.violations).toEqual([]);
  if (outcome === 'refused') expect(r?.violations.length).toBeGreaterThan(0);
}

/** A cite is only ever the run's own. */
function checkCite(c: DelegationMachineContext): void {
  if (c.cite !== null) expect(c.cite.startsWith(`${c.runId}#`)).toBe(true);
}

/** Invariants keyed by state; a state without an entry fails the coverage test. */
const INVARIANTS: Record<string, (c: DelegationMachineContext, s: AnyMachineSnapshot) => void> = {
  dispatch: (c) => {
    expect(c).toMatchObject({ runId: null, held: null, attempt: null, result: null, cite: null });
  },
  prepare: (c) => {
    expect(c).toMatchObject({ held: null, attempt: null, result: null, cite: null });
  },
  work: (c) => {
    // the worker runs only once the dispatch is journaled and the snapshot held
    expect(c.held).not.toBeNull();
    expect(c).toMatchObject({ attempt: null, result: null, cite: null });
  },
  check: (c) => {
    expect(c.held).not.toBeNull();
    expect(c.attempt).not.toBeNull();
    expect(c.result).toBeNull();
  },
  'journal.accepted': (c) => {
    checkResult(c.result, 'accepted');
    expect(c.attempt?.kind).toBe('returned');
    expect(c.cite).toBeNull();
  },
  'journal.refused': (c) => {
    checkResult(c.result, 'refused');
    expect(c.cite).toBeNull();
  },
  'journal.failed': (c) => {
    checkResult(c.result, 'failed');
    expect(c.cite).toBeNull();
  },
  unrecorded: (c) => {
    // an accepted answer the store refused to record: not settled, its files go back next
    checkResult(c.result, 'accepted');
    expect(c.journal?.outcome).toBe('nothing_written');
    expect(c.cite).toBeNull();
  },
  settled: (c, s) => {
    checkResult(c.result, 'accepted');
    // write-ahead: nothing is accepted that the store refused to record
    expect(c.journal?.outcome).not.toBe('nothing_written');
    checkCite(c);
    expect((s.output as DelegationMachineOutput).result).toBe(c.result);
  },
  refused: (c, s) => {
    checkResult(c.result, 'refused');
    checkCite(c);
    expect((s.output as DelegationMachineOutput).result.outcome).toBe('refused');
  },
  failed: (c, s) => {
    checkResult(c.result, 'failed');
    checkCite(c);
    const out = s.output as DelegationMachineOutput;
    expect(['operational-error', 'user-stop', 'protocol-error']).toContain(out.result.handoff.stop_reason);
  },
};

function checkInvariants(s: AnyMachineSnapshot): void {
  const inv = INVARIANTS[leaf(s)];
  if (!inv) throw new Error(`no invariant for state ${leaf(s)}`);
  inv(s.context as DelegationMachineContext, s);
}

/** Every atomic state, as a dotted path. */
function leaves(): string[] {
  const out: string[] = [];
  const walk = (n: StateNode, prefix: string) => {
    const kids = Object.values(n.states) as StateNode[];
    if (kids.length === 0) out.push(prefix);
    for (const k of kids) walk(k, prefix === '' ? k.key : `${prefix}.${k.key}`);
  };
  walk(delegationMachine.root as unknown as StateNode, '');
  return out.sort();
}

/** Every (source path, event type, target path) the machine declares, nested states included. */
function declaredEdges(): Set<string> {
  const out = new Set<string>();
  const rel = (id: string) => id.replace(/^delegation\./, '');
  const walk = (n: StateNode) => {
    for (const [eventType, defs] of n.transitions)
      for (const d of defs)
        for (const t of d.target ?? [n]) out.add(`${rel(n.id)}|${eventType}|${rel(t.id)}`);
    for (const k of Object.values(n.states) as StateNode[]) walk(k);
  };
  for (const k of Object.values(delegationMachine.root.states) as unknown as StateNode[]) walk(k);
  return out;
}

/** Far above what the machine reaches (it ends within 6 events); a broken machine fails with a named path. */
const BOUND = { maxStates: 400, maxDepth: 20 } as const;

const paths = boundedShortestPaths(
  delegationMachine,
  { input: { dispatch }, events: (s) => eventsFor(s), serializeState: (s) => serialize(s) },
  BOUND,
);

// biome-ignore lint/suspicious/noExplicitAny: one pending actor stands in for all six
const neverResolves = fromPromise<any, any>(() => new Promise(() => {}));

describe('delegation machine (graph-generated)', () => {
  it('generates paths to every state, and every state has an invariant', () => {
    const reached = new Set(paths.map((p) => leaf(p.state as AnyMachineSnapshot)));
    expect([...reached].sort()).toEqual(leaves());
    expect(Object.keys(INVARIANTS).sort()).toEqual(leaves());
  });

  it('replays every shortest path on a live actor; invariants hold at every step', () => {
    const live = delegationMachine.provide({
      actors: {
        journalDispatch: neverResolves,
        prepare: neverResolves,
        runWorker: neverResolves,
        check: neverResolves,
        journalHandoff: neverResolves,
        restoreOwned: neverResolves,
      },
    });
    for (const path of paths) {
      const actor = createActor(live, { input: { dispatch } });
      actor.start();
      checkInvariants(actor.getSnapshot());
      for (const step of path.steps) {
        if ((step.event.type as string) === 'xstate.init') continue;
        actor.send(step.event as never);
        const snap = actor.getSnapshot();
        expect(snap.value).toEqual(step.state.value);
        checkInvariants(snap);
      }
      expect(actor.getSnapshot().value).toEqual(path.state.value);
      actor.stop();
    }
  });

  it('covers every declared transition', () => {
    const seen: string[] = [];
    for (const path of paths) {
      let prev: AnyMachineSnapshot | undefined;
      for (const step of path.steps) {
        const s = step.state as AnyMachineSnapshot;
        if ((step.event.type as string) !== 'xstate.init' && prev)
          seen.push(`${leaf(prev)}|${step.event.type}|${leaf(s)}`);
        prev = s;
      }
    }
    // a transition of a compound state is taken from any of its children
    const covered = (edge: string) => {
      const [from, event, to] = edge.split('|') as [string, string, string];
      return seen.some((x) => {
        const [pf, pe, pt] = x.split('|') as [string, string, string];
        return (pf === from || pf.startsWith(`${from}.`)) && pe === event && pt === to;
      });
    };
    expect([...declaredEdges()].filter((e) => !covered(e))).toEqual([]);
  });

  it('only an accepted check settles; a refused dispatch never reaches the worker', () => {
    for (const path of paths) {
      const states = path.steps.map((s) => leaf(s.state as AnyMachineSnapshot));
      if (states.includes('settled')) expect(states).toContain('journal.accepted');
      if (states.includes('work')) expect(states.indexOf('prepare')).toBeLessThan(states.indexOf('work'));
      // the handoff is journaled before every settle but a refused dispatch's
      const end = states.at(-1);
      if (end === 'settled' || end === 'refused')
        expect(states.some((x) => x.startsWith('journal.'))).toBe(true);
    }
  });

  it('random walks keep every invariant (fast-check over the pure transition)', () => {
    const noise: Ev[] = [
      done('check', REFUSED),
      done('worker', RETURNED),
      done('journalHandoff', { result: null }),
      { type: 'START' },
    ];
    fc.assert(
      fc.property(fc.array(fc.nat(), { maxLength: 20 }), (choices) => {
        let s = getInitialSnapshot(delegationMachine, { dispatch }) as AnyMachineSnapshot;
        checkInvariants(s);
        for (const n of choices) {
          if (s.status === 'done') break;
          const options = [...eventsFor(s), ...noise];
          s = getNextSnapshot(
            delegationMachine,
            s as never,
            options[n % options.length] as never,
          ) as AnyMachineSnapshot;
          checkInvariants(s);
        }
      }),
      { numRuns: 200 },
    );
  });
});
