/**
 * Model-based tests of machines/synthesis: shortest paths over a bounded context (two claims,
 * one redraft, small budgets) with an explicit list of actor done/error events, replayed on live
 * actors (each state restored from its parent's persisted snapshot, then every event sent once),
 * an invariant table keyed by state, whole-path properties (a redraft only ever replaces
 * session-generated declarations under a policy that allows it; provenance only grows and starts
 * empty; the inner cycle never runs on a draft that did not check; tracker start-claim/reset-claim
 * pair with the claim boundaries), coverage of every state node and transition, and a fast-check
 * random walk over the pure `transition()`.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type AnyEventObject,
  type AnyStateNode,
  type AnyTransitionDefinition,
  createActor,
  fromPromise,
  initialTransition,
  type SnapshotFrom,
  transition,
} from 'xstate';
import { synthesisMachine } from '../../machines/synthesis.js';
import type { Handoff } from '../../src/contract/index.js';
import type { LoopClaim, SynthesisInput } from '../../src/synthesis/loop/types.js';
import { initTracker } from '../../src/tracker/counters.js';
import { workerHandoff } from '../cycle/fixture.js';
import { boundedShortestPaths } from './bounded-paths.js';

type Snap = SnapshotFrom<typeof synthesisMachine>;

const CLAIMS: LoopClaim[] = [
  { id: 'c1', index: 1, title: 'one', text: 'one', name: 'P.one', kind: 'theorem' },
  { id: 'c2', index: 2, title: 'two', text: 'two', name: 'P.two', kind: 'theorem' },
];
const LATE = 10_000;

const done = (id: string, output: unknown): AnyEventObject => ({ type: `xstate.done.actor.${id}`, output });
const fail = (id: string): AnyEventObject => ({ type: `xstate.error.actor.${id}`, error: new Error('boom') });

const stuckWith = (next: Handoff['next_action']): Handoff => workerHandoff('stuck', { next_action: next });
const stopped = (reason: 'max-cycles' | 'operational-error'): Handoff => ({
  ...workerHandoff('solved'),
  status: 'stopped',
  stop_reason: reason,
  stop_detail: reason === 'operational-error' ? 'worker failed' : null,
  next_action: 'stop',
});

function leaf(value: unknown): string {
  if (typeof value === 'string') return value;
  const [k, v] = Object.entries(value as object)[0] as [string, unknown];
  return `${k}.${leaf(v)}`;
}

/** The exhaustive event list: every outcome each active actor can report. */
function eventsFor(s: Snap): AnyEventObject[] {
  const a = s.context.active;
  const name = a?.claim.name ?? 'P.x';
  const decl = a?.replace === 'adjacent' ? `${name}_v${(a?.drafts ?? 0) + 1}` : name;
  switch (leaf(s.value)) {
    case 'extracting':
      return [
        // two claims in the guided preserve input (claim boundaries, the runtime stop between
        // claims), one elsewhere (keeps the graph small)
        done('extract', {
          now: 0,
          ok: true,
          claims:
            s.context.input.mode === 'guided' && s.context.input.commit !== 'ask' ? CLAIMS : [CLAIMS[0]],
        }),
        done('extract', { now: 0, ok: true, claims: [] }),
        done('extract', { now: 0, ok: false, error: 'unreadable' }),
        fail('extract'),
      ];
    case 'claim.inspecting':
      return [
        done('inspectTarget', { now: 1, present: true }),
        done('inspectTarget', { now: 1, present: false }),
        fail('inspectTarget'),
      ];
    case 'claim.drafting':
      return [
        done('drafter', {
          now: 2,
          kind: 'drafted',
          declarations: [decl],
          text: `theorem ${decl}`,
          imports: [],
        }),
        done('drafter', { now: 2, kind: 'declined', reason: 'not a statement' }),
        done('drafter', { now: 2, kind: 'error', reason: 'bad record' }),
        fail('drafter'),
      ];
    case 'claim.asking':
      return ['approve', 'skip', 'stop']
        .map((answer) => done('approveDraft', { now: 3, answer }))
        .concat(fail('approveDraft'));
    case 'claim.askingCommit':
      return ['commit', 'keep', 'stop']
        .map((answer) => done('approveCommit', { now: 4, answer }))
        .concat(fail('approveCommit'));
    case 'claim.assembling':
      return [
        done('assemble', { now: 3, ok: true, added: [decl], skipped: [], error: null }),
        done('assemble', { now: 3, ok: true, added: [], skipped: [decl], error: null }),
        done('assemble', { now: 3, ok: false, added: [], skipped: [], error: 'hostile import line' }),
        fail('assemble'),
      ];
    case 'claim.validating':
      return [
        done('validate', { now: 4, ok: true, errors: [] }),
        done('validate', { now: 4, ok: false, errors: ['P.lean:3: parse error'] }),
        fail('validate'),
      ];
    case 'claim.committing':
      return [
        done('committer', { now: 5, committed: true, commit: 'abc', error: null }),
        done('committer', { now: 5, committed: false, commit: null, error: 'index.lock exists' }),
        fail('committer'),
      ];
    case 'claim.proving': {
      const run = (handoff: Handoff, now = 6) =>
        done('prove', {
          now,
          handoff,
          cycles: 1,
          stuckCycles: handoff.status === 'stuck' ? 1 : 0,
          stuckDeclaration: 'User.lemma',
        });
      return [
        run(workerHandoff('solved')),
        ...(['continue', 'redraft', 'golf', 'stop'] as const).map((n) => run(stuckWith(n))),
        run(stuckWith('deep'), LATE),
        run(stopped('max-cycles')),
        run(stopped('operational-error')),
        fail('prove'),
      ];
    }
    case 'claim.golfing':
      return [
        done('golf', { now: 7, handoff: workerHandoff('solved') }),
        done('golf', { now: 7, handoff: stuckWith('stop') }),
        fail('golf'),
      ];
    default:
      return [];
  }
}

