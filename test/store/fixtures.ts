/**
 * Record fixtures for the run-store tests. The seed's canonical records (first dispatch, stuck and
 * solved handoffs) come from the shared run-contract fixtures (examples/records/*.json); the
 * store's own records (notes, reviews, replans) and a fixed clock are defined here.
 */
import { type Baton, stageDelta } from '../../src/chain/index.js';
import type { CreateChainRunInput } from '../../src/store/index.js';
import { type NestShape, nest } from '../canonical/deep.js';
import { goodStages, tripBaton, tripChain, tripContract } from '../chain/trip-fixture.js';
import { stuckHandoff } from '../contract/fixtures.js';

export { canonicalDispatch as dispatch, solvedHandoff, stuckHandoff } from '../contract/fixtures.js';

/** A note payload (also the run-persistence tests' note). */
export function note(
  text = 'exact foo: type mismatch',
  kind = 'failed-avenue',
): { kind: string; text: string; lean: null } {
  return { kind, text, lean: null };
}

/** A completed stuck review whose triage matches the stuck handoff. */
export function stuckReview(): Record<string, unknown> {
  const h = stuckHandoff();
  return {
    schema: 'review-record/v1',
    cycle: 1,
    mode: 'stuck',
    target: h.target,
    scope: 'sorry',
    line: 42,
    source: 'internal',
    status: 'completed',
    output: null,
    triage: {
      blocker_class: h.blocker_class,
      blocker_kind: h.blocker_kind,
      blocker_signature: h.blocker_signature,
      next_action: h.next_action,
      statement_may_be_false: false,
      evidence: ['unknown identifier hg'],
    },
    mapped_handoff: h,
    detail: null,
  };
}

/** A completed batch review. */
export function batchReview(): Record<string, unknown> {
  return {
    schema: 'review-record/v1',
    cycle: 0,
    mode: 'batch',
    target: 'Mathlib/Foo.lean:42',
    scope: 'sorry',
    line: null,
    source: 'internal',
    status: 'completed',
    output: { schema: 'lean4-review-output/v2', error: null, suggestions: [] },
    triage: null,
    mapped_handoff: null,
    detail: null,
  };
}

/**
 * A valid completed batch review whose own nesting depth is exactly `depth` (at least 2): its
 * output carries a value nested `depth - 2` deep (shaped by `shape`).
 */
export function reviewOfDepth(depth: number, shape?: NestShape): Record<string, unknown> {
  return {
    ...batchReview(),
    output: { schema: 'lean4-review-output/v2', error: null, deep: nest(Math.max(depth, 2) - 2, shape) },
  };
}

/** A replan summary citing `cites`. */
export function replan(cites: string[] = [], cycle = 1): Record<string, unknown> {
  return {
    schema: 'replan-summary/v1',
    cycle,
    plan: 'try Continuous.comp with explicit arguments',
    failed_approaches: ['continuity'],
    blockers: [
      {
        file: 'Mathlib/Foo.lean',
        line: 42,
        blocker_class: 'missing-library-lemma',
        blocker_signature: 'Mathlib/Foo.lean:42:unknown identifier',
      },
    ],
    next_steps: ['search for Continuous.comp'],
    cites,
  };
}

/**
 * A deterministic run-id suffix source: `a0000001`, `a0000002`, … (each has a letter, so an
 * upper-cased id is never a valid one by accident, as an all-digit random suffix once made it).
 */
export function sequentialSuffix(): () => string {
  let n = 0;
  return () => `a${(++n).toString(16).padStart(7, '0')}`;
}

/** A fixed clock. */
export function fixedClock(iso = '2026-11-30T10:00:00Z'): () => Date {
  return () => new Date(iso);
}

/**
 * The trip chain's batons r0..r3 of one clean run (`batons`), and of a second run whose route
 * stage delivers another departure time (`otherBatons`: same r0/r1, a different r2 and r3).
 */
export async function chainCommits(): Promise<{ batons: Baton[]; otherBatons: Baton[] }> {
  const collect = async (routeValue: string | null): Promise<Baton[]> => {
    const stages = goodStages();
    const chain = tripChain(
      routeValue === null
        ? stages
        : {
            ...stages,
            route: () => stageDelta({ depart_by: { value: routeValue, evidence: ['maps://other'] } }),
          },
    );
    const b0 = tripBaton(chain);
    const out: Baton[] = [b0];
    await chain.run(b0, { onCommit: (c) => void out.push(c.baton) });
    return out;
  };
  return { batons: await collect(null), otherBatons: await collect('17:30') };
}

/** A chain run request for the trip chain starting from `start`, created at the fixed clock's time. */
export function chainRunInput(start: Baton): CreateChainRunInput & { contract: unknown } {
  return {
    chainId: 'trip-chain',
    contract: tripContract,
    stages: ['intent', 'route', 'pay'],
    startBaton: start,
    now: '2026-11-30T10:00:00Z',
  };
}
