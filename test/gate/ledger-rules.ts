/**
 * The ledger rules every backend must keep (memory, fs: ledger.test.ts; PostgreSQL:
 * pg-ledger.test.ts), as `it` blocks to call inside a backend's `describe`: missing history fails
 * closed, lead-directed attempts after the lead handoff, release and reconcile, and grants only on a
 * re-checked basis (the route decision bound by digest, the live tree).
 */
import { expect, it } from 'vitest';
import { type Ledger, reservationBasis } from '../../src/gate/index.js';
import { directive, live, PROFILE, req, routeOf } from './fixtures.js';

/** Registers the shared rule tests against ledgers made by `make` (each call a fresh, empty ledger). */
export function ledgerRuleTests(make: () => Ledger): void {
  it('missing history fails closed: no grant, status null', async () => {
    const l = make();
    expect(await l.reserve(...live(req('k')))).toMatchObject({
      outcome: 'refused',
      reason: 'history_missing',
    });
    expect(await l.status('p1')).toBeNull();
    await expect(l.addDirective(directive('d1'))).rejects.toMatchObject({ code: 'history_missing' });
  });

  it('after the lead handoff only directives authorize, up to the profile, then escalate', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    await l.recordLeadHandoff('p1', { packet_id: null, route: 'REVIEW_READY' });
    expect(await l.reserve(...live(req('c1')))).toMatchObject({ reason: 'after_lead_handoff' });
    const lead = (d: string, digest: string) =>
      req(`directive:${d}`, digest, { kind: 'lead-directed', directive_id: d });
    expect(await l.reserve(...live(lead('d0', 'e'.repeat(64))))).toMatchObject({ reason: 'no_directive' });
    for (let i = 1; i <= 4; i++) await l.addDirective(directive(`d${i}`));
    for (let i = 1; i <= 3; i++) {
      const r = await l.reserve(...live(lead(`d${i}`, String(i).repeat(64))));
      expect(r).toMatchObject({ outcome: 'granted', grant: { slot: 'lead-directed', ordinal: i } });
      if (r.outcome !== 'refused') await l.consume('p1', r.grant.grant_id);
    }
    expect(await l.reserve(...live(lead('d1', '1'.repeat(64))))).toMatchObject({ outcome: 'replayed' });
    expect(await l.reserve(...live(lead('d4', '4'.repeat(64))))).toMatchObject({ reason: 'escalate' });
  });

  it('release only before work started; reconcile resumes an unstarted grant, hands a started one to the lead', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const g = await l.reserve(...live(req('k1')));
    if (g.outcome === 'refused') throw new Error('unreachable');
    expect((await l.reconcile('p1', g.grant.grant_id)).action).toBe('resume');
    await l.release('p1', g.grant.grant_id, 're-check failed');
    const g2 = await l.reserve(...live(req('k2', 'f'.repeat(64))));
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

  it('grants a continuation only on its re-checked basis: forged, edited, rebound or stale requests are refused and append nothing', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    const cand = { commit: null, tree_digest: 'd'.repeat(64) };
    const refused = async (r: ReturnType<typeof req>, reason: string, liveTree = cand) => {
      expect(await l.reserve(r, { live: liveTree }), reason).toMatchObject({ outcome: 'refused', reason });
    };
    // no route decision behind it (the forged reservation)
    await refused(
      req('f1', cand.tree_digest, { route_decision: null, route_digest: null }),
      'no_route_decision',
    );
    await refused(req('f1', cand.tree_digest, { route_digest: null }), 'no_route_decision');
    // a LEAD_REVIEW decision edited to CONTINUATION_ELIGIBLE (route_id no longer recomputes)
    const edited = { ...routeOf('LEAD_REVIEW'), route: 'CONTINUATION_ELIGIBLE' as const };
    await refused(req('f2', cand.tree_digest, reservationBasis(edited, cand, 1)), 'route_digest_mismatch');
    // a digest bound to another candidate, another contract revision, or none at all
    const other = { commit: null, tree_digest: 'e'.repeat(64) };
    await refused(
      req('f3', cand.tree_digest, reservationBasis(routeOf(), other, 1)),
      'route_digest_mismatch',
    );
    await refused(req('f4', cand.tree_digest, reservationBasis(routeOf(), cand, 2)), 'route_digest_mismatch');
    await refused(req('f5', cand.tree_digest, { route_digest: '0'.repeat(64) }), 'route_digest_mismatch');
    // an honest decision that does not allow a continuation
    await refused(
      req('f6', cand.tree_digest, reservationBasis(routeOf('LEAD_REVIEW'), cand, 1)),
      'route_not_eligible',
    );
    await refused(
      req('f6', cand.tree_digest, reservationBasis(routeOf('REVIEW_READY'), cand, 1)),
      'route_not_eligible',
    );
    // a well-formed request whose candidate is not the live tree (e.g. made-up zeros)
    const zeros = { commit: null, tree_digest: '0'.repeat(64) };
    await refused(req('f7', zeros.tree_digest), 'stale_candidate');
    expect(await l.reserve(req('f7', zeros.tree_digest), { live: null })).toMatchObject({
      reason: 'stale_candidate',
    });
    // a lead-directed attempt is checked against the live tree too
    await l.addDirective(directive('d1'));
    await refused(
      req('directive:d1', zeros.tree_digest, { kind: 'lead-directed', directive_id: 'd1' }),
      'stale_candidate',
    );
    const st = await l.status('p1');
    expect(st?.grants).toEqual([]);
    expect(st?.seq).toBe(2); // registration + directive: no refusal appended anything
    // the same request on its real basis is granted, and its replay needs no basis check
    expect(await l.reserve(...live(req('ok', cand.tree_digest)))).toMatchObject({ outcome: 'granted' });
    expect(await l.reserve(req('ok', cand.tree_digest), { live: null })).toMatchObject({
      outcome: 'replayed',
    });
  });

  it('a revise-contract directive moves the revision a route digest must bind', async () => {
    const l = make();
    await l.register({ problem_id: 'p1', profile: PROFILE, contract_revision: 1 });
    await l.addDirective({ ...directive('rev2'), kind: 'revise-contract', contract_revision: 2 });
    const cand = { commit: null, tree_digest: 'd'.repeat(64) };
    expect(await l.reserve(req('r1', cand.tree_digest), { live: cand })).toMatchObject({
      reason: 'route_digest_mismatch',
    });
    expect(
      await l.reserve(req('r2', cand.tree_digest, reservationBasis(routeOf(), cand, 2)), { live: cand }),
    ).toMatchObject({ outcome: 'granted' });
  });
}
