import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  canDeep,
  canDeepPairs,
  elapsedDisplay,
  initTracker,
  kwSearchCan,
  kwSearchCanPairs,
  kwSearchRemaining,
  parseDuration,
  recordDeep,
  recordKwSearch,
  resetClaim,
  startClaim,
  type TrackerState,
  tick,
  tickPairs,
  trackerStatus,
} from '../../src/tracker/index.js';

const T0 = 1_000_000;
function init(extra: Record<string, unknown> = {}): TrackerState {
  const r = initTracker({ maxCycles: 3, maxStuck: 2, ...extra }, 's1', T0);
  if (!r.ok) throw new Error(r.error);
  return r.state;
}

describe('duration syntax', () => {
  it('parses units, bare minutes and unlimited', () => {
    expect(parseDuration('120m')).toBe(7200);
    expect(parseDuration('90')).toBe(5400);
    expect(parseDuration('30s')).toBe(30);
    expect(parseDuration('2H')).toBe(7200);
    expect(parseDuration('')).toBe(0);
    expect(parseDuration('0')).toBe(0);
    for (const bad of ['1.5h', '-3', 'm', '10 m', '5d']) expect(parseDuration(bad)).toBeNull();
  });
  it('formats elapsed_display', () => {
    expect(elapsedDisplay(125, 7200)).toBe('2m/120m');
    expect(elapsedDisplay(40, 90)).toBe('40s/90s');
    expect(elapsedDisplay(125, 0)).toBe('2m/unlimited');
  });
});

describe('init', () => {
  it('applies defaults', () => {
    const s = init();
    expect(s.limits).toEqual({
      max_cycles: 3,
      max_stuck: 2,
      max_runtime_seconds: 0,
      max_deep_per_cycle: 1,
      max_consecutive_deep: 2,
      max_knowledge_search_per_cycle: 3,
    });
  });
  it('requires max-cycles and max-stuck and positive integers', () => {
    expect(initTracker({ maxCycles: undefined, maxStuck: 2 }, 's', 0)).toMatchObject({ ok: false });
    expect(initTracker({ maxCycles: 2, maxStuck: undefined }, 's', 0)).toMatchObject({ ok: false });
    expect(initTracker({ maxCycles: '0', maxStuck: 2 }, 's', 0)).toMatchObject({ ok: false });
    expect(initTracker({ maxCycles: 'x', maxStuck: 2 }, 's', 0)).toMatchObject({ ok: false });
    expect(initTracker({ maxCycles: 2, maxStuck: 2, maxRuntime: '1.5h' }, 's', 0)).toMatchObject({
      ok: false,
    });
    expect(initTracker({ maxCycles: 2, maxStuck: 2 }, 'bad id', 0)).toMatchObject({ ok: false });
  });
});

describe('tick', () => {
  it('counts cycles and stuck, resets per-cycle counters, reports limits in order', () => {
    let s = recordKwSearch(recordDeep(init()));
    let t = tick(s, true, T0);
    expect(t.result).toBe('ok');
    expect(t.state).toMatchObject({
      cycles: 1,
      consecutive_stuck: 1,
      consecutive_deep_cycles: 1,
      deep_this_cycle: 0,
      kw_search_this_cycle: 0,
      stuck_cycles_total: 1,
    });
    s = t.state;
    t = tick(s, true, T0);
    expect(t.result).toBe('LIMIT_REACHED');
    expect(t.violations).toEqual(['max-stuck']);
    t = tick(t.state, false, T0);
    expect(t.state.consecutive_stuck).toBe(0);
    expect(t.state.consecutive_deep_cycles).toBe(0);
    expect(t.violations).toEqual(['max-cycles']);
  });
  it('reports max-runtime at the boundary', () => {
    const s = init({ maxRuntime: '1m' });
    expect(tick(s, false, T0 + 59_000).violations).toEqual([]);
    expect(tick(s, false, T0 + 60_000).violations).toEqual(['max-runtime']);
  });
});

describe('can-deep and knowledge search', () => {
  it('denies in the spec order', () => {
    const s = init({ maxRuntime: '1m' });
    expect(canDeep(s, T0)).toEqual({ ok: true });
    const d1 = recordDeep(s);
    expect(canDeep(d1, T0)).toEqual({ ok: false, reason: 'max-deep-per-cycle' });
    const two = tick(recordDeep(tick(d1, false, T0).state), false, T0).state;
    expect(canDeep(two, T0)).toEqual({ ok: false, reason: 'max-consecutive-deep' });
    expect(canDeep(s, T0 + 61_000)).toEqual({ ok: false, reason: 'max-runtime' });
    // per-cycle wins over runtime
    expect(canDeep(d1, T0 + 61_000)).toEqual({ ok: false, reason: 'max-deep-per-cycle' });
  });
  it('budgets knowledge searches per cycle', () => {
    let s = init({ maxRuntime: '1m' });
    for (let i = 0; i < 3; i++) {
      expect(kwSearchCan(s, T0).ok).toBe(true);
      s = recordKwSearch(s);
    }
    expect(kwSearchCan(s, T0)).toEqual({ ok: false, reason: 'max-knowledge-search-per-cycle' });
    expect(kwSearchRemaining(s, T0)).toBe(0);
    const next = tick(s, false, T0).state;
    expect(kwSearchRemaining(next, T0)).toBe(3);
    expect(next.kw_search_total).toBe(3);
    expect(kwSearchCan(next, T0 + 60_000)).toEqual({ ok: false, reason: 'max-runtime' });
  });
});

