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
