/**
 * The gate's reservation rules (src/gate/lifecycle.ts) on the cases the machine's generated walk
 * cannot reach from a fresh start: a restart whose ledger already holds the gate continuation (no
 * further grant, even when the profile was raised since — gate-protocol rule 7 and "a restart does
 * not replenish the shared slot"), and a refusal that still carries a grant id (never acted on).
 * Both were surviving mutants (tools/mutants.mjs M07, M08).
 */
import { describe, expect, it } from 'vitest';
import {
  type GateLifecycleContext,
  grantAcceptable,
  initialLifecycleContext,
  mayReserve,
} from '../../src/gate/lifecycle.js';

const eligible = (over: Partial<GateLifecycleContext> = {}): GateLifecycleContext => ({
  ...initialLifecycleContext({ problem_id: 'p1' }),
  route: 'CONTINUATION_ELIGIBLE',
  assessment: { assessment_id: 'a1', status: 'EVALUATED' },
  ...over,
});

describe('mayReserve', () => {
  it('asks for a slot on an evaluated, continuation-eligible round with a slot left', () => {
    expect(mayReserve(eligible())).toBe(true);
    expect(mayReserve(eligible({ ordinary_repairs_used: 1 }))).toBe(true);
  });

  it('never after the gate continuation, even when a raised profile leaves an ordinary repair', () => {
    const restarted = initialLifecycleContext({
      problem_id: 'p1',
      profile: { ordinary_repairs: 2, gate_continuations: 1 },
      used: { ordinary_repairs: 1, gate_continuations: 1 },
    });
    expect(
      mayReserve({ ...restarted, route: 'CONTINUATION_ELIGIBLE', assessment: eligible().assessment }),
    ).toBe(false);
  });

  it('never without an EVALUATED assessment, after a hard stop or after a lead handoff', () => {
    expect(mayReserve(eligible({ assessment: { assessment_id: 'none', status: 'NOT_EVALUATED' } }))).toBe(
      false,
    );
    expect(mayReserve(eligible({ route: 'LEAD_REVIEW' }))).toBe(false);
    expect(mayReserve(eligible({ hard_stop: 'budget' }))).toBe(false);
    expect(mayReserve(eligible({ lead_handoffs: 1 }))).toBe(false);
  });
});

describe('grantAcceptable', () => {
  it('acts on a granted or replayed grant of the slot that is due', () => {
    const c = eligible();
    expect(grantAcceptable(c, { outcome: 'granted', grant_id: 'g1', slot: 'ordinary-repair' })).toBe(true);
    expect(grantAcceptable(c, { outcome: 'replayed', grant_id: 'g1', slot: 'ordinary-repair' })).toBe(true);
    // the gate continuation only once the ordinary repair is used
    expect(grantAcceptable(c, { outcome: 'granted', grant_id: 'g2', slot: 'gate-continuation' })).toBe(false);
    expect(
      grantAcceptable(eligible({ ordinary_repairs_used: 1 }), {
        outcome: 'granted',
        grant_id: 'g2',
        slot: 'gate-continuation',
      }),
    ).toBe(true);
  });

  it('never acts on a refusal, even one that names a grant id and a slot', () => {
    expect(grantAcceptable(eligible(), { outcome: 'refused', grant_id: 'g1', slot: 'ordinary-repair' })).toBe(
      false,
    );
    expect(grantAcceptable(eligible(), { outcome: 'granted', grant_id: null, slot: 'ordinary-repair' })).toBe(
      false,
    );
    expect(grantAcceptable(eligible(), { outcome: 'granted', grant_id: 'g3', slot: 'lead-directed' })).toBe(
      false,
    );
  });
});
