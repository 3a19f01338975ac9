/**
 * `handoff transfer` in-process: exit 0 granted, 5 refused, 3 invalid record, 2 usage; the printed
 * decision is the library's; `status` and `revoke` read and end a session; per-verb help.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { submitTransfer, validateRoutePolicy, validateTransferRequest } from '../../src/transfer/index.js';
import { cliMain } from '../helpers/cli-main.js';

const NOW = '2026-01-01T00:00:00.000Z';
const POLICY = {
  schema: 'handoff-routes/v1',
  entry: 'triage',
  lease_seconds: 60,
  routes: [{ from: 'triage', to: 'billing', context: { include: ['question', 'card'], redact: ['card'] } }],
};
const request = (request_id: string, over: Record<string, unknown> = {}) => ({
  schema: 'handoff-transfer/v1',
  session: 'conv-9',
  request_id,
  from: 'triage',
  to: 'billing',
  reason: 'invoice',
  context: { question: 'twice?', card: '4111' },
  ...over,
});

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'transfer-cli-'));
  writeFileSync(join(dir, 'policy.json'), JSON.stringify(POLICY));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const put = (name: string, value: unknown) => {
  writeFileSync(join(dir, name), JSON.stringify(value));
  return name;
};
const decide = (req: string, extra: string[] = []) =>
  cliMain(
    ['transfer', '--policy', 'policy.json', '--journal', 'j', '--request', req, '--now', NOW, ...extra],
    dir,
  );

describe('handoff transfer', () => {
  it('grants (0), refuses (5), replays, and agrees with the library', async () => {
    const g = await decide(put('r1.json', request('r1')));
    expect(g.code).toBe(0);
    const granted = JSON.parse(g.out);
    expect(granted).toMatchObject({
      outcome: 'granted',
      active: 'billing',
      context: { question: 'twice?' },
      redacted: ['card'],
      cite: 'conv-9#2',
    });
    const r = await decide(put('r2.json', request('r2')));
    expect(r.code).toBe(5);
    expect(JSON.parse(r.out)).toMatchObject({ outcome: 'refused', code: 'not_active' });
    expect(JSON.parse((await decide('r1.json')).out)).toEqual(granted);
    // the library answers the same replay with the same record
    const policy = validateRoutePolicy(POLICY);
    const req = validateTransferRequest(request('r1'));
    if (!policy.ok || !req.ok) throw new Error('fixture');
    expect(await submitTransfer(join(dir, 'j'), policy.value, req.value)).toEqual(granted);
  });

  it('answers an invalid record with 3 and a usage error with 2', async () => {
    const bad = await decide(put('bad.json', request('r1', { to: undefined })));
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.out)).toMatchObject({ code: 'invalid_record', record: 'request' });
    expect(bad.err).toContain('to');
    writeFileSync(join(dir, 'broken.json'), '{');
    expect((await decide('broken.json')).code).toBe(3);
    writeFileSync(join(dir, 'policy.json'), JSON.stringify({ ...POLICY, lease_seconds: -1 }));
    expect((await decide(put('r1.json', request('r1')))).code).toBe(3);
    expect((await cliMain(['transfer', '--journal', 'j'], dir)).code).toBe(2);
    expect((await decide('r1.json', ['--now', 'yesterday'])).code).toBe(2);
  });

  it('status shows the session, revoke ends it, and a revoked session refuses', async () => {
    await decide(put('r1.json', request('r1')));
    const st = await cliMain(
      ['transfer', 'status', '--journal', 'j', '--session', 'conv-9', '--now', NOW],
      dir,
    );
    expect(st.code).toBe(0);
    expect(JSON.parse(st.out)).toMatchObject({
      status: 'active',
      active: 'billing',
      lease_live: true,
      transfers: 1,
      seq: 2,
    });
    const rv = await cliMain(
      ['transfer', 'revoke', '--journal', 'j', '--session', 'conv-9', '--by', 'op'],
      dir,
    );
    expect(rv.code).toBe(0);
    expect(JSON.parse(rv.out)).toMatchObject({ revoked: true, status: 'revoked', cite: 'conv-9#3' });
    expect((await cliMain(['transfer', 'revoke', '--journal', 'j', '--session', 'conv-9'], dir)).code).toBe(
      5,
    );
    const after = await decide(put('r3.json', request('r3', { from: 'billing', to: 'triage' })));
    expect(after.code).toBe(5);
    expect(JSON.parse(after.out).code).toBe('revoked');
  });

  it('has per-verb help', async () => {
    const top = await cliMain(['transfer', '--help'], dir);
    expect(top.code).toBe(0);
    expect(top.out).toContain('usage: handoff transfer --policy');
    const rv = await cliMain(['transfer', 'revoke', '--help'], dir);
    expect(rv.code).toBe(0);
    expect(rv.out).toContain('--reason');
    expect((await cliMain(['--help'], dir)).out).toContain('transfer');
  });
});