describe('claims and status', () => {
  it('starts and resets claims, keeping session totals', () => {
    const s = init();
    expect(resetClaim(s)).toMatchObject({ ok: false });
    const a = startClaim(s);
    if (!a.ok) throw new Error('start');
    expect(startClaim(a.state)).toMatchObject({ ok: false });
    const ticked = tick(a.state, true, T0).state;
    const r = resetClaim(ticked);
    if (!r.ok) throw new Error('reset');
    expect(r.state).toMatchObject({ cycles: 0, consecutive_stuck: 0, cycles_total: 1, claims_attempted: 1 });
    const st = Object.fromEntries(
      trackerStatus(
        startClaim(r.state).ok ? (startClaim(r.state) as { state: TrackerState }).state : r.state,
        T0 + 125_000,
      ),
    );
    expect(st).toMatchObject({
      claims_attempted: '2',
      claim_active: 'true',
      elapsed_seconds: '125',
      elapsed_display: '2m/unlimited',
      cycles_total: '1',
    });
  });
  it('status lists every counter', () => {
    expect(trackerStatus(init(), T0).map(([k]) => k)).toEqual([
      'session_id',
      'claim_active',
      'cycles',
      'consecutive_stuck',
      'elapsed_seconds',
      'elapsed_display',
      'deep_this_cycle',
      'consecutive_deep_cycles',
      'kw_search_this_cycle',
      'cycles_total',
      'stuck_cycles_total',
      'deep_total',
      'kw_search_total',
      'claims_attempted',
    ]);
  });
});

describe('properties', () => {
  it('totals never decrease and per-cycle counters reset on tick', () => {
    const op = fc.constantFrom('tick-yes', 'tick-no', 'deep', 'kw', 'start', 'reset');
    fc.assert(
      fc.property(fc.array(op, { maxLength: 40 }), (ops) => {
        let s = init();
        let prev = s;
        for (const o of ops) {
          if (o === 'tick-yes' || o === 'tick-no') {
            const t = tick(s, o === 'tick-yes', T0);
            s = t.state;
            expect(s.deep_this_cycle + s.kw_search_this_cycle).toBe(0);
            expect(t.result === 'LIMIT_REACHED').toBe(t.violations.length > 0);
            expect(t.violations.includes('max-cycles')).toBe(s.cycles >= s.limits.max_cycles);
          } else if (o === 'deep') s = recordDeep(s);
          else if (o === 'kw') s = recordKwSearch(s);
          else if (o === 'start') s = startClaim(s).ok ? (startClaim(s) as { state: TrackerState }).state : s;
          else s = resetClaim(s).ok ? (resetClaim(s) as { state: TrackerState }).state : s;
          expect(s.cycles_total).toBeGreaterThanOrEqual(prev.cycles_total);
          expect(s.deep_total).toBeGreaterThanOrEqual(prev.deep_total);
          expect(s.kw_search_total).toBeGreaterThanOrEqual(prev.kw_search_total);
          expect(s.stuck_cycles_total).toBeLessThanOrEqual(s.cycles_total);
          prev = s;
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('output keys shared with the reference tracker', () => {
  // the reference's own suite greps for kw_search_this_cycle=0/3 and deep_this_cycle=0/ after tick
  it('tick prints every counter the reference prints, in its order', () => {
    const t = tick(recordKwSearch(recordDeep(init())), false, T0 + 61_000);
    expect(tickPairs(t.state, T0 + 61_000)).toEqual([
      ['cycles', '1/3'],
      ['consecutive_stuck', '0/2'],
      ['elapsed_seconds', '61'],
      ['elapsed_display', '1m/unlimited'],
      ['deep_this_cycle', '0/1'],
      ['consecutive_deep_cycles', '1/2'],
      ['kw_search_this_cycle', '0/3'],
    ]);
  });
  it('can-deep and kw-search-can print their counters after the verdict', () => {
    const s = recordDeep(init());
    expect(canDeepPairs(s, T0 + 2_000)).toEqual([
      ['result', 'denied'],
      ['reason', 'max-deep-per-cycle'],
      ['deep_this_cycle', '1/1'],
      ['consecutive_deep_cycles', '0/2'],
      ['elapsed_seconds', '2'],
    ]);
    expect(kwSearchCanPairs(s, T0)).toEqual([
      ['result', 'ok'],
      ['kw_search_this_cycle', '0/3'],
      ['elapsed_seconds', '0'],
    ]);
  });
});
