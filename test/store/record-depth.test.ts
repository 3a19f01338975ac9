/**
 * Bad input never crashes, never poisons a store: one nesting-depth limit (MAX_RECORD_DEPTH),
 * measured without recursion, gives the same verdict on validate, append and load; an over-deep
 * journal line is `corrupt` at its line with the valid prefix kept; the canonical checks of the
 * load path work at any depth. Properties are seeded and probe every limit at limit − 1, limit,
 * limit + 1 and 100,000 levels.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { canonicalJson, canonicalJsonUtf8 } from '../../src/canonical/index.js';
import { prepareAppend } from '../../src/store/append-rules.js';
import {
  FAST_CANONICAL_DEPTH,
  fastCanonicalJsonUtf8,
  isCanonicalLine,
  isCanonicalText,
} from '../../src/store/canonical-fast.js';
import { checkBatonCommit } from '../../src/store/chain-rules.js';
import { parseJournal, RECORD_KINDS, validateRecord } from '../../src/store/index.js';
import { scanLines } from '../../src/store/journal-parse.js';
import { buildManifest } from '../../src/store/manifest.js';
import {
  validateEventPayload,
  validateHandoffCache,
  validateStoredManifest,
} from '../../src/store/validate-payload.js';
import {
  depthIssue,
  MAX_RECORD_DEPTH,
  memberDepthIssue,
  nestingDepth,
  safeValidate,
  TOO_DEEP,
} from '../../src/validation/index.js';
import { arbDepthAround, arbShape, DEEP_RUNS, nest } from '../canonical/deep.js';
import { dispatch, note, reviewOfDepth, solvedHandoff } from './fixtures.js';

const RUN = '20261130T100000Z-0a1b2c3d';
const TS = '2026-11-30T10:00:00Z';
const L = MAX_RECORD_DEPTH;

const eventLine = (seq: number, kind: string, payload: unknown): string =>
  canonicalJson({ kind, payload, schema: 'run-store-event/v2', seq, ts: TS });

describe('nesting depth: MAX_RECORD_DEPTH, measured without recursion', () => {
  it('counts objects and arrays, the record itself being level 1', () => {
    expect(L).toBe(64);
    expect(nestingDepth('x')).toBe(0);
    expect(nestingDepth(null)).toBe(0);
    expect(nestingDepth({})).toBe(1);
    expect(nestingDepth({ a: [{}] })).toBe(3);
    expect(nestingDepth([1, [2, [3]], { b: 'c' }])).toBe(3);
  });

  it('is exact up to the limit and limit + 1 beyond it, for any shape, at 100,000 too (property)', () => {
    fc.assert(
      fc.property(arbDepthAround(L), arbShape, fc.constantFrom(L, 3, 200), (depth, shape, limit) => {
        expect(nestingDepth(nest(depth, shape), limit)).toBe(Math.min(depth, limit + 1));
        const issue = depthIssue(nest(depth, shape), limit);
        expect(issue === null).toBe(depth <= limit);
      }),
      DEEP_RUNS,
    );
  });

  it('counts a cycle as too deep and walks shared references once per depth', () => {
    const cyclic: Record<string, unknown> = { a: 1 };
    cyclic.self = { back: cyclic };
    expect(nestingDepth(cyclic)).toBe(L + 1);
    expect(depthIssue(cyclic)).toMatchObject({ path: 'self', code: TOO_DEEP });
    // 2^60 root-to-leaf paths through 60 shared arrays: linear, not exponential
    let dag: unknown = [];
    for (let i = 0; i < 59; i++) dag = [dag, dag];
    expect(nestingDepth(dag)).toBe(60);
    for (let i = 0; i < 10; i++) dag = [dag, dag];
    expect(nestingDepth(dag)).toBe(L + 1);
  });

  it('names the top-level member holding the deep branch; an envelope has one level more', () => {
    const deep = nest(L - 1);
    expect(depthIssue({ ok: 1, output: deep })).toBeNull();
    expect(depthIssue({ ok: 1, output: { x: deep } })).toMatchObject({ path: 'output', code: TOO_DEEP });
    expect(depthIssue([0, [deep]])).toMatchObject({ path: '1', code: TOO_DEEP });
    expect(depthIssue(nest(L + 1))).toMatchObject({ code: TOO_DEEP });
    expect(memberDepthIssue({ kind: 'review', payload: nest(L) })).toBeNull();
    expect(memberDepthIssue({ kind: 'review', payload: [nest(L)] })).toMatchObject({ path: 'payload' });
    expect(depthIssue({ a: nest(L + 1) })?.message).toMatch(/nests deeper than 64 levels/);
  });

  it('never throws, even when reading the value throws', () => {
    const hostile = new Proxy(
      {},
      {
        ownKeys() {
          throw new RangeError('boom');
        },
      },
    );
    expect(depthIssue(hostile)).toMatchObject({ code: 'unvalidatable' });
  });

  it('safeValidate with maxDepth refuses before the schema (and its refinements) see the input', () => {
    let refined = 0;
    const schema = z.unknown().superRefine(() => {
      refined++;
    });
    expect(safeValidate(schema, nest(100_000), { maxDepth: L })).toEqual({
      ok: false,
      issues: [expect.objectContaining({ code: TOO_DEEP })],
    });
    expect(refined).toBe(0);
    expect(safeValidate(schema, nest(L), { maxDepth: L }).ok).toBe(true);
    expect(safeValidate(schema, nest(100_000)).ok).toBe(true); // no maxDepth: no depth rule
    expect(refined).toBe(2);
  });
});

describe('one limit, the same verdict on validate, append and load', () => {
  it('a review is accepted by all of them exactly when it nests at most MAX_RECORD_DEPTH deep (property)', () => {
    fc.assert(
      fc.property(arbDepthAround(L), arbShape, (d, shape) => {
        const depth = Math.max(d, 2);
        const review = reviewOfDepth(depth, shape);
        expect(nestingDepth(review, L)).toBe(Math.min(depth, L + 1));
        const within = depth <= L;
        const validate = validateRecord('review', review);
        const payload = validateEventPayload('review', review, {
          runId: RUN,
          eventSchema: 'run-store-event/v2',
          nextSeq: 1,
        });
        const append = prepareAppend(RUN, 'review', review);
        const line = eventLine(1, 'review', review);
        const lineCheck = validateRecord('event', JSON.parse(line));
        const load = parseJournal(Buffer.from(`${line}\n`), RUN, 'run-store-event/v2');
        expect([
          validate.length === 0,
          payload.ok,
          append.ok,
          lineCheck.length === 0,
          load.damage === null,
        ]).toEqual([within, within, within, within, within]);
        if (within) {
          expect(append.ok && append.value.payloadText).toBe(canonicalJsonUtf8(review));
          expect(load.events).toHaveLength(1);
        } else {
          expect(validate).toEqual([expect.objectContaining({ path: 'output', code: TOO_DEEP })]);
          expect(lineCheck).toEqual([expect.objectContaining({ path: 'payload', code: TOO_DEEP })]);
          expect(!payload.ok && payload.code).toBe('invalid_payload');
          expect(!append.ok && append.result).toMatchObject({
            outcome: 'nothing_written',
            code: 'invalid_payload',
          });
          expect(load.damage).toMatchObject({ code: 'corrupt', line: 1 });
          expect(load.damage?.detail).toMatch(/nests deeper than 64/);
        }
      }),
      DEEP_RUNS,
    );
  });

  it('every record kind of `store validate` refuses a value 100,000 deep with too_deep', () => {
    const deep = nest(100_000);
    for (const kind of RECORD_KINDS) {
      expect(validateRecord(kind, deep), kind).toEqual([expect.objectContaining({ code: TOO_DEEP })]);
      expect(validateRecord(kind, { schema: 'x', payload: { a: deep } }), kind).toEqual([
        expect.objectContaining({ code: TOO_DEEP, path: 'payload' }),
      ]);
    }
  });

  it('depth is checked first: an over-deep dispatch, handoff, note or baton commit is too_deep', () => {
    const deep = nest(L);
    const ctx = { runId: RUN, eventSchema: 'run-store-event/v2' as const, nextSeq: 1 };
    for (const [kind, payload] of [
      ['dispatch', { ...dispatch(), parameters: { x: deep } }],
      ['handoff', { ...solvedHandoff(), blocker_signature: deep }],
      ['note', { ...note(), text: deep }],
    ] as const) {
      const r = validateEventPayload(kind, payload, ctx);
      expect(!r.ok && r.issues, kind).toEqual([expect.objectContaining({ code: TOO_DEEP })]);
    }
    const commit = checkBatonCommit({ baton: { records: [{ value: deep }] }, receipt: {} });
    expect(!commit.ok && commit.detail).toMatch(/baton: nests deeper than 64/);
  });

  it('a journal with an over-deep line keeps its valid prefix and reports that line corrupt', () => {
    for (const depth of [L + 1, 4_200, 100_000]) {
      const first = eventLine(1, 'note', note('a'));
      const bytes = Buffer.from(
        `${first}\n${eventLine(2, 'review', reviewOfDepth(depth))}\n${eventLine(3, 'note', note('c'))}\n`,
      );
      const p = parseJournal(bytes, RUN, 'run-store-event/v2');
      expect(p.events.map((e) => e.seq)).toEqual([1]);
      expect(p.validBytes).toBe(first.length + 1);
      expect(p.damage).toMatchObject({ code: 'corrupt', line: 2 });
      expect(p.damage?.detail).toMatch(/invalid review payload: output: nests deeper than 64/);
    }
  });

  it('details quote deep foreign values by kind: a deep schema or kind is corrupt, never a RangeError', () => {
    const deep = nest(100_000);
    const first = eventLine(1, 'note', note('a'));
    for (const key of ['schema', 'kind'] as const) {
      const line = canonicalJson({
        kind: 'note',
        payload: note('b'),
        schema: 'run-store-event/v2',
        seq: 2,
        ts: TS,
        [key]: deep,
      });
      const p = parseJournal(Buffer.from(`${first}\n${line}\n`), RUN, 'run-store-event/v2');
      expect(p.damage).toEqual({
        code: 'corrupt',
        line: 2,
        detail: expect.stringMatching(new RegExp(`${key} an array`)),
      });
    }
    const r = validateEventPayload(deep, note(), {
      runId: RUN,
      eventSchema: 'run-store-event/v2',
      nextSeq: 1,
    });
    expect(r).toMatchObject({ ok: false, code: 'kind_unsupported', detail: 'unknown event kind an array' });
  });

  it('a line whose check throws is corrupt at that line, never an exception', () => {
    const bytes = Buffer.from('{"a":1}\n{"b":2}\n');
    const scan = scanLines(bytes, 1, (text) => {
      if (text.includes('b')) throw new RangeError('Maximum call stack size exceeded');
      return null;
    });
    expect(scan).toEqual({
      validBytes: 8,
      damage: {
        code: 'corrupt',
        line: 2,
        detail: 'line 2: the line could not be checked: Maximum call stack size exceeded',
      },
    });
  });

  it('manifests and the handoff cache wrap a record: it keeps the whole limit inside them', () => {
    const env = { storageRoot: '/p/.handoff', pluginVersion: '0.1.0', now: () => new Date(TS) };
    const built = buildManifest({ dispatch: dispatch(), now: TS }, env);
    if (!built.ok) throw new Error(built.detail);
    expect(validateStoredManifest(built.manifest).ok).toBe(true);
    expect(validateRecord('manifest', built.manifest)).toEqual([]);
    // a dispatch nested exactly to the limit passes the depth rule inside its manifest
    const atLimit = { ...built.manifest, dispatch: { ...dispatch(), parameters: nest(L - 1) } };
    expect(nestingDepth(atLimit, L + 1)).toBe(L + 1);
    const r = validateStoredManifest(atLimit);
    expect(r.ok || r.issues.every((i) => i.code !== TOO_DEEP)).toBe(true);
    const over = { ...built.manifest, dispatch: { ...dispatch(), parameters: nest(L) } };
    expect(validateStoredManifest(over)).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: 'dispatch', code: TOO_DEEP })],
    });
    expect(validateRecord('manifest', over)).toEqual([expect.objectContaining({ code: TOO_DEEP })]);
    expect(
      buildManifest({ dispatch: { ...dispatch(), parameters: nest(100_000) }, now: TS }, env),
    ).toMatchObject({ ok: false, code: 'invalid_dispatch', detail: expect.stringMatching(/nests deeper/) });
    const cache = { schema: 'run-store-handoff/v1', seq: 1, payload: solvedHandoff() };
    expect(validateHandoffCache(cache).ok).toBe(true);
    expect(validateHandoffCache({ ...cache, payload: nest(100_000) })).toEqual({
      ok: false,
      issues: [expect.objectContaining({ path: 'payload', code: TOO_DEEP })],
    });
  });
});

describe('the canonical checks of the load path work at any depth', () => {
  it('fastCanonicalJsonUtf8, isCanonicalText and isCanonicalLine agree with the exact writers around the fast-path depth and far beyond (property)', () => {
    fc.assert(
      fc.property(
        fc.oneof(arbDepthAround(FAST_CANONICAL_DEPTH), arbDepthAround(L)),
        arbShape,
        (depth, shape) => {
          const v = nest(depth, shape);
          const text = canonicalJson(v);
          const utf8 = canonicalJsonUtf8(v);
          expect(fastCanonicalJsonUtf8(v)).toBe(utf8);
          expect(isCanonicalText(text, JSON.parse(text))).toBe(true);
          expect(isCanonicalLine(text, JSON.parse(text))).toBe(true);
          expect(isCanonicalLine(utf8, JSON.parse(utf8))).toBe(true);
          if (depth > 0) {
            const spaced = `${text[0]} ${text.slice(1)}`; // same value, not canonical
            expect(isCanonicalText(spaced, JSON.parse(spaced))).toBe(false);
            expect(isCanonicalLine(spaced, JSON.parse(spaced))).toBe(false);
          }
        },
      ),
      { ...DEEP_RUNS, numRuns: 24 },
    );
  });
});
