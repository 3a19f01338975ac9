/**
 * The reference's serializer (issue 17 item 1): `canonicalJsonUtf8` writes what lean4-skills'
 * `run_store.py _dumps` writes — Python's `json.dumps(obj, ensure_ascii=False, separators=(",",
 * ":"), sort_keys=True)` — byte for byte once encoded as UTF-8: raw non-ASCII, U+007F, U+2028/9
 * and astral characters; `\b \t \n \f \r` short, other controls `\u00xx` lower-case; `/` not
 * escaped; keys by code point (not UTF-16 unit); floats as Python's repr. The rule is pinned from
 * python3 (fixtures/python-dumps.json) and, where python3 is installed, checked live against it on
 * random values; `isCanonicalJsonUtf8Text` gives Python's verdict on random texts.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canonicalJson,
  canonicalJsonUtf8,
  isCanonicalJsonUtf8Text,
  pythonFloatRepr,
} from '../../src/canonical/index.js';
import { fastCanonicalJsonUtf8, isCanonicalLine } from '../../src/store/canonical-fast.js';

const PY = fileURLToPath(new URL('./fixtures/reference_store.py', import.meta.url));
const PINNED = JSON.parse(
  readFileSync(fileURLToPath(new URL('./fixtures/python-dumps.json', import.meta.url)), 'utf8'),
) as [string, string][];
const hasPython = spawnSync('python3', ['--version']).status === 0;

function py(mode: string, texts: readonly string[]): Buffer {
  return execFileSync('python3', [PY, mode], { input: `${texts.join('\n')}\n`, maxBuffer: 64 << 20 });
}

/** python3 json.dumps(json.loads(t), ensure_ascii=False, …) of each text, as UTF-8 strings. */
function pythonDumps(texts: readonly string[]): string[] {
  return py('dumps', texts).toString('utf8').split('\n').slice(0, texts.length);
}

/** Python's verdict: json.dumps(json.loads(t), ensure_ascii=False, …) == t. */
function pythonCanonical(texts: readonly string[]): boolean[] {
  return JSON.parse(py('canonical', texts).toString('utf8'));
}

/** Writable by the reference: no lone surrogate anywhere (else both refuse). */
function writable(v: unknown): boolean {
  try {
    canonicalJsonUtf8(v);
    return true;
  } catch {
    return false;
  }
}

const arbText = fc.oneof(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' }), fc.string());
const arbValue = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    arbText,
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.integer(),
    fc.constantFrom(true, false, null, 0.1, 1e-5, 1e16, 1e21, 5e-324),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(arbText, tie('value'), { maxKeys: 4 }),
  ),
})).value;

