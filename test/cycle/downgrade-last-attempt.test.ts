/**
 * The one downgrade of a claim that did not hold (src/cycle/verify-edit.ts): the latest attempt
 * becomes a failure whose blocker signature names the target and the reason, and nothing else
 * changes. Both callers (verifyEdit, and absorbWork for a refused batch's siblings) go through it.
 * And the one tier label of a verify line (verifyEdit and absorbVerify's falsify branch).
 */
import { describe, expect, it } from 'vitest';
import { blockerSignature } from '../../src/contract/index.js';
import type { AttemptRecord } from '../../src/cycle/types.js';
import { downgradeLastAttempt, tiersLabel, verifyEdit } from '../../src/cycle/verify-edit.js';
import { absorbVerify } from '../../src/cycle/work-reducers.js';
import { cycleContext, handoffOutcome, T1, workerHandoff } from './fixture.js';

const attempt = (cycle: number, solved: boolean, signature: string | null = null): AttemptRecord => ({
  cycle,
  solved,
  signature,
  snippets: [`snippet ${cycle}`],
  emptySearch: cycle % 2 === 0,
});
const T = { file: 'A.lean', line: 2 };

describe('downgradeLastAttempt', () => {
  it('turns only the latest attempt into a failure signed file:line:reason, keeping its other fields', () => {
    const before = [attempt(1, false, 'A.lean:2:old'), attempt(2, true)];
    const after = downgradeLastAttempt(before, T, 'not verified');
    expect(after).toEqual([
      attempt(1, false, 'A.lean:2:old'),
      {
        cycle: 2,
        solved: false,
        signature: 'A.lean:2:not verified',
        snippets: ['snippet 2'],
        emptySearch: true,
      },
    ]);
    // pure: the input is untouched
    expect(before[1]).toEqual(attempt(2, true));
  });

  it('leaves an empty history as it is and signs nothing without a target', () => {
    const none: readonly AttemptRecord[] = [];
    expect(downgradeLastAttempt(none, T, 'not verified')).toBe(none);
    expect(downgradeLastAttempt([attempt(1, true)], undefined, 'not verified')).toEqual([
      { ...attempt(1, true), solved: false, signature: null },
    ]);
  });

  it('hostile worker: a reason from its own error text is hashed and the target line clamped, never thrown', () => {
    const reason = `error: ${'x'.repeat(5000)}\n\u0000rm -rf / $(reboot)`;
    const bad = { file: 'A.lean', line: -7 };
    const [only] = downgradeLastAttempt([attempt(1, true)], bad, reason);
    expect(only?.signature).toBe(blockerSignature('A.lean', 0, reason));
    expect(only?.signature).toMatch(/^A\.lean:0:h-[0-9a-f]{12}$/);
    expect(only?.solved).toBe(false);
  });

  it('is the downgrade verifyEdit applies to a solved claim that does not hold', () => {
    const t = { id: 'A.lean:2', file: 'A.lean', line: 2, goal: 'sorry' };
    const attempts = [attempt(1, true)];
    const v = verifyEdit(t, attempts, 'solved', {
      tier: 'file-fast',
      targets: [],
      errors: ['A.lean:9:type mismatch'],
    });
    expect(v.confirmed).toBe(false);
    expect(v.attempts).toEqual(downgradeLastAttempt(attempts, t, 'type mismatch'));
  });
});

describe('tiersLabel', () => {
  it('joins the tiers tried when the ladder escalated, else names the one tier', () => {
    expect(tiersLabel({ tier: 'module', tiersTried: ['file-fast', 'file-deps', 'module'] })).toBe(
      'file-fast → file-deps → module',
    );
    expect(tiersLabel({ tier: 'file-fast', tiersTried: ['file-fast'] })).toBe('file-fast');
    expect(tiersLabel({ tier: 'project' })).toBe('project');
  });

  it("labels absorbVerify's falsify line the way verifyEdit labels its own (hostile pass: artifacts that do not build)", () => {
    const pass = handoffOutcome(workerHandoff('solved'), {
      dispatch: { target: T1.id, context: { role: 'falsify' } } as never,
    });
    const u = absorbVerify(cycleContext({ lastWork: pass }), {
      now: 3,
      tier: 'module',
      tiersTried: ['file-fast', 'module'],
      targets: [T1],
      errors: ['A.lean:5:unknown identifier evil'],
      ok: false,
    });
    expect(u.log?.at(-1)).toBe(
      'verify (file-fast → module): falsification artifacts for A.lean:2 do not build — A.lean:5:unknown identifier evil',
    );
    // a falsify pass claims no target: no attempt is touched
    expect(u.attempts).toBeUndefined();
  });
});
