/** Journal → cycle phases: the pure mapping used by `handoff inspect`. */
import { describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { cycleMachine } from '../../machines/index.js';
import { JOURNAL_PATH_LIMIT, journalPath, machineGraph, overlayPath } from '../../src/viz/index.js';

const RUN = '20261130T100000Z-0a1b2c3d';
const ev = (seq: number, kind: string, payload: unknown = {}) => ({
  seq,
  kind,
  payload,
  ts: '2026-11-30T10:00:00Z',
});
const h = (status: string) => ({ status });

describe('journalPath', () => {
  it('maps manifest, dispatch, handoff, review, replan and the final handoff to phases', () => {
    const p = journalPath({
      run_id: RUN,
      events: [
        ev(1, 'handoff', h('solved')),
        ev(2, 'review'),
        ev(3, 'replan'),
        ev(4, 'dispatch'),
        ev(5, 'note'),
        ev(6, 'handoff', h('stuck')),
        ev(7, 'handoff', h('solved')),
      ],
      handoff_cache: 'current',
    });
    expect(p.steps.map((s) => s.state)).toEqual([
      'plan',
      'work',
      'checkpoint',
      'review',
      'replan',
      'work',
      'checkpoint',
      'solved',
    ]);
    expect(p.steps.map((s) => s.cite)).toEqual([
      `${RUN}#manifest`,
      `${RUN}#manifest`,
      `${RUN}#1`,
      `${RUN}#2`,
      `${RUN}#3`,
      `${RUN}#4`,
      `${RUN}#6`,
      `${RUN}#7`,
    ]);
    expect(p.notes).toEqual([{ seq: 5, cite: `${RUN}#5`, step: 5 }]);
    expect(p.finished).toBe(true);
    expect(p.limits).toEqual([JOURNAL_PATH_LIMIT]);
  });

  it('a review right after a replan is the boundary stuck review', () => {
    const p = journalPath({
      run_id: RUN,
      events: [ev(1, 'handoff', h('stuck')), ev(2, 'replan'), ev(3, 'review')],
    });
    expect(p.steps.map((s) => s.state).slice(2)).toEqual(['checkpoint', 'replan', 'boundary.stuckReview']);
  });

  it('final status picks the final state; stopped is final even without the cache', () => {
    for (const status of ['solved', 'stuck', 'stopped']) {
      const p = journalPath({ run_id: RUN, events: [ev(1, 'handoff', h(status))], handoff_cache: 'current' });
      expect(p.steps.at(-1)?.state).toBe(status);
      expect(p.steps.at(-1)?.source).toBe('final');
    }
    const stopped = journalPath({
      run_id: RUN,
      events: [ev(1, 'handoff', h('stopped'))],
      handoff_cache: 'absent',
    });
    expect(stopped.finished).toBe(true);
  });

  it('an unconfirmed last handoff is a worker handoff and the run unfinished, with the limit stated', () => {
    const p = journalPath({ run_id: RUN, events: [ev(1, 'handoff', h('solved'))], handoff_cache: 'absent' });
    expect(p.steps.at(-1)?.state).toBe('checkpoint');
    expect(p.finished).toBe(false);
    expect(p.limits.some((l) => l.includes('not confirmed'))).toBe(true);
    expect(p.limits.some((l) => l.includes('no final handoff'))).toBe(true);
    const empty = journalPath({ run_id: RUN, events: [] });
    expect(empty.steps.map((s) => s.state)).toEqual(['plan', 'work']);
    expect(empty.finished).toBe(false);
  });

  it('every derived phase is a state of the cycle machine and the overlay connects them', () => {
    const g = machineGraph(cycleMachine as unknown as AnyStateMachine);
    const p = journalPath({
      run_id: RUN,
      events: [
        ev(1, 'handoff', h('stuck')),
        ev(2, 'review'),
        ev(3, 'replan'),
        ev(4, 'review'),
        ev(5, 'dispatch'),
        ev(6, 'handoff', h('stuck')),
        ev(7, 'handoff', h('stopped')),
      ],
    });
    const o = overlayPath(g, p.steps);
    expect(o.gaps).toEqual([]);
    expect(o.steps.every((s) => s.nodes.length === 1)).toBe(true);
    expect(o.current).toBe('cycle.stopped');
    expect(o.steps.slice(1).every((s) => s.edge !== null || s.inferred.length > 0)).toBe(true);
  });
});
