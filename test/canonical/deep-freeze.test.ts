import { describe, expect, it } from 'vitest';
import { deepFreeze } from '../../src/canonical/index.js';
import { nest } from './deep.js';

describe('deepFreeze (the one home)', () => {
  it('freezes everything reachable, also under an already-frozen wrapper (where immer’s freeze stops)', () => {
    const inner = { b: [1, { c: 2 }] };
    const wrapper = Object.freeze({ a: inner });
    deepFreeze(wrapper);
    expect(Object.isFrozen(inner)).toBe(true);
    expect(Object.isFrozen(inner.b[1])).toBe(true);
  });

  it('is cycle-safe and has no recursion limit', () => {
    const a: Record<string, unknown> = { x: 1 };
    a.self = a;
    expect(deepFreeze(a)).toBe(a);
    expect(Object.isFrozen(a)).toBe(true);
    const deep = nest(100_000) as unknown[];
    deepFreeze(deep);
    let v: unknown = deep;
    let depth = 0;
    while (typeof v === 'object' && v !== null) {
      expect(Object.isFrozen(v)).toBe(true);
      v = Array.isArray(v) ? v[0] : (v as { a: unknown }).a;
      depth++;
    }
    expect(depth).toBe(100_000);
  });
});
