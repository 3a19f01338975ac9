/**
 * The ledger rules every backend must keep (memory, fs: ledger.test.ts; PostgreSQL:
 * pg-ledger.test.ts), as `it` blocks to call inside a backend's `describe`: missing history fails
 * closed, lead-directed attempts after the lead handoff, release and reconcile.
 */
import { expect, it } from 'vitest';
import type { Ledger } from '../../src/gate/index.js';
import { directive, PROFILE, req } from './fixtures.js';

/** Registers the shared rule tests against ledgers made by `make` (each call a fresh, empty ledger). */
export function ledgerRuleTests(make: () => Ledger): void {
  it('missing history fails closed: no grant, status null', async () => {
    const l = make();
    expect(await l.reserve(req('k'))).toMatchObject({ outcome: 'refused', reason: 'history_missing' });
    expect(await l.status('p1')).toBeNull();
    await expect(l.addDirective(directive('d1'))).rejects.toMatchObject({ code: 'history_missing' });
  });

  it('after the lead handoff only directives authorize, up to the profile, then escalate', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    await l.recordLeadHandoff('p1', { packet_id: null, route: 'REVIEW_READY' });
    expect(await l.reserve(req('c1'))).toMatchObject({ reason: 'after_lead_handoff' });
    const lead = (d: string, digest: string) =>
      req(`directive:${d}`, digest, { kind: 'lead-directed', directive_id: d });
    expect(await l.reserve(lead('d0', 'e'.repeat(64)))).toMatchObject({ reason: 'no_directive' });
    for (let i = 1; i <= 4; i++) await l.addDirective(directive(`d${i}`));
    for (let i = 1; i <= 3; i++) {
      const r = await l.reserve(lead(`d${i}`, String(i).repeat(64)));
      expect(r).toMatchObject({ outcome: 'granted', grant: { slot: 'lead-directed', ordinal: i } });
      if (r.outcome !== 'refused') await l.consume('p1', r.grant.grant_id);
    }
    expect(await l.reserve(lead('d1', '1'.repeat(64)))).toMatchObject({ outcome: 'replayed' });
    expect(await l.reserve(lead('d4', '4'.repeat(64)))).toMatchObject({ reason: 'escalate' });
  });

  it('release only before work started; reconcile resumes an unstarted grant, hands a started one to the lead', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g = await l.reserve(req('k1'));
    if (g.outcome === 'refused') throw new Error('unreachable');
    expect((await l.reconcile('p1', g.grant.grant_id)).action).toBe('resume');
    await l.release('p1', g.grant.grant_id, 're-check failed');
    const g2 = await l.reserve(req('k2', 'f'.repeat(64)));
    if (g2.outcome === 'refused') throw new Error('unreachable');
    expect(g2.grant.slot).toBe('ordinary-repair');
    await l.start('p1', g2.grant.grant_id);
    await expect(l.release('p1', g2.grant.grant_id, 'x')).rejects.toMatchObject({ code: 'grant_state' });
    expect(await l.reconcile('p1', g2.grant.grant_id)).toMatchObject({
      action: 'lead-review',
      grant: { state: 'uncertain' },
    });
    await expect(l.consume('p1', 'grt_00000000000000000000000000000000')).rejects.toMatchObject({
      code: 'no_such_grant',
    });
  });
}
