/**
 * The rules of repair mode (src/cycle/repair-rules.ts): the escalation triggers, the budgets per
 * signature and per cycle (prove 2/6, autoprove 2/8), the improvement definition, the ledger and
 * the no-improvement rule, and error signatures — including hostile signature keys.
 */
import { describe, expect, it } from 'vitest';
import { blockerSignature } from '../../src/contract/blocker-signature.js';
import {
  EMPTY_REPAIR_LEDGER,
  errorSignature,
  type RepairLedger,
  recordRepair,
  repairBudget,
  repairExhausted,
  repairOutcome,
  repairTrigger,
} from '../../src/cycle/repair-rules.js';
import type { CycleOptions } from '../../src/cycle/types.js';
import { MODE_DEFAULTS } from '../../src/runtime/cycle-options.js';

/** Autoprove defaults (lean4-contracts §8). */
const OPTIONS: CycleOptions = {
  target: '.',
  scope: 'project',
  mode: 'autoprove',
  ...MODE_DEFAULTS.autoprove,
};

const PROVE: CycleOptions = { target: '.', scope: 'project', mode: 'prove', ...MODE_DEFAULTS.prove };
const S = 'A.lean:9:type mismatch';

/** Records `outcomes` on `sig` in order. */
const run = (sig: string, outcomes: ('improved' | 'neutral')[], from: RepairLedger = EMPTY_REPAIR_LEDGER) =>
  outcomes.reduce((l, o) => recordRepair(l, sig, o), from);

describe('repairTrigger', () => {
  it.each<[string, (string | null)[], number, number, string | null]>([
    ['no history', [], 0, 0, null],
    ['one signature', [S], 0, 0, null],
    ['the same signature twice in a row', ['x', S, S], 0, 0, 'same blocker signature 2 iterations'],
    ['the same signature, not consecutive', [S, 'y', S], 0, 0, null],
    ['two unknown signatures are not the same blocker', [null, null], 0, 0, null],
    ['the same build error after 2 attempts', [S, 'y'], 2, 0, 'same build error after 2 attempts'],
    ['a build error repeated once', [], 1, 0, null],
    ['3 distinct errors in scope', [], 0, 3, '3 distinct errors in scope'],
    ['2 distinct errors', [], 0, 2, null],
    ['first trigger in the seed order wins', [S, S], 5, 5, 'same blocker signature 2 iterations'],
    ['build error before distinct errors', [], 2, 4, 'same build error after 2 attempts'],
  ])('%s', (_name, signatures, buildErrorRepeats, distinctErrors, expected) => {
    expect(repairTrigger({ signatures, buildErrorRepeats, distinctErrors })).toBe(expected);
  });
});

describe('repairBudget', () => {
  it('allows 2 attempts per signature', () => {
    expect(repairBudget(EMPTY_REPAIR_LEDGER, S, OPTIONS)).toEqual({ ok: true });
    expect(repairBudget(run(S, ['neutral']), S, OPTIONS)).toEqual({ ok: true });
    expect(repairBudget(run(S, ['neutral', 'improved']), S, OPTIONS)).toEqual({
      ok: false,
      reason: `repair: budget exhausted — 2/2 attempts on ${S} this cycle`,
    });
    expect(repairBudget(run(S, ['neutral', 'improved']), 'other', OPTIONS)).toEqual({ ok: true });
  });

  it.each<[string, CycleOptions, number]>([
    ['prove: 6 per cycle', PROVE, 6],
    ['autoprove: 8 per cycle', OPTIONS, 8],
  ])('%s', (_name, options, perCycle) => {
    let l = EMPTY_REPAIR_LEDGER;
    for (let i = 0; i < perCycle; i++) {
      expect(repairBudget(l, `s${i}`, options)).toEqual({ ok: true });
      l = recordRepair(l, `s${i}`, 'improved');
    }
    expect(repairBudget(l, 'fresh', options)).toEqual({
      ok: false,
      reason: `repair: budget exhausted — ${perCycle}/${perCycle} attempts this cycle`,
    });
  });

  it('a corrupt ledger total fails closed', () => {
    const bad = { ...EMPTY_REPAIR_LEDGER, total: Number.NaN };
    expect(repairBudget(bad, S, OPTIONS).ok).toBe(false);
  });
});

describe('repairOutcome', () => {
  it.each<[string, [number, string[]], [number, string[]], 'improved' | 'neutral']>([
    ['error count down', [3, [S, 'a', 'b']], [2, [S, 'a']], 'improved'],
    ['the signature gone, count unchanged', [2, [S, 'a']], [2, ['a', 'c']], 'improved'],
    ['errors changed without a lower count', [2, [S, 'a']], [2, [S, 'c']], 'neutral'],
    ['nothing changed', [1, [S]], [1, [S]], 'neutral'],
    ['more errors, signature still there', [1, [S]], [3, [S, 'a', 'b']], 'neutral'],
    ['more errors, signature gone', [1, [S]], [3, ['a', 'b', 'c']], 'improved'],
    ['a signature that was never there cannot disappear', [2, ['a', 'b']], [2, ['a', 'b']], 'neutral'],
    ['a count that is not a number is no improvement', [2, [S]], [Number.NaN, [S]], 'neutral'],
  ])('%s', (_name, [be, bs], [ae, as], expected) => {
    expect(repairOutcome({ errors: be, signatures: bs }, { errors: ae, signatures: as }, S)).toBe(expected);
  });
});