function input(over: Partial<SynthesisInput>): SynthesisInput {
  const t = initTracker({ maxCycles: 2, maxStuck: 2, maxRuntime: 0 }, 'syn-test', 0);
  if (!t.ok) throw new Error(t.error);
  return {
    mode: 'auto',
    entry: 'source',
    targetFile: 'P.lean',
    policy: 'rewrite-generated-only',
    policyExplicit: false,
    commit: 'auto',
    maxCycles: 2,
    maxStuck: 2,
    maxRuntimeMs: 5_000,
    maxRedrafts: 1,
    tracker: t.state,
    startedAt: 0,
    ...over,
  };
}

const INPUTS: Record<string, SynthesisInput> = {
  auto: input({}),
  guidedPreserve: input({ mode: 'guided', policy: 'preserve', policyExplicit: true, commit: 'never' }),
  guidedAsk: input({ mode: 'guided', commit: 'ask' }),
  adjacent: input({ policy: 'adjacent-drafts', policyExplicit: true, commit: 'never' }),
  scopePreserve: input({ entry: 'scope', policy: 'preserve', policyExplicit: true }),
  scopeRewrite: input({ entry: 'scope' }),
};

function serialize(s: Snap): string {
  const c = s.context;
  const a = c.active;
  return JSON.stringify({
    v: s.value,
    st: s.status,
    cur: c.cursor,
    q: c.queue.length,
    a:
      a === null
        ? null
        : [
            a.claim.id,
            a.drafts,
            a.redrafts,
            a.innerRuns,
            a.cyclesUsed,
            a.stuckUsed,
            a.declarations,
            a.replace,
            a.draft?.kind ?? null,
            a.lastHandoff?.status ?? null,
            a.lastHandoff?.next_action ?? null,
            a.lastHandoff?.stop_reason ?? null,
            a.commitDeclined,
          ],
    p: c.provenance.map((p) => p.declaration),
    r: c.reports.map((r) => r.status),
    late: c.now >= LATE,
    h: c.halted !== null,
    hs: c.stoppedByHuman,
    x: c.extractError !== null,
  });
}

