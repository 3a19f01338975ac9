import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { canonicalJson, canonicalJsonUtf8, isCanonicalJsonUtf8Text } from '../../src/canonical/index.js';
import { fastCanonicalJsonUtf8, isCanonicalLine, isCanonicalText } from '../../src/store/canonical-fast.js';
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

describe('isCanonicalLine: either rule the store reads', () => {
  const exact = (t: string, v: unknown): boolean => canonicalJson(v) === t || isCanonicalJsonUtf8Text(t);
  it('agrees with the two exact rules on any JSON text, pretty, ASCII or raw UTF-8 (property)', () => {
    fc.assert(
      fc.property(fc.jsonValue(), fc.constantFrom('ascii', 'utf8', 'pretty'), (v, form) => {
        const value = JSON.parse(JSON.stringify(v));
        const text =
          form === 'pretty'
            ? JSON.stringify(v, null, 1)
            : form === 'ascii'
              ? canonicalJson(value)
              : JSON.stringify(v);
        const parsed = JSON.parse(text);
        expect(isCanonicalLine(text, parsed)).toBe(exact(text, parsed));
        if (form === 'ascii') expect(isCanonicalLine(text, parsed)).toBe(true);
      }),
      { numRuns: 400 },
    );
  });
  it('accepts what the store writes and what it wrote before, for any unicode text (property)', () => {
    fc.assert(
      fc.property(fc.dictionary(fc.string({ unit: 'grapheme' }), fc.string({ unit: 'binary' })), (v) => {
        const ascii = canonicalJson(v);
        expect(isCanonicalLine(ascii, JSON.parse(ascii))).toBe(true);
        let utf8: string;
        try {
          utf8 = canonicalJsonUtf8(v);
        } catch {
          return; // a lone surrogate: the store never writes it in the reference form
        }
        expect(isCanonicalLine(utf8, JSON.parse(utf8))).toBe(true);
        expect(isCanonicalLine(`${utf8}\r`, JSON.parse(utf8))).toBe(false);
      }),
      { numRuns: 300 },
    );
  });
  it('spots key order, spacing, CR, escapes neither writer produces, mixed forms and Python float forms', () => {
    expect(isCanonicalLine('{"a":"⊢ a ≤ b"}', { a: '⊢ a ≤ b' })).toBe(true);
    expect(isCanonicalLine('{"a":"\\u22a2 a \\u2264 b"}', { a: '⊢ a ≤ b' })).toBe(true);
    expect(isCanonicalLine('{"a":"⊢ a \\u2264 b"}', { a: '⊢ a ≤ b' })).toBe(false); // mixed in one line
    expect(isCanonicalLine('{"a":"⊢"}\r', { a: '⊢' })).toBe(false);
    expect(isCanonicalLine('{"b":"⊢","a":1}', { b: '⊢', a: 1 })).toBe(false);
    expect(isCanonicalLine('{"a": "⊢"}', { a: '⊢' })).toBe(false);
    expect(isCanonicalLine('{"a":"⊢\\/"}', { a: '⊢/' })).toBe(false);
    expect(isCanonicalLine('{"a":"\u007f"}', { a: '\u007f' })).toBe(true); // raw DEL: the reference form
    expect(isCanonicalLine('{"😀":1,"\uffff":2}', { '😀': 1, '\uffff': 2 })).toBe(false); // UTF-16 order
    expect(isCanonicalLine('{"\uffff":2,"😀":1}', { '\uffff': 2, '😀': 1 })).toBe(true); // code point order
    // numbers as Python writes them (JSON.parse forgets int/float): 1.0 and 1e-05 are canonical
    expect(isCanonicalLine('{"a":"⊢","x":1.0}', { a: '⊢', x: 1 })).toBe(true);
    expect(isCanonicalLine('{"a":"⊢","x":1e-05}', { a: '⊢', x: 1e-5 })).toBe(true);
    expect(isCanonicalLine('{"a":"⊢","x":0.00001}', { a: '⊢', x: 1e-5 })).toBe(false);
    expect(isCanonicalLine('{"a":"⊢","x":-0}', { a: '⊢', x: -0 })).toBe(false);
    // integer-like keys, which JS objects reorder, take the exact path
    expect(isCanonicalLine('{"10":"⊢","9":1}', { 10: '⊢', 9: 1 })).toBe(true);
  });
});

