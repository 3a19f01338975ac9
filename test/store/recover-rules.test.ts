/**
 * The pure decisions of `handoff store recover`: lock bodies, the dead-owner verdict, what of a
 * damaged journal may be cut, the note text, the record and its exit codes.
 */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  judgeLock,
  MAX_LOCK_BODY,
  parseLockBody,
  planTail,
  RECOVER_EXIT_CODES,
  RECOVER_NOTE_PREFIX,
  recoverNoteText,
  recoverResult,
  recoverText,
} from '../../src/store/recover-rules.js';
import { RecoverResultSchema } from '../../src/store/recover-schema.js';
import type { JournalDamage } from '../../src/store/store-types.js';

const body = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : `${JSON.stringify(v)}\n`);
const OWNER = { pid: 4242, host: 'box', acquired: '2026-11-30T10:00:00Z' };

describe('parseLockBody', () => {
  it('reads this store’s canonical line and the reference’s json.dumps form', () => {
    expect(parseLockBody(body('{"acquired":"2026-11-30T10:00:00Z","host":"box","pid":4242}\n'))).toEqual({
      ok: true,
      owner: OWNER,
    });
    expect(parseLockBody(body('{"pid": 4242, "host": "box", "acquired": "2026-11-30T10:00:00Z"}'))).toEqual({
      ok: true,
      owner: OWNER,
    });
  });

  it.each([
    ['empty', Buffer.alloc(0), /empty/],
    ['not JSON', body('{"pid":42,'), /not JSON/],
    ['an array', body([1]), /not a JSON object/],
    ['a missing key', body({ pid: 1, host: 'h' }), /keys/],
    ['an extra key', body({ ...OWNER, x: 1 }), /keys/],
    ['pid 0 (a process group)', body({ ...OWNER, pid: 0 }), /pid/],
    ['a negative pid', body({ ...OWNER, pid: -1 }), /pid/],
    ['a fractional pid', body({ ...OWNER, pid: 1.5 }), /pid/],
    ['a string pid', body({ ...OWNER, pid: '42' }), /pid/],
    ['an empty host', body({ ...OWNER, host: '' }), /host/],
    ['a numeric acquired', body({ ...OWNER, acquired: 1 }), /acquired/],
    ['invalid UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), /UTF-8/],
    ['too large', Buffer.alloc(MAX_LOCK_BODY + 1, 0x20), /more than/],
  ])('refuses %s', (_, bytes, why) => {
    const r = parseLockBody(bytes);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.why).toMatch(why);
  });
});

describe('judgeLock', () => {
  const dead = () => false;
  const alive = () => true;
  it('stale only when the host is this one and the pid is gone', () => {
    expect(judgeLock(OWNER, { host: 'box', isAlive: dead })).toEqual({ stale: true });
    expect(judgeLock(OWNER, { host: 'box', isAlive: alive })).toMatchObject({
      stale: false,
      reason: 'owner_alive',
    });
    expect(judgeLock(OWNER, { host: 'other', isAlive: dead })).toMatchObject({
      stale: false,
      reason: 'other_host',
    });
  });

  it('never asks about the pid of another host', () => {
    const asked: number[] = [];
    judgeLock(OWNER, {
      host: 'box.local',
      isAlive: (p) => {
        asked.push(p);
        return false;
      },
    });
    expect(asked).toEqual([]);
  });
});

