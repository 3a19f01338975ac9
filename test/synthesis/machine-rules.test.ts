/**
 * The synthesis machine's remaining rules, pure (src/synthesis/loop/machine-rules.ts): the redraft
 * budget and verdict as the machine asks them of its context, the endings that are not a report
 * line (a failed actor, a failed extraction, a halt), and the `validate` actor's input.
 */
import { describe, expect, it } from 'vitest';
import {
  beginClaim,
  commitHaltReason,
  errorText,
  extractFailure,
  failClaim,
  initialSynthesisContext,
  redraftHaltReason,
  redraftHalts,
  redraftLeft,
  redraftNotTaken,
  redraftPermitted,
  stopByHuman,
  validateInput,
} from '../../src/synthesis/loop/index.js';
import type { LoopClaim, SynthesisContext, SynthesisInput } from '../../src/synthesis/loop/types.js';
import { initTracker } from '../../src/tracker/counters.js';

const P = 'Paper.lean';
const CLAIM: LoopClaim = { id: 'c1', index: 1, title: 't', text: 'x', name: 'foo', kind: 'theorem' };

function input(over: Partial<SynthesisInput> = {}): SynthesisInput {
  const t = initTracker({ maxCycles: 3, maxStuck: 2 }, 's', 0);
  if (!t.ok) throw new Error(t.error);
  return {
    mode: 'auto',
    entry: 'source',
    targetFile: P,
    policy: 'rewrite-generated-only',
    policyExplicit: false,
    commit: 'auto',
    maxCycles: 3,
    maxStuck: 2,
    maxRuntimeMs: 60_000,
    maxRedrafts: 1,
    tracker: t.state,
    startedAt: 0,
    ...over,
  };
}

/** A started claim whose declaration `foo` is in the target, drafted `redrafts` times again. */
function started(over: Partial<SynthesisInput> = {}, redrafts = 0, generated = true): SynthesisContext {
  const c = { ...initialSynthesisContext(input(over)), queue: [CLAIM] };
  const s = { ...c, ...beginClaim(c) } as SynthesisContext;
  const active = s.active;
  if (active === null) throw new Error('no active claim');
  return {
    ...s,
    provenance: generated ? [{ file: P, declaration: 'foo' }] : [],
    active: { ...active, redrafts, declarations: ['foo'] },
  };
}

describe('redraft budget and verdict', () => {
  it('a redraft is left while redrafts < maxRedrafts, never at the bound', () => {
    expect(redraftLeft(started({ maxRedrafts: 1 }, 0))).toBe(true);
    expect(redraftLeft(started({ maxRedrafts: 1 }, 1))).toBe(false);
    expect(redraftLeft(started({ maxRedrafts: 0 }, 0))).toBe(false);
    expect(redraftLeft({ ...started(), active: null })).toBe(true);
  });

  it('a redraft is permitted only when the rule allows it and one is left', () => {
    expect(redraftPermitted(started({}, 0))).toBe(true);
    expect(redraftPermitted(started({}, 1))).toBe(false);
    expect(redraftPermitted(started({}, 0, false))).toBe(false);
  });

  it('a refused redraft halts only under an explicit preserve, and the halt names why', () => {
    const preserve = started({ policy: 'preserve', policyExplicit: true }, 0, false);
    expect(redraftHalts(preserve)).toBe(true);
    expect(redraftHaltReason(preserve)).toMatch(/^explicit --statement-policy preserve: /);
    expect(redraftHalts(started({ policy: 'preserve', policyExplicit: false }, 0, false))).toBe(false);
    expect(redraftHalts(started({}, 0))).toBe(false);
  });

  it('a redraft not taken ends the claim: refused when the rule refused it, routed when only the budget ran out', () => {
    const refused = redraftNotTaken(started({}, 0, false));
    expect(refused.status).toBe('stuck');
    expect(refused.reason).toMatch(/redraft refused/);
    const spent = redraftNotTaken(started({}, 1));
    expect(spent.reason ?? '').not.toMatch(/redraft refused/);
  });
});

describe('endings that are not a report line', () => {
  it('errors read as one line', () => {
    expect(errorText(new Error('boom'))).toBe('boom');
    expect(errorText('plain')).toBe('plain');
    expect(errorText(undefined)).toBe('undefined');
    expect(errorText({ message: 'obj' })).toBe('obj');
  });

  it('a failed extraction is the output of a failed extract, stamped with the context clock', () => {
    expect(extractFailure({ now: 7 }, new Error('no file'))).toEqual({
      now: 7,
      ok: false,
      error: 'claim extraction failed: no file',
    });
  });

  it('a failed actor ends the claim stuck, naming the phase and the error', () => {
    const u = failClaim(started(), 'drafter', new Error('boom'));
    expect(u.active).toBeNull();
    expect(u.reports?.at(-1)).toMatchObject({ status: 'stuck', reason: 'drafter failed: boom' });
    expect(failClaim({ ...started(), active: null }, 'drafter', 'x')).toEqual({});
  });

  it('a failed draft: commit halts with its error; the human stop is remembered', () => {
    expect(commitHaltReason({ error: 'hook refused' })).toBe('draft: commit failed: hook refused');
    expect(commitHaltReason({ error: null })).toBe('draft: commit failed: unknown');
    expect(stopByHuman()).toEqual({ stoppedByHuman: true });
  });
});

describe('validate input', () => {
  it('names the active claim, the target and a copy of its declarations', () => {
    const c = started();
    const v = validateInput(c, { ...CLAIM, id: 'fallback' });
    expect(v).toEqual({ claim: CLAIM, targetFile: P, declarations: ['foo'] });
    expect(v.declarations).not.toBe(c.active?.declarations);
    expect(validateInput({ ...c, active: null }, { ...CLAIM, id: 'fallback' }).claim.id).toBe('fallback');
  });
});