describe('canonicalJsonUtf8 is the reference serializer', () => {
  it('gives the pinned python3 output for controls, quotes, DEL, non-ASCII, U+2028/9, BOM, astral, key order, numbers', () => {
    for (const [input, python] of PINNED) {
      const v = JSON.parse(input);
      expect(canonicalJsonUtf8(v)).toBe(python);
      expect(fastCanonicalJsonUtf8(v)).toBe(python);
      expect(isCanonicalJsonUtf8Text(python)).toBe(true);
      expect(isCanonicalLine(python, JSON.parse(python))).toBe(true);
    }
  });

  it.skipIf(!hasPython)('the pinned table is what python3 writes now', () => {
    expect(pythonDumps(PINNED.map(([input]) => input))).toEqual(PINNED.map(([, python]) => python));
  });

  it.skipIf(!hasPython)(
    'writes the same bytes as python3 for random values (property, one python3 process)',
    () => {
      const values = fc.sample(arbValue, { numRuns: 500, seed: 17 }).filter(writable);
      // python3 reads each value from JSON.stringify (a double's shortest digits read back exactly)
      const ours = values.map((v) => canonicalJsonUtf8(v));
      const theirs = pythonDumps(values.map((v) => JSON.stringify(v)));
      for (const [i, text] of ours.entries()) {
        if (Buffer.from(text, 'utf8').equals(Buffer.from(theirs[i] as string, 'utf8'))) continue;
        expect({ value: JSON.stringify(values[i]), ours: text }).toEqual({
          value: JSON.stringify(values[i]),
          ours: theirs[i],
        });
      }
    },
  );

  it.skipIf(!hasPython)("formats every float as Python's repr (property over doubles)", () => {
    const doubles = fc.sample(
      fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.double({ min: 1e-8, max: 1e-3 })),
      { numRuns: 2000, seed: 17 },
    );
    // as floats: the text of a double with a fraction or exponent always reads back as a float
    const asFloat = doubles.map((x) =>
      Object.is(x, -0) ? '-0.0' : Number.isInteger(x) && !/e/.test(String(x)) ? `${x}.0` : String(x),
    );
    const theirs = pythonDumps(asFloat);
    expect(doubles.map(pythonFloatRepr)).toEqual(theirs);
  });

  it('refuses a lone surrogate (python3 cannot encode it as UTF-8 either), in keys and values', () => {
    for (const v of ['\ud800', { k: 'a\udfff' }, { '\ud83d': 1 }, ['ok', '\ude00x']]) {
      expect(() => canonicalJsonUtf8(v)).toThrow(/lone surrogate/);
      expect(() => fastCanonicalJsonUtf8(v)).toThrow(/lone surrogate/);
    }
    if (hasPython) {
      const r = spawnSync('python3', [PY, 'dumps'], { input: '"\\ud800"\n' });
      expect(r.status).not.toBe(0);
      expect(r.stderr.toString()).toMatch(/surrogates not allowed/);
    }
  });

  it('JavaScript keeps no int/float distinction: integral numbers are written as integers (documented)', () => {
    expect(canonicalJsonUtf8([1, 1e16, 13706097, -0])).toBe('[1,10000000000000000,13706097,0]');
    // the check reads the text itself, so a Python float line stays canonical here
    expect(isCanonicalJsonUtf8Text('[1.0,1e+16,13706097.0,-0.0]')).toBe(true);
    expect(isCanonicalLine('[1.0,1e+16,13706097.0,-0.0]', [1, 1e16, 13706097, -0])).toBe(true);
  });
});

describe("isCanonicalJsonUtf8Text gives python3's verdict", () => {
  const handmade = [
    '1.0',
    '1',
    '-0',
    '-0.0',
    '0.0',
    '1e-05',
    '1e-5',
    '0.00001',
    '1E+21',
    '1e+21',
    '1e21',
    '1e+021',
    '100000000000000000000000',
    '1.5e+300',
    '1e400',
    '"\\/"',
    '"/"',
    '"\\u00E9"',
    '"\\u00e9"',
    '"é"',
    '"\\u001f"',
    '"\\u001F"',
    '"\\u0008"',
    '"\\b"',
    '"\\u007f"',
    '"\u007f"',
    '"\\ud83d\\ude00"',
    '"😀"',
    '{"a":1,"a":2}',
    '{"a":1,"b":2}',
    '{"b":1,"a":2}',
    '{"😀":1,"\uffff":2}',
    '{"\uffff":2,"😀":1}',
    '{"10":1,"9":2}',
    '{"9":2,"10":1}',
    '{"a": 1}',
    ' {"a":1}',
    '[1,2]',
    '[1, 2]',
    'true',
    'null',
    '"\u2028"',
    '"\\u2028"',
  ];
  it.skipIf(!hasPython)(
    'on handmade texts: escapes, float and int forms, key order, duplicates, spacing',
    () => {
      expect(handmade.map(isCanonicalJsonUtf8Text)).toEqual(pythonCanonical(handmade));
    },
  );

  it.skipIf(!hasPython)('on random texts in several forms (property, one python3 process)', () => {
    const values = fc.sample(arbValue, { numRuns: 300, seed: 1717 }).filter(writable);
    const texts = values.flatMap((v) => [
      canonicalJsonUtf8(v),
      canonicalJson(v),
      JSON.stringify(v),
      JSON.stringify(v, null, 1).replaceAll('\n', ''),
    ]);
    const theirs = pythonCanonical(texts);
    const ours = texts.map(isCanonicalJsonUtf8Text);
    for (const [i, t] of texts.entries())
      if (ours[i] !== theirs[i]) expect({ t, ours: ours[i] }).toEqual({ t, ours: theirs[i] });
  });
});
