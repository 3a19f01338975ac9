/**
 * The review router (src/cycle/router.ts): every `next_action` with and without an outer loop,
 * the table as data covering the contract's enum, and a hostile reviewer's unknown action.
 */
import { describe, expect, it } from 'vitest';
import { type NextAction, NextActionSchema } from '../../src/contract/index.js';
import { ROUTER_TABLE, type Route, routeFor } from '../../src/cycle/router.js';

describe('routeFor', () => {
  it.each<[NextAction, boolean, Route, string]>([
    ['continue', false, 'resume', 'continue: resume the inner cycle with the revised plan'],
    ['continue', true, 'resume', 'continue: resume the inner cycle with the revised plan'],
    ['deep', false, 'deep', 'deep: enter deep mode on the stuck target'],
    ['deep', true, 'deep', 'deep: enter deep mode on the stuck target'],
    ['repair', false, 'repair', 'repair: enter repair mode on the active compiler errors'],
    ['repair', true, 'repair', 'repair: enter repair mode on the active compiler errors'],
    [
      'redraft',
      true,
      'outer',
      'redraft: re-draft the statement in the outer loop, checking provenance and statement policy',
    ],
    [
      'redraft',
      false,
      'resume',
      'redraft: informational — no outer loop is active (re-draft the statement in the outer loop, checking provenance and statement policy); resuming the inner cycle',
    ],
    ['golf', true, 'outer', 'golf: a golf pass in the outer loop'],
    [
      'golf',
      false,
      'resume',
      'golf: informational — no outer loop is active (a golf pass in the outer loop); resuming the inner cycle',
    ],
    ['stop', false, 'halt', 'stop: halt the claim: next claim or stop'],
    ['stop', true, 'halt', 'stop: halt the claim: next claim or stop'],
  ])('%s (outer loop %s) → %s', (action, outer, route, detail) => {
    expect(routeFor(action, outer)).toEqual({ route, detail });
  });

  it('a hostile reviewer: an unknown next_action halts, prototype keys included', () => {
    for (const bad of ['formalize', '__proto__', 'constructor', 'toString', '', 'DEEP']) {
      expect(routeFor(bad as NextAction, true)).toEqual({
        route: 'halt',
        detail: `unknown next_action ${JSON.stringify(bad)}: halting`,
      });
    }
    expect(routeFor(null as unknown as NextAction, false).route).toBe('halt');
  });
});

describe('ROUTER_TABLE', () => {
  it('has exactly one row per next_action of the contract, in its order', () => {
    expect(Object.keys(ROUTER_TABLE)).toEqual(NextActionSchema.options);
  });
  it('only redraft and golf depend on the outer loop', () => {
    const dependent = NextActionSchema.options.filter(
      (a) => ROUTER_TABLE[a].route !== ROUTER_TABLE[a].withoutOuterLoop,
    );
    expect(dependent).toEqual(['redraft', 'golf']);
    for (const a of NextActionSchema.options) {
      expect(routeFor(a, true).route).toBe(ROUTER_TABLE[a].route);
      expect(routeFor(a, false).route).toBe(ROUTER_TABLE[a].withoutOuterLoop);
    }
  });
  it('is frozen', () => {
    expect(Object.isFrozen(ROUTER_TABLE)).toBe(true);
  });
});
