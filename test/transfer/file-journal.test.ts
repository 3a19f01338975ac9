/**
 * The file transfer journal: a session's requests are serialized through the chain's append lock —
 * 16 concurrent requests from the active agent give exactly one grant and 15 `not_active`;
 * replaying a request id gives the same decision (and writes nothing); a redacted value never
 * reaches the file; revocation and an expired lease end the session for good; a damaged journal
 * is refused, never repaired.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type RoutePolicy,
  readTransferSession,
  revokeTransferSession,
  submitTransfer,
  type TransferRequest,
  transferJournalFile,
} from '../../src/transfer/index.js';

const T0 = Date.parse('2026-01-01T00:00:00.000Z');
const clock = (ms: number) => ({ now: () => ms });
const POLICY: RoutePolicy = {
  schema: 'handoff-routes/v1',
  entry: 'triage',
  lease_seconds: 60,
  routes: [
    { from: 'triage', to: 'billing', context: { include: ['question', 'card'], redact: ['card'] } },
    { from: 'billing', to: 'refunds', context: { include: ['question'], redact: [] } },
  ],
};
const SECRET = '4111-1111-1111-1111';
const request = (request_id: string, over: Partial<TransferRequest> = {}): TransferRequest => ({
  schema: 'handoff-transfer/v1',
  session: 'conv-1',
  request_id,
  kind: 'transfer',
  from: 'triage',
  to: 'billing',
  reason: 'invoice question',
  context: { question: 'why was I charged twice?', card: SECRET },
  blocker: null,
  evidence_delta: [],
  ...over,
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'transfer-journal-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('file transfer journal', () => {
  it('16 concurrent requests from the active agent: exactly one granted, 15 not_active', async () => {
    const decisions = await Promise.all(
      Array.from({ length: 16 }, (_, i) => submitTransfer(dir, POLICY, request(`q${i}`), clock(T0))),
    );
    const granted = decisions.filter((d) => d.outcome === 'granted');
    expect(granted).toHaveLength(1);
    expect(decisions.filter((d) => d.code === 'not_active')).toHaveLength(15);
    expect(granted[0]).toMatchObject({
      active: 'billing',
      context: { question: 'why was I charged twice?' },
      redacted: ['card'],
    });
    const state = readTransferSession(dir, 'conv-1');
    expect(state).toMatchObject({ active: 'billing', transfers: 1, seq: 17 });
    // every decision cites its own line, and the cites are distinct
    expect(new Set(decisions.map((d) => d.cite)).size).toBe(16);
    expect(readFileSync(transferJournalFile(dir, 'conv-1'), 'utf8')).not.toContain(SECRET);
  });

  it('replaying a request id gives the same decision and writes nothing; reusing it for another request is refused', async () => {
    const first = await submitTransfer(dir, POLICY, request('r1'), clock(T0));
    const path = transferJournalFile(dir, 'conv-1');
    const bytes = readFileSync(path, 'utf8');
    const again = await Promise.all(
      [1, 2, 3].map(() => submitTransfer(dir, POLICY, request('r1'), clock(T0 + 5))),
    );
    for (const d of again) expect(d).toEqual(first);
    expect(readFileSync(path, 'utf8')).toBe(bytes);
    const other = await submitTransfer(dir, POLICY, request('r1', { to: 'refunds' }), clock(T0));
    expect(other).toMatchObject({ outcome: 'refused', code: 'request_conflict', cite: null });
    // a refusal replays too
    const refused = await submitTransfer(
      dir,
      POLICY,
      request('r2', { from: 'billing', to: 'triage' }),
      clock(T0),
    );
    expect(refused.code).toBe('not_allowlisted');
    expect(
      await submitTransfer(dir, POLICY, request('r2', { from: 'billing', to: 'triage' }), clock(T0 + 1)),
    ).toEqual(refused);
  });

  it('an expired lease never acts again; a revoked session never acts again', async () => {
    await submitTransfer(dir, POLICY, request('r1'), clock(T0));
    const late = await submitTransfer(
      dir,
      POLICY,
      request('r2', { from: 'billing', to: 'refunds' }),
      clock(T0 + 60_000),
    );
    expect(late).toMatchObject({ outcome: 'refused', code: 'lease_expired', active: null });
    expect(readTransferSession(dir, 'conv-1').status).toBe('expired');
    const after = await submitTransfer(
      dir,
      POLICY,
      request('r3', { from: 'billing', to: 'refunds' }),
      clock(T0),
    );
    expect(after).toMatchObject({ outcome: 'refused', code: 'lease_expired', cite: null });

    const s2 = (id: string, over: Partial<TransferRequest> = {}) =>
      request(id, { session: 'conv-2', ...over });
    expect(await revokeTransferSession(dir, 'conv-2', { by: 'op', reason: 'x' }, clock(T0))).toEqual({
      revoked: false,
      status: 'new',
      cite: null,
    });
    await submitTransfer(dir, POLICY, s2('a'), clock(T0));
    const rv = await revokeTransferSession(
      dir,
      'conv-2',
      { by: 'op', reason: 'customer left' },
      clock(T0 + 1),
    );
    expect(rv).toEqual({ revoked: true, status: 'revoked', cite: 'conv-2#3' });
    const refused = await submitTransfer(
      dir,
      POLICY,
      s2('b', { from: 'billing', to: 'refunds' }),
      clock(T0 + 2),
    );
    expect(refused).toMatchObject({ outcome: 'refused', code: 'revoked', active: null, lease: null });
    // the decision made before the revocation still replays as it was
    expect((await submitTransfer(dir, POLICY, s2('a'), clock(T0 + 3))).outcome).toBe('granted');
  });

  it('a damaged journal is refused with journal_damaged, never repaired', async () => {
    await submitTransfer(dir, POLICY, request('r1'), clock(T0));
    const path = transferJournalFile(dir, 'conv-1');
    const lines = readFileSync(path, 'utf8').split('\n');
    writeFileSync(path, `${lines[1]}\n${lines[0]}\n`);
    await expect(submitTransfer(dir, POLICY, request('r2'), clock(T0))).rejects.toMatchObject({
      code: 'journal_damaged',
    });
    writeFileSync(path, 'not json\n');
    expect(() => readTransferSession(dir, 'conv-1')).toThrow(/line 1: not JSON/);
    expect(readFileSync(path, 'utf8')).toBe('not json\n');
  });
});