describe('fast canonical serializer (the reference form)', () => {
  const outcome = (f: () => string): string => {
    try {
      return f();
    } catch (e) {
      return `error ${(e as { code?: string }).code}: ${(e as Error).message}`;
    }
  };
  it("gives exactly canonicalJsonUtf8's text or error for any value (property)", () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.jsonValue(),
          fc.anything({ withNullPrototype: true, withSparseArray: true }),
          fc.dictionary(fc.string({ unit: 'binary' }), fc.oneof(fc.string({ unit: 'binary' }), fc.double())),
        ),
        (v) => {
          expect(outcome(() => fastCanonicalJsonUtf8(v))).toBe(outcome(() => canonicalJsonUtf8(v)));
        },
      ),
      { numRuns: 600 },
    );
  });
  it('sorts by code point, writes non-ASCII and U+007F raw, numbers as Python, -0 as 0, refuses lone surrogates', () => {
    expect(fastCanonicalJsonUtf8({ text: 'é\u007f ⊢', lean: null, kind: 'candidate' })).toBe(
      '{"kind":"candidate","lean":null,"text":"é\u007f ⊢"}',
    );
    expect(fastCanonicalJsonUtf8({ '\uffff': 2, '😀': 1, '10': 0, '9': 0 })).toBe(
      canonicalJsonUtf8({ '\uffff': 2, '😀': 1, '10': 0, '9': 0 }),
    );
    expect(fastCanonicalJsonUtf8([-0, 1.5e300, 1e-5, 1e21])).toBe('[0,1.5e+300,1e-05,1e+21]');
    expect(outcome(() => fastCanonicalJsonUtf8({ text: 'a\ud800' }))).toMatch(
      /^error canonical_unsupported: .*lone surrogate.*\$\.text/,
    );
    expect(fastCanonicalJsonUtf8({ path: 'C:\\udir' })).toBe('{"path":"C:\\\\udir"}'); // not a surrogate escape
    const sparse: unknown[] = [1];
    sparse[2] = 2; // a hole at index 1
    for (const bad of [{ a: undefined }, sparse, [Number.NaN], new Date(0), { f: () => 1 }]) {
      expect(outcome(() => fastCanonicalJsonUtf8(bad))).toMatch(/^error canonical_unsupported/);
    }
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(outcome(() => fastCanonicalJsonUtf8(cyclic))).toMatch(/^error canonical_unsupported.*cycle/);
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
  it('reads raw UTF-8 lines (the reference form), older ASCII lines and both mixed; offsets are bytes', () => {
    const raw = (seq: number, text: string) =>
      canonicalJsonUtf8({
        kind: 'note',
        payload: note(text),
        schema: 'run-store-event/v2',
        seq,
        ts: '2026-11-30T10:00:00Z',
      });
    const mixed = `${line(1, note('closes ⊢ a ≤ b'))}\n${raw(2, 'closes ⊢ a ≤ b')}\n${raw(3, '😀 \u2028')}\n`;
    const bytes = Buffer.from(mixed, 'utf8');
    const p = parseJournal(bytes, RUN, 'run-store-event/v2');
    expect(p.damage).toBeNull();
    expect(p.validBytes).toBe(bytes.length);
    expect(p.events.map((e) => (e.payload as { text: string }).text)).toEqual([
      'closes ⊢ a ≤ b',
      'closes ⊢ a ≤ b',
      '😀 \u2028',
    ]);
    // torn inside a multi-byte character: truncated_tail, its bytes counted, the prefix in bytes
    const torn = parseJournal(bytes.subarray(0, bytes.length - 3), RUN, 'run-store-event/v2');
    const line3 = Buffer.byteLength(`${raw(3, '😀 \u2028')}\n`);
    expect(torn.damage).toMatchObject({ code: 'truncated_tail', line: 3, bytes: line3 - 3 });
    expect(torn.validBytes).toBe(bytes.length - line3);
  });
  it('a CRLF line, an invalid UTF-8 byte and a BOM are corrupt at their line; the prefix is kept', () => {
    const l1 = `${line(1, note('⊢'))}\n`;
    const crlf = parseJournal(Buffer.from(`${l1}${line(2)}\r\n${line(3)}\n`), RUN, 'run-store-event/v2');
    expect(crlf.events).toHaveLength(1);
    expect(crlf.damage).toMatchObject({
      code: 'corrupt',
      line: 2,
      detail: expect.stringMatching(/not a canonical/),
    });
    const bad = Buffer.concat([
      Buffer.from(l1),
      Buffer.from(line(2).replace('n2', 'n\u00e9')),
      Buffer.from('\n'),
    ]);
    bad[bad.indexOf(0xc3)] = 0xff; // the é's lead byte, now invalid UTF-8
    const invalid = parseJournal(bad, RUN, 'run-store-event/v2');
    expect(invalid.damage).toMatchObject({ code: 'corrupt', line: 2, detail: 'line 2: not valid UTF-8' });
    expect(invalid.validBytes).toBe(Buffer.byteLength(l1));
    const bom = parseJournal(Buffer.from(`\ufeff${l1}`), RUN, 'run-store-event/v2');
    expect(bom.damage).toMatchObject({ code: 'corrupt', line: 1 });
  });
  it('never throws and never accepts a prefix that is not whole valid lines (fuzz)', () => {
    const utf8 = (seq: number) =>
      canonicalJsonUtf8({
        kind: 'note',
        payload: note(`⊢ ${seq} ≤ 😀`),
        schema: 'run-store-event/v2',
        seq,
        ts: '2026-11-30T10:00:00Z',
      });
    const good = Buffer.from(`${line(1)}\n${utf8(2)}\n${line(3)}\n`, 'utf8');
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
