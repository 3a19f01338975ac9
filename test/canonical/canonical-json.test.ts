import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  digestOf,
  fingerprintOf,
  sha256Hex,
  tryCanonicalJson,
} from '../../src/canonical/index.js';
import { isHandoffError } from '../../src/errors/index.js';
import { FAST_CANONICAL_DEPTH } from '../../src/store/canonical-fast.js';
import { MAX_RECORD_DEPTH, nestingDepth } from '../../src/validation/index.js';
import { arbDepthAround, arbShape, DEEP_RUNS, nest } from './deep.js';

describe('canonicalJson', () => {
  it('sorts keys recursively and uses compact separators', () => {
    expect(canonicalJson({ b: [2, { z: 1, a: null }], a: true })).toBe('{"a":true,"b":[2,{"a":null,"z":1}]}');
  });

  it('escapes every non-ASCII character as \\uXXXX (surrogate pairs included)', () => {
    expect(canonicalJson({ k: 'é⊢😀' })).toBe('{"k":"\\u00e9\\u22a2\\ud83d\\ude00"}');
    expect(canonicalJson('\u007f')).toBe('"\\u007f"');
  });

  it('sorts keys by code point, not UTF-16 unit', () => {
    // U+FF61 sorts after U+1F600 in UTF-16 order but before it by code point.
    expect(canonicalJson({ '😀': 1, '｡': 2 })).toBe('{"\\uff61":2,"\\ud83d\\ude00":1}');
  });

  it('writes -0 as 0 and keeps integers and floats in shortest form', () => {
    expect(canonicalJson([-0, 1.5, 1e21, 3])).toBe('[0,1.5,1e+21,3]');
  });

  it.each([
    ['undefined property', { a: undefined }],
    ['undefined element', [undefined]],
    ['NaN', Number.NaN],
    ['Infinity', { x: Number.POSITIVE_INFINITY }],
    ['bigint', 1n],
    ['function', () => 1],
    ['Date', new Date(0)],
    ['Map', new Map()],
    ['class instance', new (class Foo {})()],
  ])('rejects %s with canonical_unsupported', (_name, value) => {
    let thrown: unknown;
    try {
      canonicalJson(value);
    } catch (e) {
      thrown = e;
    }
    expect(isHandoffError(thrown) && thrown.code).toBe('canonical_unsupported');
    expect(tryCanonicalJson(value).ok).toBe(false);
  });

  it('rejects cycles but accepts repeated (acyclic) references', () => {
    const shared = { x: 1 };
    expect(canonicalJson({ a: shared, b: shared })).toBe('{"a":{"x":1},"b":{"x":1}}');
    const cyc: Record<string, unknown> = {};
    cyc.self = cyc;
    expect(tryCanonicalJson(cyc).ok).toBe(false);
  });

  it('accepts null-prototype objects', () => {
    const o = Object.create(null) as Record<string, number>;
    o.b = 1;
    o.a = 2;
    expect(canonicalJson(o)).toBe('{"a":2,"b":1}');
  });

  it('round-trips any JSON value and is independent of key insertion order', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (v) => {
        const text = canonicalJson(v);
        expect(JSON.parse(text)).toEqual(JSON.parse(JSON.stringify(v)));
        expect(/^[\x20-\x7e]*$/.test(text)).toBe(true);
        const reversed = JSON.parse(JSON.stringify(v), (_k, x) =>
          x && typeof x === 'object' && !Array.isArray(x)
            ? Object.fromEntries(Object.entries(x).reverse())
            : x,
        );
        expect(canonicalJson(reversed)).toBe(text);
      }),
      { numRuns: 300 },
    );
  });
});