type Invariant = (s: Snap) => boolean;
const neverStable: Invariant = () => false;
const generated = (s: Snap) =>
  (s.context.active?.declarations ?? []).every((d) =>
    s.context.provenance.some((p) => p.file === s.context.input.targetFile && p.declaration === d),
  );

/** One invariant per state node (transient `always` states must never be observed as stable). */
const INVARIANTS: Record<string, Invariant> = {
  entry: neverStable,
  extracting: (s) => s.context.queue.length === 0 && s.context.active === null,
  next: neverStable,
  'claim.starting': neverStable,
  'claim.inspecting': (s) => s.context.active?.drafts === 0 && s.context.active.claim.kind !== 'scope',
  'claim.drafting': (s) =>
    s.context.active !== null && s.context.active.drafts <= s.context.input.maxRedrafts,
  'claim.approving': neverStable,
  'claim.asking': (s) => s.context.input.mode === 'guided' && s.context.active?.draft?.kind === 'drafted',
  'claim.assembling': (s) => s.context.active?.draft?.kind === 'drafted',
  'claim.validating': (s) => (s.context.active?.declarations.length ?? 0) > 0,
  'claim.checked': neverStable,
  'claim.askingCommit': (s) =>
    s.context.input.mode === 'guided' && s.context.input.commit === 'ask' && generated(s),
  // a declined draft: commit is never made
  'claim.committing': (s) =>
    s.context.input.commit !== 'never' && generated(s) && s.context.active?.commitDeclined === false,
  // the inner cycle never runs on a draft that did not check
  'claim.proving': (s) =>
    s.context.active !== null && (s.context.active.claim.kind === 'scope' || generated(s)),
  'claim.routing': neverStable,
  'claim.redrafting': neverStable,
  'claim.golfing': (s) => s.context.active?.lastHandoff?.next_action === 'golf',
  done: (s) =>
    s.status === 'done' && s.context.halted === null && s.output?.reports.length === s.context.queue.length,
  halted: (s) => s.status === 'done' && s.context.halted !== null && s.output?.ending === 'halted',
  failed: (s) => s.status === 'done' && s.output?.ending === 'extract-failed',
};

function checkInvariants(s: Snap): void {
  const key = leaf(s.value);
  const inv = INVARIANTS[key];
  expect(inv, `no invariant for state ${key}`).toBeDefined();
  expect(inv?.(s), `invariant of ${key} broken: ${serialize(s)}`).toBe(true);
  // tracker start-claim / reset-claim pair with the claim boundaries
  if (s.status !== 'done') {
    expect(s.context.tracker.claim_active).toBe(s.context.active !== null);
    expect(s.context.tracker.claims_attempted).toBe(s.context.reports.length);
  }
}

/** Whole-path facts: provenance seen so far. */
function stepPath(prev: Snap, next: Snap): void {
  const before = prev.context.provenance.map((p) => p.declaration);
  const after = next.context.provenance.map((p) => p.declaration);
  // provenance only grows (kept across claims and replans)
  expect(after.slice(0, before.length)).toEqual(before);
  // a redraft replaces only session-generated declarations, and never under preserve
  const a = next.context.active;
  if (leaf(next.value) === 'claim.drafting' && a !== null && a.replace !== null) {
    expect(next.context.input.policy).not.toBe('preserve');
    expect(generated(next)).toBe(true);
  }
  expect(next.context.reports.length).toBeGreaterThanOrEqual(prev.context.reports.length);
}

