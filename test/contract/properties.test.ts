import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { arbDispatch, arbHandoff } from '../../src/conformance/index.js';
import { validateBaseline, validateDispatch, validateHandoff } from '../../src/contract/index.js';

describe('validators never throw', () => {
  it('on arbitrary values', () => {
    fc.assert(
      fc.property(
        fc.anything({
          withNullPrototype: true,
          withBigInt: true,
          withDate: true,
          withMap: true,
          withSet: true,
        }),
        (x) => {
          for (const v of [validateDispatch, validateHandoff, validateBaseline])
            expect(typeof v(x).ok).toBe('boolean');
        },
      ),
      { numRuns: 500 },
    );
  });

  it('on arbitrary JSON grafted onto a valid record', () => {
    fc.assert(
      fc.property(arbDispatch(), fc.jsonValue(), fc.nat(13), (d, junk, i) => {
        const key = Object.keys(d)[i] as string;
        const r = validateDispatch({ ...d, [key]: junk });
        expect(typeof r.ok).toBe('boolean');
      }),
      { numRuns: 300 },
    );
  });
});

describe('generated valid records validate', () => {
  it('dispatch', () => {
    fc.assert(
      fc.property(arbDispatch(), (d) => {
        const r = validateDispatch(d);
        expect(r.ok ? [] : r.issues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
  it('handoff', () => {
    fc.assert(
      fc.property(arbHandoff(), (h) => {
        const r = validateHandoff(h);
        expect(r.ok ? [] : r.issues).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('single-field mutations that break a rule are caught', () => {
  const handoffMutations: Record<string, (h: Record<string, unknown>) => Record<string, unknown> | null> = {
    'flip blocker_kind nullability': (h) => ({
      ...h,
      blocker_kind: h.blocker_kind === null ? 'proof' : null,
    }),
    'flip blocker_signature nullability': (h) => ({
      ...h,
      blocker_signature: h.blocker_signature === null ? 'A:1:x' : null,
    }),
    'flip new_evidence nullability': (h) => ({
      ...h,
      new_evidence_required_for_rerun: h.new_evidence_required_for_rerun === null ? 'x' : null,
    }),
    'flip blocker_class nullability': (h) => ({
      ...h,
      blocker_class: h.blocker_class === null ? 'arithmetic' : null,
    }),
    'flip stop_reason nullability': (h) => ({
      ...h,
      stop_reason: h.stop_reason === null ? 'user-stop' : null,
    }),
    'flip stop_detail nullability': (h) => ({ ...h, stop_detail: h.stop_detail === null ? 'detail' : null }),
    'null target outside protocol-error': (h) =>
      h.stop_reason === 'protocol-error' ? null : { ...h, target: null },
    'null baseline outside protocol-error': (h) =>
      h.stop_reason === 'protocol-error' ? null : { ...h, file_baseline: null },
    // (a protocol-error stop may carry a partial baseline, as the reference accepts)
    'uncovered owned file': (h) =>
      h.file_baseline === null || h.stop_reason === 'protocol-error'
        ? null
        : { ...h, files_owned: [...(h.files_owned as string[]), '/zz/uncovered'] },
    'unknown key inside a typed item': (h) => ({
      ...h,
      best_candidates: [{ candidate: 'c', outcome: 'o', surprise: true }],
    }),
    'boolean for a string list': (h) => ({ ...h, attempted_tools: true }),
  };
  for (const [name, mutate] of Object.entries(handoffMutations)) {
    it(`handoff: ${name}`, () => {
      fc.assert(
        fc.property(arbHandoff(), (h) => {
          const m = mutate(h as unknown as Record<string, unknown>);
          fc.pre(m !== null);
          // flipping blocker_class on a driven non-proof blocker or a non-driven record is always a violation,
          // and so is removing it from a driven proof blocker
          expect(validateHandoff(m).ok).toBe(false);
        }),
        { numRuns: 150 },
      );
    });
  }

  const dispatchMutations: Record<string, (d: Record<string, unknown>) => Record<string, unknown>> = {
    'inline pass with parameters': (d) => ({ ...d, worker: null, parameters: { x: 1 } }),
    'worker with {} parameters': (d) => ({ ...d, worker: 'proof-golfer', parameters: {} }),
    'uncovered owned file': (d) => ({ ...d, owned_files: [...(d.owned_files as string[]), '/zz/uncovered'] }),
    'omitted context member': (d) => ({ ...d, context: { ...(d.context as object), goal_state: undefined } }),
    'boolean budget int': (d) => ({ ...d, budget: { ...(d.budget as object), max_stuck_cycles: false } }),
    'scope outside the enum': (d) => ({ ...d, scope: 'galaxy' }),
  };
  for (const [name, mutate] of Object.entries(dispatchMutations)) {
    it(`dispatch: ${name}`, () => {
      fc.assert(
        fc.property(arbDispatch(), (d) => {
          expect(validateDispatch(mutate(d as unknown as Record<string, unknown>)).ok).toBe(false);
        }),
        { numRuns: 150 },
      );
    });
  }
});
