/**
 * The terminal reconciliation tuple: accepted wrapped and bare, no worktree, canonical reconcile
 * acceptance, stop rules ['reconcile'] (+ 'merge' under humanMergeOnly) ignoring stopAt, nextAction
 * copied; anything that is marked for reconciliation but is not the exact tuple fails closed.
 */
import { describe, expect, it } from 'vitest';
import {
  buildHandoffEnvelope,
  HandoffEnvelopeSchema,
  validateHandoffEnvelope,
} from '../../src/envelope/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { BASE_OPTS, reconcileBare, reconcileWrapped } from './helpers.js';

const build = (input: unknown, settings: Record<string, unknown> = {}) =>
  buildHandoffEnvelope(input, settings, { currentHeadSha: 'abc' }, { ...BASE_OPTS, repoRoot: '/repo' });

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    if (isHandoffError(e)) return e.code;
    throw e;
  }
  return 'no error';
}

describe.each([
  ['wrapped', reconcileWrapped],
  ['bare', reconcileBare],
] as const)('terminal reconcile tuple (%s)', (_shape, make) => {
  it('builds a terminal, actionable envelope', () => {
    const input = make();
    const env = build(input);
    expect(env.routeKind).toBe('needs_reconcile');
    expect(env.selectedStrategy).toBeNull();
    expect(env.currentGate).toBe('fail_closed_reconcile');
    expect(env.worktreeRequired).toBe(false);
    expect(env.stopRules).toEqual(['reconcile']);
    expect(env.acceptance).toEqual({
      criteria: [expect.objectContaining({ id: 'reconcile', severity: 'required' })],
      evidence: ['commands-run', 'validation-output'],
      maxFinalizationTurns: 1,
    });
    expect(env.control).toEqual({ needsAttentionAfterMs: 300_000, activeNoticeAfterMs: 300_000 });
    expect(env.nextAction).toBe('Stop and reconcile the issue/PR linkage before routing.');
    expect(Object.keys(env).slice(4, 8)).toEqual([
      'executionMode',
      'routeKind',
      'selectedStrategy',
      'nextAction',
    ]);
    expect(Object.keys(env).at(-1)).toBe('gateState');
    expect(validateHandoffEnvelope(env)).toEqual({ ok: true, errors: [] });
    expect(HandoffEnvelopeSchema.safeParse(env).success).toBe(true);
  });

  it('humanMergeOnly appends merge; off leaves reconcile alone', () => {
    expect(build(make(), { autonomy: { humanMergeOnly: true } }).stopRules).toEqual(['reconcile', 'merge']);
    expect(build(make(), { autonomy: { humanMergeOnly: false } }).stopRules).toEqual(['reconcile']);
  });

  it('configured autonomy.stopAt is ignored (with and without humanMergeOnly)', () => {
    expect(build(make(), { autonomy: { stopAt: ['draft-pr', 'merge'] } }).stopRules).toEqual(['reconcile']);
    expect(build(make(), { autonomy: { stopAt: [], humanMergeOnly: true } }).stopRules).toEqual([
      'reconcile',
      'merge',
    ]);
  });

  it('the resolver nextAction is copied unchanged', () => {
    const action = 'Reconcile the retrospective checkpoint state before routing.';
    const input = make();
    const bundle = (input.bundle ?? input) as Record<string, unknown>;
    bundle.nextAction = action;
    expect(build(input).nextAction).toBe(action);
  });

  it.each([
    'Stop and reconcile the canonical current state before choosing an internal strategy.',
    'Stop and reconcile the authoritative startup/resume state before routing or answering status.',
    'Reconcile the retrospective checkpoint state before routing.',
    'Complete or explicitly skip the required post-run behavioral retrospective before starting or resuming the next dev-loop run.',
  ])('every reconcile directive the reference router emits builds: %s', (action) => {
    const input = make();
    const bundle = (input.bundle ?? input) as Record<string, unknown>;
    bundle.nextAction = action;
    if (input.bundle !== undefined) input.nextAction = action;
    const env = build(input);
    expect(env.nextAction).toBe(action);
    expect(validateHandoffEnvelope(env).ok).toBe(true);
  });

  it('a nextAction without a fail-closed directive is refused (the builder self-validates)', () => {
    const input = make();
    const bundle = (input.bundle ?? input) as Record<string, unknown>;
    bundle.nextAction = 'Keep going with the implementation.';
    expect(code(() => build(input))).toBe('envelope_invalid_input');
  });
});

describe('incomplete or contradictory reconcile tuples fail closed', () => {
  it.each([
    ['wrapped: inner bundleKind missing', () => reconcileWrapped({ bundleKind: undefined })],
    ['wrapped: outer bundleKind missing', () => reconcileWrapped({}, { bundleKind: 'route' })],
    ['wrapped: outer selectedStrategy not "none"', () => reconcileWrapped({}, { selectedStrategy: null })],
    ['wrapped: nested selectedStrategy "none"', () => reconcileWrapped({ selectedStrategy: 'none' })],
    ['wrapped: wrong gate', () => reconcileWrapped({ selectedGate: 'draft' })],
    ['bare: strategy present', () => reconcileBare({ selectedStrategy: 'wait_watch' })],
    [
      'bare: selectedStrategy missing (undefined is not null)',
      () => reconcileBare({ selectedStrategy: undefined }),
    ],
    ['bare: routeKind route with the reconcile gate', () => reconcileBare({ routeKind: 'route' })],
    ['bare: routeKind needs_reconcile with another gate', () => reconcileBare({ selectedGate: 'default' })],
    ['bare: bundleKind contradicts', () => reconcileBare({ bundleKind: 'route' })],
  ])('%s → envelope_reconcile_tuple', (_name, make) => {
    expect(code(() => build(make()))).toBe('envelope_reconcile_tuple');
  });

  it("the resolver's worktree-guard result (outer needs_reconcile around a routed bundle) fails closed", () => {
    // The reference resolver answers a failed local_implementation worktree guard with an outer
    // needs_reconcile wrapper around the still-routed inner bundle; building the routed envelope
    // from it would tell the agent to implement outside a worktree.
    const inner = {
      publicEntrypoint: 'dev-loop',
      bundleKind: 'resolved',
      repo: 'acme/app',
      routeKind: 'route',
      selectedGate: 'local_implementation',
      selectedStrategy: 'local_implementation',
      executionMode: 'bounded_handoff',
      nextAction: 'Run the local implementation strategy for the current branch or phase slice.',
      activeArtifact: { kind: 'local_phase', issue: 42, phase: 'issue-42' },
    };
    const guard = {
      ok: true,
      bundleKind: 'needs_reconcile',
      selectedStrategy: 'none',
      requiredReads: ['skills/docs/public-dev-loop-contract.md'],
      nextAction:
        'Local implementation requires worktree isolation. Current directory is the main git checkout.',
      bundle: inner,
    };
    expect(code(() => build(guard))).toBe('envelope_reconcile_tuple');
  });

  it('the error names every problem', () => {
    try {
      build(reconcileWrapped({ bundleKind: undefined, selectedStrategy: 'none' }, { selectedStrategy: 'x' }));
      throw new Error('no error');
    } catch (e) {
      expect(isHandoffError(e) && e.details.problems).toEqual([
        'bundle.selectedStrategy must be null',
        'bundle.bundleKind must be "needs_reconcile"',
        'selectedStrategy (outer display key) must be "none"',
      ]);
    }
  });
});