describe('digests', () => {
  it('sha256Hex matches the known vector', () => {
    expect(sha256Hex('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });

  it('digestOf is the sha256 of the canonical form, fingerprint its first 16 hex', () => {
    expect(digestOf({ b: 1, a: 2 })).toBe(sha256Hex('{"a":2,"b":1}'));
    expect(fingerprintOf({ a: 2, b: 1 })).toBe(sha256Hex('{"a":2,"b":1}').slice(0, 16));
    expect(fingerprintOf({ a: 2, b: 2 })).not.toBe(fingerprintOf({ a: 2, b: 1 }));
  });
});

/**
 * The recursive writer canonicalJson had before it kept its own stack: the oracle for the
 * iterative one on shallow values (same text, same error message and path).
 */
function recursiveCanonical(value: unknown): string {
  const quote = (s: string): string =>
    JSON.stringify(s).replace(
      /[\u007f-\uffff]/g,
      (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`,
    );
  const byCodePoint = (a: string, b: string): number => {
    const x = [...a].map((c) => c.codePointAt(0) as number);
    const y = [...b].map((c) => c.codePointAt(0) as number);
    for (let i = 0; i < Math.min(x.length, y.length); i++)
      if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x.length - y.length;
  };
  const fail = (path: string, what: string): never => {
    throw new Error(`canonical JSON cannot represent ${what} at ${path}`);
  };
  const write = (v: unknown, path: string, seen: Set<object>): string => {
    switch (typeof v) {
      case 'string':
        return quote(v);
      case 'boolean':
        return v ? 'true' : 'false';
      case 'number':
        if (!Number.isFinite(v)) return fail(path, `non-finite number ${v}`);
        return Object.is(v, -0) ? '0' : JSON.stringify(v);
      case 'object': {
        if (v === null) return 'null';
        if (seen.has(v)) return fail(path, 'a cycle');
        seen.add(v);
        try {
          if (Array.isArray(v)) {
            const parts: string[] = [];
            for (let i = 0; i < v.length; i++) parts.push(write(v[i], `${path}[${i}]`, seen));
            return `[${parts.join(',')}]`;
          }
          const proto = Object.getPrototypeOf(v);
          if (proto !== Object.prototype && proto !== null)
            return fail(path, `a non-plain object (${v.constructor?.name ?? '?'})`);
          const keys = Object.keys(v).sort(byCodePoint);
          const parts = keys.map(
            (k) => `${quote(k)}:${write((v as Record<string, unknown>)[k], `${path}.${k}`, seen)}`,
          );
          return `{${parts.join(',')}}`;
        } finally {
          seen.delete(v);
        }
      }
      default:
        return fail(path, typeof v === 'undefined' ? 'undefined' : `a ${typeof v}`);
    }
  };
  return write(value, '$', new Set());
}

const outcomeOf = (f: () => string): string => {
  try {
    return f();
  } catch (e) {
    return `error: ${(e as Error).message}`;
  }
};

describe('canonicalJson keeps its own stack (any depth, no RangeError)', () => {
  it('writes exactly what the recursive writer wrote, errors and paths included (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.anything({ withNullPrototype: true, withSparseArray: true, withBoxedValues: true }),
        ),
        (v) => {
          expect(outcomeOf(() => canonicalJson(v))).toBe(outcomeOf(() => recursiveCanonical(v)));
        },
      ),
      { seed: 0x0c4a_0041, numRuns: 500 },
    );
  });

  it('writes values nested around MAX_RECORD_DEPTH, the fast-path depth (200) and 100,000 deep, and reads them back (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(arbDepthAround(MAX_RECORD_DEPTH), arbDepthAround(FAST_CANONICAL_DEPTH)),
        arbShape,
        (depth, shape) => {
          const text = canonicalJson(nest(depth, shape));
          const back = JSON.parse(text) as unknown;
          expect(nestingDepth(back, depth + 1)).toBe(depth);
          expect(canonicalJson(back)).toBe(text);
          expect(digestOf(back)).toBe(sha256Hex(text));
        },
      ),
      { ...DEEP_RUNS, numRuns: 24 },
    );
  });

  it('refuses what it cannot represent 100,000 levels down with canonical_unsupported and the path', () => {
    const deepUndefined = nest(100_000, { arrays: [false], key: 'a' }) as Record<string, unknown>;
    let leaf = deepUndefined;
    for (let i = 0; i < 99_998; i++) leaf = leaf.a as Record<string, unknown>;
    leaf.a = { b: undefined };
    const r = tryCanonicalJson(deepUndefined);
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(isHandoffError(r.error) && r.error.code).toBe('canonical_unsupported');
    expect(r.error.details.path).toBe(`$${'.a'.repeat(99_999)}.b`);
    const cyclic = nest(100_000, { arrays: [true], key: 'a' }) as unknown[];
    let last = cyclic;
    while (last.length > 0) last = last[0] as unknown[];
    last.push(cyclic);
    const c = tryCanonicalJson(cyclic);
    expect(!c.ok && isHandoffError(c.error) && c.error.details.what).toBe('a cycle');
  });
});
