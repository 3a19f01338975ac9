/**
 * The raw-text check for integral floats in integer fields (issue 34): which tokens are found
 * (with their paths), which are not (strings, non-integral numbers, integers), and that the
 * record's validator decides what an integer field is.
 */
import { describe, expect, it } from 'vitest';
import { citeAsReferenceReads, replanAsReferenceReads } from '../../src/store/reference-cite.js';
import {
  integerFieldFloat,
  integralFloatIssue,
  integralFloats,
  mayHoldIntegralFloat,
  mayHoldIntegralFloatCanonical,
} from '../../src/validation/index.js';

describe('integralFloats', () => {
  it('finds integral tokens written with a fraction or exponent, with their paths', () => {
    const text =
      '{"a":[1,2.0,{"b":-3.00}],"c":1.5,"d":"4.0","e":1e3,"f":2E+2,"g\\"h":5.0,"i":[[],{}],"j":6.0}';
    expect(integralFloats(text)).toEqual([
      { path: ['a', 1], token: '2.0' },
      { path: ['a', 2, 'b'], token: '-3.00' },
      { path: ['e'], token: '1e3' },
      { path: ['f'], token: '2E+2' },
      { path: ['g"h'], token: '5.0' },
      { path: ['j'], token: '6.0' },
    ]);
  });
  it('pretty-printed text, and none where there is none', () => {
    expect(integralFloats('{\n  "size": 12.0,\n  "x": [\n    1\n  ]\n}')).toEqual([
      { path: ['size'], token: '12.0' },
    ]);
    expect(integralFloats('{"seq":1,"ts":"2026-01-01T00:00:00Z","t":"v1.0 at 3:1.0"}')).toEqual([]);
    expect(integralFloats('[1.25,0.5,1e-7]')).toEqual([]);
  });
  it('any nesting depth (iterative), and the pre-filters', () => {
    const deep = `${'['.repeat(20000)}1.0${']'.repeat(20000)}`;
    expect(integralFloats(deep)[0]?.path).toHaveLength(20000);
    expect(mayHoldIntegralFloat('{"a":1}')).toBe(false);
    expect(mayHoldIntegralFloatCanonical('{"a":1,"t":"x.0"}')).toBe(false);
    expect(mayHoldIntegralFloatCanonical('{"a":1e+16}')).toBe(true);
    expect(mayHoldIntegralFloatCanonical('{"a":1.0}')).toBe(true);
  });
});

describe('integerFieldFloat', () => {
  const isValid = (v: unknown) => Number.isInteger((v as { n: unknown }).n);
  it('flags a float only in a field the validator types as an integer', () => {
    const t = '{"n":1.0,"free":2.0}';
    expect(integerFieldFloat(t, JSON.parse(t), isValid)).toEqual({ path: ['n'], token: '1.0' });
    const u = '{"n":1,"free":2.0}';
    expect(integerFieldFloat(u, JSON.parse(u), isValid)).toBeNull();
  });
  it('leaves an already invalid value to its own issues, and never throws', () => {
    const t = '{"n":"x","m":1.0}';
    expect(integerFieldFloat(t, JSON.parse(t), isValid)).toBeNull();
    expect(
      integerFieldFloat('{"n":1.0}', { n: 1 }, () => {
        throw new Error('boom');
      }),
    ).toBeNull();
    expect(integralFloatIssue('{"n":1.0}', { n: 1 }, isValid)).toEqual({
      path: 'n',
      code: 'integral_float',
      message: 'an integer field written as a float (1.0)',
    });
  });
});

describe('reference cites (Python `$`)', () => {
  it('one final newline is read away; two, or any other text, are kept', () => {
    expect(citeAsReferenceReads('R#1\n')).toBe('R#1');
    expect(citeAsReferenceReads('R#1\n\n')).toBe('R#1\n\n');
    expect(citeAsReferenceReads('R#1 ')).toBe('R#1 ');
    expect(citeAsReferenceReads('\n')).toBe('\n');
    const p = { cites: ['R#1\n', 'R#2'], plan: 'x' };
    expect(replanAsReferenceReads(p)).toEqual({ cites: ['R#1', 'R#2'], plan: 'x' });
    expect(p.cites[0]).toBe('R#1\n'); // the stored payload is never changed
    const q = { cites: ['R#2'] };
    expect(replanAsReferenceReads(q)).toBe(q);
  });
});