describe('planTail', () => {
  const tail = (line: number, bytes: number): JournalDamage => ({
    code: 'truncated_tail',
    line,
    bytes,
    detail: `line ${line} is not newline-terminated (${bytes} bytes)`,
  });
  const corrupt: JournalDamage = { code: 'corrupt', line: 2, detail: 'line 2: not JSON' };

  it('nothing on a whole journal', () => {
    expect(
      planTail({ size: 10, validBytes: 10, damage: null, loadDamage: null, tailHasNewline: false }),
    ).toEqual({ kind: 'none' });
  });

  it('cuts exactly the bytes after the last newline when both verdicts agree', () => {
    expect(
      planTail({
        size: 130,
        validBytes: 100,
        damage: tail(3, 30),
        loadDamage: tail(3, 30),
        tailHasNewline: false,
      }),
    ).toEqual({
      kind: 'truncate',
      action: { kind: 'tail_truncated', line: 3, bytes: 30, size_before: 130, size_after: 100 },
    });
  });

  it('refuses a corrupt line from either verdict', () => {
    for (const [damage, loadDamage] of [
      [corrupt, corrupt],
      [tail(3, 30), corrupt],
      [corrupt, null],
    ] as const)
      expect(planTail({ size: 130, validBytes: 50, damage, loadDamage, tailHasNewline: true })).toMatchObject(
        {
          kind: 'refuse',
          code: 'journal_damaged',
          reason: 'corrupt_line',
        },
      );
  });

  it('cuts a torn batch back to its first line (the load ends the prefix there; the plain parse sees complete lines)', () => {
    // the batch from line 2 torn mid-line (the plain parse: a torn last line at line 3)
    expect(
      planTail({
        size: 130,
        validBytes: 100,
        damage: tail(3, 30),
        loadDamage: tail(2, 80),
        tailHasNewline: false,
      }),
    ).toEqual({
      kind: 'truncate',
      action: { kind: 'tail_truncated', line: 2, bytes: 80, size_before: 130, size_after: 50 },
    });
    // the batch torn at a line boundary: the plain parse sees no damage at all
    expect(
      planTail({ size: 130, validBytes: 130, damage: null, loadDamage: tail(3, 30), tailHasNewline: true }),
    ).toMatchObject({ kind: 'truncate', action: { line: 3, bytes: 30, size_after: 100 } });
    // a load cut that would reach into what the plain parse calls corrupt or past the file: refused
    expect(
      planTail({
        size: 130,
        validBytes: 40,
        damage: tail(2, 90),
        loadDamage: tail(3, 200),
        tailHasNewline: false,
      }),
    ).toMatchObject({ kind: 'refuse' });
  });

  it('refuses a tail that holds a newline or that the verdicts disagree on', () => {
    const cases = [
      { size: 130, validBytes: 100, damage: tail(3, 30), loadDamage: null, tailHasNewline: false },
      { size: 130, validBytes: 100, damage: tail(3, 30), loadDamage: tail(3, 30), tailHasNewline: true },
      { size: 130, validBytes: 100, damage: tail(3, 29), loadDamage: tail(3, 29), tailHasNewline: false },
    ];
    for (const c of cases)
      expect(planTail(c), JSON.stringify(c)).toMatchObject({
        kind: 'refuse',
        reason: 'torn_tail_spans_lines',
      });
  });
});

describe('the note and the record', () => {
  it('the note text starts with the prefix and carries the facts', () => {
    const text = recoverNoteText([
      { kind: 'lock_broken', owner: OWNER },
      { kind: 'tail_truncated', line: 7, bytes: 42, size_before: 500, size_after: 458 },
    ]);
    expect(text.startsWith(`${RECOVER_NOTE_PREFIX} `)).toBe(true);
    for (const fact of ['pid 4242', '"box"', '2026-11-30T10:00:00Z', 'line 7', '42 bytes', '500 -> 458'])
      expect(text).toContain(fact);
  });

  it('records validate against the schema; exit codes per outcome', () => {
    const r = recoverResult(
      'recovered',
      '20261130T100000Z-0a1b2c3d',
      false,
      [{ kind: 'lock_broken', owner: OWNER }],
      'ok',
      {
        cite: '20261130T100000Z-0a1b2c3d#3',
      },
    );
    expect(RecoverResultSchema.parse(r)).toEqual(r);
    expect(Object.keys(r)).toEqual(['schema', 'run_id', 'outcome', 'dry_run', 'actions', 'cite', 'detail']);
    const refused = recoverResult('refused', null, false, [], 'x', { code: 'bad_run_id' });
    expect(RecoverResultSchema.safeParse(refused).success).toBe(true);
    expect(RecoverResultSchema.safeParse({ ...refused, code: 'no_such_code' }).success).toBe(false);
    expect(RECOVER_EXIT_CODES).toEqual({
      recovered: 0,
      nothing_to_do: 0,
      planned: 0,
      refused: 3,
      incomplete: 6,
    });
    expect(recoverText(r)).toContain('journaled as 20261130T100000Z-0a1b2c3d#3');
  });
});

describe('the record as JSON Schema (for handoff schemas: run-store-recover.v1)', () => {
  it('converts as json-schemas.ts converts every published record', () => {
    const doc = z.toJSONSchema(RecoverResultSchema, {
      target: 'draft-2020-12',
      unrepresentable: 'any',
      io: 'input',
    }) as { required: string[]; additionalProperties: boolean; properties: Record<string, unknown> };
    expect(doc.required.sort()).toEqual(['actions', 'detail', 'dry_run', 'outcome', 'run_id', 'schema']);
    expect(doc.additionalProperties).toBe(false);
    expect(JSON.stringify(doc.properties.outcome)).toContain('incomplete');
  });
});