function allStateIds(node: AnyStateNode): string[] {
  return [node.id, ...Object.values(node.states).flatMap((c) => allStateIds(c as AnyStateNode))];
}
function transitionKey(t: AnyTransitionDefinition): string {
  const src = t.source;
  const list = t.eventType === '' ? (src.always ?? []) : (src.transitions.get(t.eventType) ?? []);
  return `${src.id}|${t.eventType}|${list.indexOf(t)}`;
}
function allTransitionKeys(node: AnyStateNode): string[] {
  const own: string[] = [];
  for (const [type, list] of node.transitions)
    for (let i = 0; i < list.length; i++) own.push(`${node.id}|${type}|${i}`);
  for (let i = 0; i < (node.always ?? []).length; i++) own.push(`${node.id}||${i}`);
  return [...own, ...Object.values(node.states).flatMap((c) => allTransitionKeys(c as AnyStateNode))];
}

const pending = () => fromPromise(() => new Promise<never>(() => {})) as never;
const liveMachine = synthesisMachine.provide({
  actors: {
    extract: pending(),
    inspectTarget: pending(),
    drafter: pending(),
    human: pending(),
    assemble: pending(),
    validate: pending(),
    committer: pending(),
    prove: pending(),
    golf: pending(),
  },
});

interface Coverage {
  readonly states: Set<string>;
  readonly transitions: Set<string>;
  readonly reached: Set<string>;
  readonly redrafts: { allowed: number; refused: number; halted: number };
}

const replays = new Map<string, Coverage>();

/** Far above what the bounded inputs reach (at most 200 states, 18 deep); a broken machine fails with a named path. */
const SYNTHESIS_BOUND = { maxStates: 2_000, maxDepth: 60 } as const;

function replay(name: string): Coverage {
  const memo = replays.get(name);
  if (memo) return memo;
  const inp = INPUTS[name] as SynthesisInput;
  const paths = boundedShortestPaths(
    synthesisMachine,
    { input: inp, events: (s) => eventsFor(s as Snap), serializeState: (s) => serialize(s as Snap) },
    SYNTHESIS_BOUND,
  );
  const children = new Map<string, Snap[]>();
  for (const path of paths) {
    const n = path.steps.length;
    const parent = path.steps[n - 2]?.state as Snap | undefined;
    if (parent === undefined) continue;
    const key = serialize(parent);
    children.set(key, [...(children.get(key) ?? []), path.steps[n - 1]?.state as Snap]);
  }
  const cov: Coverage = {
    // the root and the transient initial state (its two `always` edges are in the transition coverage)
    states: new Set(['synthesis', 'synthesis.entry']),
    transitions: new Set(),
    reached: new Set(),
    redrafts: { allowed: 0, refused: 0, halted: 0 },
  };
  const inspect = (ev: { type: string }) => {
    if (ev.type !== '@xstate.microstep') return;
    const snap = (ev as unknown as { snapshot: { _nodes?: AnyStateNode[] } }).snapshot;
    for (const n of snap._nodes ?? []) cov.states.add(n.id);
    for (const t of (ev as unknown as { _transitions: AnyTransitionDefinition[] })._transitions) {
      cov.transitions.add(transitionKey(t));
      if (t.source.id === 'synthesis.claim.redrafting') {
        const i = (t.source.always ?? []).indexOf(t);
        if (i === 0) cov.redrafts.allowed++;
        else if (i === 1) cov.redrafts.halted++;
        else cov.redrafts.refused++;
      }
      for (const target of t.target ?? []) cov.states.add(target.id);
    }
  };
  const first = createActor(liveMachine, { input: inp, inspect });
  first.start();
  const initial = first.getSnapshot();
  for (const n of initial._nodes as AnyStateNode[]) cov.states.add(n.id);
  checkInvariants(initial);
  const walk: { persisted: unknown; snap: Snap }[] = [
    { persisted: first.getPersistedSnapshot(), snap: initial },
  ];
  first.stop();
  cov.reached.add(serialize(initial));
  while (walk.length > 0) {
    const { persisted, snap } = walk.pop() as (typeof walk)[number];
    const kids = new Set((children.get(serialize(snap)) ?? []).map(serialize));
    for (const event of eventsFor(snap)) {
      const actor = createActor(liveMachine, { input: inp, snapshot: persisted as never, inspect });
      actor.start();
      actor.send(event);
      const next = actor.getSnapshot();
      for (const n of next._nodes as AnyStateNode[]) cov.states.add(n.id);
      checkInvariants(next);
      stepPath(snap, next);
      const key = serialize(next);
      if (kids.has(key) && !cov.reached.has(key)) {
        cov.reached.add(key);
        walk.push({ persisted: actor.getPersistedSnapshot(), snap: next });
      }
      actor.stop();
    }
  }
  expect(cov.reached.size).toBe(paths.length);
  replays.set(name, cov);
  return cov;
}

