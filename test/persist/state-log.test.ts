/**
 * The state log's pure parts: a delta between two states replays to the later one (property, over
 * random JSON objects and grown lists), grown lists become positional pushes, and the log reader
 * binds a log to its state file, drops a torn last line and refuses damage.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sha256Hex } from '../../src/canonical/index.js';
import { applyDelta, stateDelta } from '../../src/persist/state-delta.js';
import { readStateLog, stateLogHeader, stateLogLine } from '../../src/persist/state-log.js';

const json = fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.parse(JSON.stringify(v)) as unknown);
const record = fc.dictionary(fc.string({ maxLength: 4 }), json, { maxKeys: 5 });

describe('stateDelta / applyDelta', () => {
  it('replays any record into any other (property)', () => {
    fc.assert(
      fc.property(record, record, (a, b) => {
        const r = applyDelta(a, stateDelta(a, b));
        expect(r.ok).toBe(true);
        if (r.ok) expect(r.value).toEqual(b);
      }),
    );
  });

  it('a list grown behind shared items is a push of the new items only; the input is not changed', () => {
    const h1 = { seq: 1 };
    const h2 = { seq: 2 };
    const a = { last_seq: 1, history: [h1], knowledge: { avenues: ['x'] } };
    const b = { ...a, last_seq: 2, history: [...a.history, h2] };
    const ops = stateDelta(a, b);
    expect(ops).toEqual([
      { op: 'set', path: ['last_seq'], value: 2 },
      { op: 'push', path: ['history'], at: 1, values: [h2] },
    ]);
    const r = applyDelta(a, ops);
    expect(r).toEqual({ ok: true, value: b });
    expect(a.history).toEqual([h1]);
  });

  it('a list rebuilt with equal but new items is set whole (correct, only larger)', () => {
    const a = { xs: [{ k: 1 }] };
    const b = { xs: [{ k: 1 }, { k: 2 }] };
    expect(stateDelta(a, b)).toEqual([{ op: 'set', path: ['xs'], value: b.xs }]);
  });

  it("a positional push replayed on a list another writer grew keeps this writer's list", () => {
    const r = applyDelta({ xs: [1, 9, 9] }, [{ op: 'push', path: ['xs'], at: 1, values: [2] }]);
    expect(r).toEqual({ ok: true, value: { xs: [1, 2] } });
  });

  it('removed keys are deleted; nothing changed is no operation', () => {
    const a = { keep: 1, gone: 2 };
    expect(stateDelta(a, { keep: 1 })).toEqual([{ op: 'del', path: ['gone'] }]);
    expect(stateDelta(a, a)).toEqual([]);
    expect(applyDelta(a, [{ op: 'del', path: ['gone'] }])).toEqual({ ok: true, value: { keep: 1 } });
  });

  it('a delta recorded against another shape is a mismatch, never a throw', () => {
    expect(applyDelta({ xs: 1 }, [{ op: 'push', path: ['xs'], at: 0, values: [1] }])).toMatchObject({
      ok: false,
      detail: expect.stringMatching(/operation 0: push onto a non-list/),
    });
    expect(applyDelta({ xs: [] }, [{ op: 'push', path: ['xs'], at: 3, values: [1] }])).toMatchObject({
      ok: false,
    });
    expect(applyDelta({ a: 5 }, [{ op: 'set', path: ['a', 'b'], value: 1 }])).toMatchObject({ ok: false });
  });
});

describe('readStateLog', () => {
  const base = sha256Hex('{"state":1}\n');
  const l1 = stateLogLine([{ op: 'set', path: ['n'], value: 1 }]);
  const l2 = stateLogLine([{ op: 'push', path: ['xs'], at: 0, values: ['a'] }]);

  it('reads the deltas of a log extending this state file', () => {
    expect(readStateLog(stateLogHeader(base) + l1 + l2, base)).toEqual({
      ok: true,
      deltas: [[{ op: 'set', path: ['n'], value: 1 }], [{ op: 'push', path: ['xs'], at: 0, values: ['a'] }]],
      torn: false,
    });
  });

  it('a last line without its newline is a torn, unacknowledged save: dropped and reported', () => {
    for (const cut of [1, l2.length - 1]) {
      const r = readStateLog(stateLogHeader(base) + l1 + l2.slice(0, cut), base);
      expect(r).toMatchObject({ ok: true, torn: true });
      if (r.ok) expect(r.deltas).toHaveLength(1);
    }
    expect(readStateLog(stateLogHeader(base).slice(0, 10), base)).toEqual({
      ok: true,
      deltas: [],
      torn: true,
    });
  });

  it('a log extending another state file is stale', () => {
    expect(readStateLog(stateLogHeader(sha256Hex('other')) + l1, base)).toEqual({
      ok: false,
      reason: 'stale',
    });
  });

  it('an edited, truncated-inside or foreign line before the end is damage', () => {
    const edited = l1.replace('"value":1', '"value":2');
    expect(readStateLog(stateLogHeader(base) + edited + l2, base)).toMatchObject({
      ok: false,
      reason: 'invalid',
      detail: 'line 2: digest mismatch',
    });
    expect(readStateLog(`${stateLogHeader(base)}${l1.slice(0, 8)}\n${l2}`, base)).toMatchObject({
      reason: 'invalid',
      detail: 'line 2: not JSON',
    });
    expect(
      readStateLog(`${stateLogHeader(base)}{"ops":[{"op":"drop","path":[]}],"sha256":"x"}\n`, base),
    ).toMatchObject({ reason: 'invalid', detail: 'line 2: an operation is malformed' });
    expect(readStateLog('{"schema":"something-else"}\n', base)).toMatchObject({ reason: 'invalid' });
  });
});
