/**
 * The gate lifecycle's pure guards and reducers (src/gate/lifecycle-reducers.ts), called with a
 * context and an actor output as the machine calls them: what each route decision depends on and
 * what each reducer changes — and leaves alone.
 */
import { describe, expect, it } from 'vitest';
import { type GateLifecycleContext, initialLifecycleContext } from '../../src/gate/lifecycle.js';
import type { ReserveOutput } from '../../src/gate/lifecycle-actors.js';
import {
  afterOrdinaryRepair,
  exactFailed,
  exactStop,
  gateOutput,
  handOver,
  markBlocked,
  nextRound,
  recordAssessment,
  recordAssessmentFailure,
  recordExact,
  recordFailure,
  recordGrant,
  recordHardStop,
  recordPacket,
  recordRefusal,
  recordRoute,
  routeStops,
} from '../../src/gate/lifecycle-reducers.js';

const ctx = (over: Partial<GateLifecycleContext> = {}): GateLifecycleContext => ({
  ...initialLifecycleContext({ problem_id: 'p1' }),
  ...over,
});

const reserve = (over: Partial<ReserveOutput>): ReserveOutput => ({
  outcome: 'granted',
  grant_id: 'g-1',
  slot: 'ordinary-repair',
  reason: null,
  ...over,
});

describe('gate guards', () => {
  it('the exact checks stop on a stop code and fail on a failed check', () => {
    expect(exactStop({ ok: false, stop: true, codes: ['x'] })).toBe(true);
    expect(exactStop({ ok: false, stop: false, codes: ['x'] })).toBe(false);
    expect(exactFailed({ ok: false, stop: false, codes: ['x'] })).toBe(true);
    expect(exactFailed({ ok: true, stop: false, codes: [] })).toBe(false);
  });

  it('routing stops on STOP and on a hard stop, whatever the route', () => {
    expect(routeStops(ctx(), { route_id: 'r', route: 'STOP' })).toBe(true);
    expect(routeStops(ctx(), { route_id: 'r', route: 'CONTINUATION_ELIGIBLE' })).toBe(false);
    expect(routeStops(ctx({ hard_stop: 'budget' }), { route_id: 'r', route: 'CONTINUATION_ELIGIBLE' })).toBe(
      true,
    );
  });

  it('only the ordinary repair loops back to collecting', () => {
    expect(afterOrdinaryRepair(ctx({ grant: { grant_id: 'g', slot: 'ordinary-repair' } }))).toBe(true);
    expect(afterOrdinaryRepair(ctx({ grant: { grant_id: 'g', slot: 'gate-continuation' } }))).toBe(false);
    expect(afterOrdinaryRepair(ctx())).toBe(false);
  });
});

describe('gate reducers', () => {
  it('record what the actors returned, as copies', () => {
    const codes = ['tests_failed'];
    const exact = recordExact({ ok: false, stop: false, codes });
    expect(exact).toEqual({ exact: { ok: false, stop: false, codes: ['tests_failed'] } });
    expect(exact.exact?.codes).not.toBe(codes);
    expect(markBlocked()).toEqual({ mode: 'blocked' });
    expect(recordPacket({ packet_id: 'pkt' })).toEqual({ packet_id: 'pkt' });
    expect(recordAssessment({ assessment_id: 'a', status: 'INVALID' })).toEqual({
      assessment: { assessment_id: 'a', status: 'INVALID' },
    });
    expect(recordRoute({ route_id: 'r', route: 'LEAD_REVIEW' })).toEqual({ route: 'LEAD_REVIEW' });
  });

  it('a failed assessment is NOT_EVALUATED with a note appended', () => {
    const u = recordAssessmentFailure(ctx({ notes: ['earlier'] }));
    expect(u.assessment).toEqual({ assessment_id: 'none', status: 'NOT_EVALUATED' });
    expect(u.notes).toEqual(['earlier', 'assessment actor failed: recorded as NOT_EVALUATED']);
  });

  it('a grant counts one use of its own slot only', () => {
    const c = ctx({ grants: [{ grant_id: 'g-0', slot: 'ordinary-repair' }], ordinary_repairs_used: 1 });
    const cont = recordGrant(c, reserve({ grant_id: 'g-1', slot: 'gate-continuation' }));
    expect(cont).toEqual({
      grant: { grant_id: 'g-1', slot: 'gate-continuation' },
      grants: [
        { grant_id: 'g-0', slot: 'ordinary-repair' },
        { grant_id: 'g-1', slot: 'gate-continuation' },
      ],
      ordinary_repairs_used: 1,
      gate_continuations_used: 1,
    });
    const rep = recordGrant(ctx(), reserve({}));
    expect([rep.ordinary_repairs_used, rep.gate_continuations_used]).toEqual([1, 0]);
    expect(recordGrant(ctx(), reserve({ grant_id: null }))).toEqual({});
    expect(recordGrant(ctx(), reserve({ slot: null }))).toEqual({});
  });

  it('a reservation not acted on leaves a note naming why', () => {
    expect(
      recordRefusal(ctx(), reserve({ outcome: 'refused', grant_id: null, slot: null, reason: 'spent' }))
        .notes,
    ).toEqual(['reservation refused: spent']);
    expect(recordRefusal(ctx(), reserve({ outcome: 'refused', grant_id: null, slot: null })).notes).toEqual([
      'reservation refused: no reason given',
    ]);
    expect(recordRefusal(ctx(), reserve({ outcome: 'replayed' })).notes).toEqual([
      'reservation replayed grant g-1 (ordinary-repair): not acted on again, beyond the profile',
    ]);
  });

  it('a new round keeps nothing of the old round but its number', () => {
    const old = ctx({
      round: 2,
      packet_id: 'pkt',
      exact: { ok: true, stop: false, codes: [] },
      assessment: { assessment_id: 'a', status: 'EVALUATED' },
      route: 'CONTINUATION_ELIGIBLE',
    });
    expect(nextRound(old, { worker_status: 'blocked' })).toEqual({
      mode: 'blocked',
      round: 3,
      packet_id: null,
      exact: null,
      assessment: null,
      route: null,
    });
  });

  it('failures and hard stops append notes; handing over counts and sets the outcome', () => {
    expect(recordFailure(ctx({ notes: ['a'] }), 'routing failed').notes).toEqual(['a', 'routing failed']);
    expect(recordHardStop(ctx(), 'budget')).toEqual({ hard_stop: 'budget', notes: ['hard stop: budget'] });
    expect(handOver(ctx({ lead_handoffs: 1 }), 'stopped')).toEqual({ lead_handoffs: 2, outcome: 'stopped' });
    expect(handOver(ctx(), 'lead-review')).toEqual({ lead_handoffs: 1, outcome: 'lead-review' });
  });

  it('the output names the final outcome (lead review when none was recorded)', () => {
    expect(gateOutput(ctx({ outcome: 'stopped', notes: ['n'] }))).toEqual({
      outcome: 'stopped',
      notes: ['n'],
    });
    expect(gateOutput(ctx()).outcome).toBe('lead-review');
  });
});
