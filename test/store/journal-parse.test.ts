import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson } from '../../src/canonical/index.js';
import { fastCanonicalJson, isCanonicalText } from '../../src/store/canonical-fast.js';
import { parseJournal } from '../../src/store/index.js';
import { note } from './fixtures.js';

const RUN = '20261130T100000Z-0a1b2c3d';
const line = (seq: number, payload: unknown = note(`n${seq}`)) =>
  canonicalJson({ kind: 'note', payload, schema: 'run-store-event/v2', seq, ts: '2026-11-30T10:00:00Z' });

describe('canonical line check', () => {
  it('agrees with canonicalJson on any JSON text (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.boolean(), (v, pretty) => {
        const canonical = canonicalJson(JSON.parse(JSON.stringify(v)));
        const text = pretty ? JSON.stringify(v) : canonical;
        const parsed = JSON.parse(text);
        expect(isCanonicalText(text, parsed)).toBe(canonicalJson(parsed) === text);
      }),
      { numRuns: 400 },
    );
  });
  it('spots unsorted keys, raw non-ASCII and spacing', () => {
    expect(isCanonicalText('{"b":1,"a":2}', { b: 1, a: 2 })).toBe(false);
    expect(isCanonicalText('{"a":"é"}', { a: 'é' })).toBe(false);
    expect(isCanonicalText('{"a":"\\u00e9"}', { a: 'é' })).toBe(true);
    expect(isCanonicalText('{"a": 1}', { a: 1 })).toBe(false);
    expect(isCanonicalText('{"\\ud83d\\ude00":1,"\\uffff":2}', { '😀': 1, '\uffff': 2 })).toBe(false);
    expect(isCanonicalText('{"\\uffff":2,"\\ud83d\\ude00":1}', { '\uffff': 2, '😀': 1 })).toBe(true);
  });
});

describe('fast canonical serializer', () => {
  const outcome = (f: () => string): string => {
    try {
      return f();
    } catch (e) {
      return `error ${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
  };
  it("gives exactly canonicalJson's text or error for any value (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(fc.jsonValue(), fc.anything({ withNullPrototype: true, withSparseArray: true })),
        (v) => {
          expect(outcome(() => fastCanonicalJson(v))).toBe(outcome(() => canonicalJson(v)));
        },
      ),
      { numRuns: 600 },
    );
  });
  it('sorts by code point, escapes U+007F and above, writes -0 as 0, refuses what canonicalJson refuses', () => {
    expect(fastCanonicalJson({ text: 'é\u007f', lean: null, kind: 'candidate' })).toBe(
      '{"kind":"candidate","lean":null,"text":"\\u00e9\\u007f"}',
    );
    expect(fastCanonicalJson({ '\uffff': 2, '😀': 1, '10': 0, '9': 0 })).toBe(
      canonicalJson({ '\uffff': 2, '😀': 1, '10': 0, '9': 0 }),
    );
    expect(fastCanonicalJson([-0, 1.5e300])).toBe('[0,1.5e+300]');
    const sparse: unknown[] = [1];
    sparse[2] = 2; // a hole at index 1
    for (const bad of [{ a: undefined }, sparse, [Number.NaN], new Date(0), { f: () => 1 }]) {
      expect(outcome(() => fastCanonicalJson(bad))).toMatch(/^error canonical_unsupported/);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(outcome(() => fastCanonicalJson(cyclic))).toMatch(/^error canonical_unsupported.*cycle/);
  });
});

describe('parseJournal', () => {
  it('returns the valid prefix and the first defect with its line', () => {
    const good = `${line(1)}\n${line(2)}\n`;
    expect(parseJournal(Buffer.from(good), RUN, 'run-store-event/v2')).toMatchObject({
      damage: null,
      validBytes: good.length,
    });
    const p = parseJournal(Buffer.from(`${good}${line(3).slice(0, 10)}`), RUN, 'run-store-event/v2');
    expect(p.events).toHaveLength(2);
    expect(p.damage).toMatchObject({ code: 'truncated_tail', line: 3 });
    expect(p.validBytes).toBe(good.length);
    const v1 = parseJournal(Buffer.from(good), RUN, 'run-store-event/v1');
    expect(v1.damage).toMatchObject({ code: 'corrupt', line: 1 });
  });
  it('never throws and never accepts a prefix that is not whole valid lines (fuzz)', () => {
    const good = Buffer.from(`${line(1)}\n${line(2)}\n${line(3)}\n`);
    fc.assert(
      fc.property(fc.nat({ max: good.length }), fc.uint8Array({ maxLength: 40 }), (cut, junk) => {
        const bytes = Buffer.concat([good.subarray(0, cut), Buffer.from(junk)]);
        const p = parseJournal(bytes, RUN, 'run-store-event/v2');
        expect(p.events.map((e) => e.seq)).toEqual(p.events.map((_, i) => i + 1));
        expect(p.validBytes <= bytes.length).toBe(true);
        if (p.damage === null) expect(p.validBytes).toBe(bytes.length);
        else expect(p.validBytes).toBeLessThan(bytes.length);
        expect(bytes.subarray(0, p.validBytes).equals(good.subarray(0, p.validBytes))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
