import { describe, expect, it } from 'vitest';
import { validateDispatch, validateHandoff } from '../../src/contract/index.js';
import { MAX_RECORD_DEPTH } from '../../src/validation/index.js';
import { nest } from '../canonical/deep.js';
import { canonicalDispatch, solvedHandoff } from './fixtures.js';

// a worker's handoff is untrusted input: the record validators apply the store's one depth limit,
// so a record `handoff validate` accepts is never one the store refuses
describe('record depth limit in the contract validators', () => {
  it('a handoff nesting at most MAX_RECORD_DEPTH passes; deeper, up to 100,000, is refused without throwing', () => {
    const at = (depth: number) => ({
      ...solvedHandoff(),
      // evidence (level 2) → attempts array (3) → … → the nested value completes the depth
      evidence: { ...solvedHandoff().evidence, goal_delta: null, deep: nest(depth - 2) },
    });
    // at the limit the depth check lets it through to the schema (the unknown member is kept, with a warning)
    const atLimit = validateHandoff(at(MAX_RECORD_DEPTH));
    expect(atLimit.ok).toBe(true);
    expect(atLimit.warnings?.map((w) => w.path)).toEqual(['evidence.deep']);
    for (const depth of [MAX_RECORD_DEPTH + 1, 4200, 100_000]) {
      const v = validateHandoff(at(depth));
      expect(v.ok).toBe(false);
      if (!v.ok) expect(v.issues[0]?.code).toBe('too_deep');
    }
    expect(validateHandoff(solvedHandoff()).ok).toBe(true);
  });

  it('a dispatch whose context nests 100,000 deep is refused with too_deep', () => {
    const d = { ...canonicalDispatch(), parameters: { x: nest(100_000) } };
    const v = validateDispatch(d);
    expect(v.ok).toBe(false);
    if (!v.ok) expect(v.issues.map((i) => i.code)).toEqual(['too_deep']);
  });
});