describe('the ledger and the no-improvement rule', () => {
  it('every attempt counts toward the budgets; neutral extends the streak, improved resets it', () => {
    const l1 = recordRepair(EMPTY_REPAIR_LEDGER, S, 'neutral');
    expect(l1).toEqual({ perSignature: { [S]: 1 }, total: 1, noImprovement: { [S]: 1 } });
    expect(repairExhausted(l1, S)).toBe(false);
    const l2 = recordRepair(l1, S, 'improved');
    expect(l2).toEqual({ perSignature: { [S]: 2 }, total: 2, noImprovement: { [S]: 0 } });
    expect(repairExhausted(l2, S)).toBe(false);
    const l3 = recordRepair(l2, 'B.lean:1:x', 'neutral');
    expect(l3).toEqual({
      perSignature: { [S]: 2, 'B.lean:1:x': 1 },
      total: 3,
      noImprovement: { [S]: 0, 'B.lean:1:x': 1 },
    });
    expect(EMPTY_REPAIR_LEDGER).toEqual({ perSignature: {}, total: 0, noImprovement: {} });
    expect(l1.total).toBe(1);
  });

  it.each<[string, ('improved' | 'neutral')[], boolean]>([
    ['two neutral attempts: stuck', ['neutral', 'neutral'], true],
    ['one neutral attempt', ['neutral'], false],
    ['neutral, improved, neutral: the streak was reset', ['neutral', 'improved', 'neutral'], false],
    ['improved, neutral, neutral', ['improved', 'neutral', 'neutral'], true],
  ])('%s', (_name, outcomes, exhausted) => {
    expect(repairExhausted(run(S, outcomes), S)).toBe(exhausted);
    expect(repairExhausted(run(S, outcomes), 'other')).toBe(false);
  });

  it('hostile signatures are plain keys: __proto__, constructor, toString', () => {
    for (const sig of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(repairBudget(EMPTY_REPAIR_LEDGER, sig, OPTIONS)).toEqual({ ok: true });
      expect(repairExhausted(EMPTY_REPAIR_LEDGER, sig)).toBe(false);
      const l = run(sig, ['neutral', 'neutral']);
      expect(Object.getPrototypeOf(l.perSignature)).toBe(Object.prototype);
      expect(Object.hasOwn(l.perSignature, sig)).toBe(true);
      expect(l.perSignature[sig]).toBe(2);
      expect(l.total).toBe(2);
      expect(repairExhausted(l, sig)).toBe(true);
      expect(repairBudget(l, sig, OPTIONS).ok).toBe(false);
      expect(repairBudget(l, S, OPTIONS)).toEqual({ ok: true });
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe('errorSignature', () => {
  it.each<[string, string, string]>([
    ['a diagnostics error', 'A.lean:9:type mismatch', 'A.lean:9:type mismatch'],
    ['a nested path', 'Foo/Bar.lean:120:unknown identifier', 'Foo/Bar.lean:120:unknown identifier'],
    ['text with colons', 'A.lean:9:expected: Nat', 'A.lean:9:expected: Nat'],
    ['a malformed string', 'oops', ':0:oops'],
  ])('%s', (_name, error, expected) => {
    expect(errorSignature(error)).toBe(expected);
  });
  it('multi-line text keys on its first line, long text is hashed, exactly as blockerSignature does', () => {
    const text = `type mismatch\n  h\nhas type ${'x'.repeat(100)}`;
    expect(errorSignature(`A.lean:9:${text}`)).toBe(blockerSignature('A.lean', 9, text));
    expect(errorSignature(`A.lean:9:${text}`)).toMatch(/^A\.lean:9:/);
    expect(errorSignature(`A.lean:9:${text}`)).toBe(
      errorSignature(`A.lean:9:${text.replace('\n  h', '\n  g')}`),
    );
    expect(errorSignature(`A.lean:9:${text}`)).toBe('A.lean:9:type mismatch');
    const long = `failed to synthesize ${'Decidable '.repeat(10)}`;
    expect(errorSignature(`A.lean:9:${long}`)).toBe(blockerSignature('A.lean', 9, long));
    expect(errorSignature(`A.lean:9:${long}`)).toMatch(/^A\.lean:9:h-[0-9a-f]{12}$/);
    expect(errorSignature('A.lean:3:cannot unify ?m.12')).toBe(errorSignature('A.lean:3:cannot unify ?m.57'));
    expect(errorSignature('A.lean:3:cannot unify ?m.12')).not.toBe(
      errorSignature('A.lean:4:cannot unify ?m.12'),
    );
  });
});
