import { describe, expect, it } from 'vitest';
import { validateDispatch } from '../../src/contract/index.js';
import { canonicalDispatch } from './fixtures.js';

function codes(input: unknown): string[] {
  const r = validateDispatch(input);
  return r.ok ? [] : r.issues.map((i) => `${i.path}:${i.code}`);
}

describe('dispatch record (run-contract/v1)', () => {
  it('accepts the seed’s canonical dispatch example', () => {
    const r = validateDispatch(canonicalDispatch());
    expect(r.ok).toBe(true);
  });

  it.each([
    'schema',
    'record',
    'target',
    'scope',
    'mode',
    'worker',
    'parameters',
    'capabilities',
    'owned_files',
    'file_baseline',
    'prior_blocker',
    'evidence_delta',
    'budget',
    'context',
  ])('requires %s', (key) => {
    const d = canonicalDispatch() as unknown as Record<string, unknown>;
    delete d[key];
    expect(validateDispatch(d).ok).toBe(false);
  });

  it('accepts unknown keys at the root and in context, keeps them and warns (as liberal as the reference)', () => {
    const d = { ...canonicalDispatch(), extra: 1 };
    d.context = { ...d.context, hint: 'x' } as typeof d.context;
    const r = validateDispatch(d);
    expect(r.ok).toBe(true);
    if (r.ok) expect(r.value).toEqual(d);
    expect(r.warnings?.map((w) => `${w.path}:${w.code}`)).toEqual([
      'extra:unknown_key',
      'context.hint:unknown_key',
    ]);
  });

  it('keeps exact keys in the typed shapes (budget, parameters, search results) like the reference', () => {
    const d = canonicalDispatch();
    expect(codes({ ...d, budget: { ...d.budget, extra: 1 } })).toContain('budget:unrecognized_keys');
  });

  it('refuses a __proto__ key where unknown keys are accepted (forbidden_key)', () => {
    const text = JSON.stringify(canonicalDispatch()).replace(
      /^\{/,
      '{"__proto__":{"worker":"proof-golfer"},',
    );
    expect(codes(JSON.parse(text))).toContain('__proto__:forbidden_key');
  });

  it.each([
    'prior_failure',
    'goal_state',
    'diagnostics',
    'search_results',
    'candidates_tested',
    'code_actions',
    'scratch_location',
  ])('never lets context.%s be omitted', (key) => {
    const d = canonicalDispatch();
    delete (d.context as Record<string, unknown>)[key];
    expect(validateDispatch(d).ok).toBe(false);
  });

  it('requires a non-null, non-empty scratch_location', () => {
    const d = canonicalDispatch();
    (d.context as { scratch_location: unknown }).scratch_location = null;
    expect(validateDispatch(d).ok).toBe(false);
    d.context.scratch_location = '';
    expect(validateDispatch(d).ok).toBe(false);
  });

  it('rejects booleans where integers are required', () => {
    const d = canonicalDispatch();
    (d.budget as { max_cycles: unknown }).max_cycles = true;
    expect(validateDispatch(d).ok).toBe(false);
    const e = canonicalDispatch();
    (e.parameters as { deep_budget: { max_files: unknown } }).deep_budget.max_files = false;
    expect(codes(e)).toContain('parameters.deep_budget.max_files:bad_parameters');
  });

  it('takes {} exactly for an inline pass and nothing else', () => {
    const d = { ...canonicalDispatch(), worker: null, parameters: {} };
    expect(validateDispatch(d).ok).toBe(true);
    expect(validateDispatch({ ...d, parameters: { fast_pass_error: 'x' } }).ok).toBe(false);
  });

  it('checks each worker’s exact parameter shape', () => {
    const golfer = {
      ...canonicalDispatch(),
      worker: 'proof-golfer',
      parameters: { search_mode: 'quick', golfable_patterns: [], candidate_targets: [] },
    };
    expect(validateDispatch(golfer).ok).toBe(true);
    expect(
      validateDispatch({ ...golfer, parameters: { ...golfer.parameters, search_mode: 'deep' } }).ok,
    ).toBe(false);
    const repair = {
      ...canonicalDispatch(),
      worker: 'proof-repair',
      parameters: {
        error: { errorType: 'type', message: 'm', file: 'F.lean', line: 3, goal: 'g', localContext: [] },
      },
    };
    expect(validateDispatch(repair).ok).toBe(true);
    expect(
      validateDispatch({ ...repair, parameters: { error: { ...repair.parameters.error, extra: 1 } } }).ok,
    ).toBe(false);
    const axiom = {
      ...canonicalDispatch(),
      worker: 'axiom-eliminator',
      parameters: { axioms: ['propext'], permission_level: 'edit' },
    };
    expect(validateDispatch(axiom).ok).toBe(true);
    expect(validateDispatch({ ...axiom, parameters: {} }).ok).toBe(false);
    expect(validateDispatch({ ...canonicalDispatch(), worker: 'unknown-worker' }).ok).toBe(false);
  });

  it('requires the baseline to cover every owned file', () => {
    const d = canonicalDispatch();
    d.owned_files.push('/repo/Mathlib/Bar.lean');
    expect(codes(d)).toContain('file_baseline.files:baseline_not_covering');
  });

  it('requires a structurally valid baseline (non-empty, absolute, hashes)', () => {
    const empty = canonicalDispatch();
    empty.file_baseline.files = [];
    empty.owned_files = [];
    expect(validateDispatch(empty).ok).toBe(false);
    const rel = canonicalDispatch();
    rel.file_baseline.files[0]!.path = 'Mathlib/Foo.lean';
    expect(validateDispatch(rel).ok).toBe(false);
    const badHash = canonicalDispatch();
    badHash.file_baseline.files[0]!.sha256 = 'ABC';
    expect(validateDispatch(badHash).ok).toBe(false);
  });

  it('checks the enums', () => {
    expect(validateDispatch({ ...canonicalDispatch(), scope: 'module' }).ok).toBe(false);
    expect(validateDispatch({ ...canonicalDispatch(), mode: 'disprove' }).ok).toBe(false);
  });

  it('checks the budget duration syntax', () => {
    const ok = canonicalDispatch();
    ok.budget.runtime = '90';
    expect(validateDispatch(ok).ok).toBe(true);
    ok.budget.runtime = 'two hours';
    expect(validateDispatch(ok).ok).toBe(false);
  });

  it('returns a structured issue for non-objects instead of throwing', () => {
    for (const x of [null, 1, 'x', [], undefined, true]) {
      const r = validateDispatch(x);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.issues[0]?.code).toBe('not_an_object');
    }
  });
});