describe('synthesis machine — shortest paths replayed on live actors', () => {
  for (const name of Object.keys(INPUTS)) {
    it(`every shortest path holds the invariants and the path properties (${name})`, () => {
      expect(replay(name).reached.size).toBeGreaterThan(5);
    }, 120_000);
  }

  it('covers every state node and every transition', () => {
    const states = new Set<string>();
    const transitions = new Set<string>();
    for (const name of Object.keys(INPUTS)) {
      const cov = replay(name);
      for (const s of cov.states) states.add(s);
      for (const t of cov.transitions) transitions.add(t);
    }
    const all = allStateIds(synthesisMachine.root);
    expect(all.filter((s) => !states.has(s))).toEqual([]);
    expect(allTransitionKeys(synthesisMachine.root).filter((t) => !transitions.has(t))).toEqual([]);
    const leaves = all.filter((id) => Object.keys(synthesisMachine.getStateNodeById(id).states).length === 0);
    expect(leaves.map((id) => id.replace(/^synthesis\./, '')).sort()).toEqual(Object.keys(INVARIANTS).sort());
  }, 120_000);

  it('the redraft rule is exercised both ways: allowed, refused, and halting under explicit preserve', () => {
    const total = { allowed: 0, refused: 0, halted: 0 };
    for (const name of Object.keys(INPUTS)) {
      const r = replay(name).redrafts;
      total.allowed += r.allowed;
      total.refused += r.refused;
      total.halted += r.halted;
    }
    expect(total.allowed).toBeGreaterThan(0);
    expect(total.refused).toBeGreaterThan(0);
    expect(total.halted).toBeGreaterThan(0);
  }, 120_000);

  it('the path property can fail: a redraft of a user-authored declaration is refused by it', () => {
    const [s0] = initialTransition(synthesisMachine, INPUTS.auto as SynthesisInput);
    const claim = CLAIMS[0] as LoopClaim;
    const active = {
      claim,
      drafts: 1,
      redrafts: 1,
      innerRuns: 1,
      cyclesUsed: 1,
      stuckUsed: 1,
      declarations: ['User.lemma'],
      redraftReason: 'r',
      replace: 'rewrite' as const,
      draft: null,
      lastHandoff: null,
      routes: [],
      commits: [],
    };
    const next = {
      ...s0,
      value: { claim: 'drafting' },
      context: { ...s0.context, active },
    } as unknown as Snap;
    expect(() => stepPath(s0, next)).toThrow();
  });
});

describe('synthesis machine — random walk over the pure transition function', () => {
  it('keeps the invariants and the path properties on random event sequences', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...Object.keys(INPUTS)),
        fc.array(fc.nat(), { minLength: 1, maxLength: 60 }),
        (name, choices) => {
          let [s] = initialTransition(synthesisMachine, INPUTS[name] as SynthesisInput);
          checkInvariants(s);
          for (const c of choices) {
            const evs = eventsFor(s);
            if (evs.length === 0 || s.status === 'done') break;
            const [next] = transition(synthesisMachine, s, evs[c % evs.length] as AnyEventObject);
            checkInvariants(next);
            stepPath(s, next);
            s = next;
          }
          if (s.status === 'done') {
            const out = s.output;
            expect(out?.reports.every((r) => r.status !== 'stuck' || r.reason !== null)).toBe(true);
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});
