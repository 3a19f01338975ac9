/**
 * The synthesis loop's pure rules without actors: the redraft rule (provenance + statement
 * policy), the review router, claim budgets, the declaration blocks a rewrite takes out (byte-exact
 * around the assembler's boundary markers), provenance growth, the report and exit codes — and
 * hostile worker output reaching the router (a forged `next_action`, a target naming another
 * file).
 */
import { describe, expect, it } from 'vitest';
import type { Handoff } from '../../src/contract/index.js';
import { assembleDraft } from '../../src/synthesis/assembly.js';
import { declaredAtLineStart, headNames } from '../../src/synthesis/declarations.js';
import {
  absorbCommitAnswer,
  absorbGolf,
  absorbProve,
  absorbValidated,
  beginClaim,
  claimBudgetLeft,
  commitQuestion,
  declarationLines,
  declarationNameAt,
  endClaim,
  golfInput,
  initialSynthesisContext,
  noteRoute,
  proveInput,
  redraftVerdict,
  routeOf,
  runtimeExhausted,
  synthesisExitCode,
  synthesisOutput,
  withoutDeclarations,
} from '../../src/synthesis/loop/index.js';
import type { LoopClaim, SynthesisContext, SynthesisInput } from '../../src/synthesis/loop/types.js';
import * as policy from '../../src/synthesis/statement-policy.js';
import { initTracker } from '../../src/tracker/counters.js';
import { workerHandoff } from '../cycle/fixture.js';

const P = 'Paper.lean';
const gen = (...names: string[]) => names.map((declaration) => ({ file: P, declaration }));

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
const CLAIM: LoopClaim = { id: 'c1', index: 1, title: 't', text: 'x', name: 'foo', kind: 'theorem' };
function started(over: Partial<SynthesisInput> = {}): SynthesisContext {
  const c = { ...initialSynthesisContext(input(over)), queue: [CLAIM] };
  return { ...c, ...beginClaim(c) };
}

describe('redraft rule: provenance + statement policy', () => {
  it('allows rewriting a session-generated declaration under rewrite-generated-only, adjacent under adjacent-drafts', () => {
    const q = { explicit: false, provenance: gen('foo'), file: P, declarations: ['foo'] };
    expect(redraftVerdict({ ...q, policy: 'rewrite-generated-only' })).toEqual({
      allowed: true,
      how: 'rewrite',
    });
    expect(redraftVerdict({ ...q, policy: 'adjacent-drafts' })).toEqual({ allowed: true, how: 'adjacent' });
  });

  it('refuses a user-authored declaration under every policy, and halts only under an explicit preserve', () => {
    for (const policy of ['preserve', 'rewrite-generated-only', 'adjacent-drafts'] as const) {
      for (const explicit of [false, true]) {
        const v = redraftVerdict({
          policy,
          explicit,
          provenance: gen('other'),
          file: P,
          declarations: ['foo'],
        });
        expect(v.allowed, `${policy} ${explicit}`).toBe(false);
        if (!v.allowed) expect(v.halt).toBe(explicit && policy === 'preserve');
      }
    }
    const v = redraftVerdict({
      policy: 'rewrite-generated-only',
      explicit: true,
      provenance: [],
      file: P,
      declarations: ['foo'],
    });
    expect(!v.allowed && v.reason).toContain('user-authored');
  });

  it('a name generated in another file is not generated here; one foreign declaration refuses the whole redraft', () => {
    const other = [{ file: 'Other.lean', declaration: 'foo' }];
    expect(
      redraftVerdict({
        policy: 'rewrite-generated-only',
        explicit: false,
        provenance: other,
        file: P,
        declarations: ['foo'],
      }).allowed,
    ).toBe(false);
    expect(
      redraftVerdict({
        policy: 'rewrite-generated-only',
        explicit: false,
        provenance: gen('foo'),
        file: P,
        declarations: ['foo', 'bar'],
      }).allowed,
    ).toBe(false);
    expect(
      redraftVerdict({
        policy: 'rewrite-generated-only',
        explicit: false,
        provenance: gen('foo'),
        file: P,
        declarations: [],
      }).allowed,
    ).toBe(false);
  });
});

describe('review router', () => {
  it('routes by the stuck handoff next_action; solved is proved; a budget stop leaves it unproved; errors fail', () => {
    expect(routeOf(workerHandoff('solved'))).toEqual({ to: 'proved' });
    for (const a of ['continue', 'deep', 'repair'] as const)
      expect(routeOf(workerHandoff('stuck', { next_action: a }))).toEqual({ to: 'again', action: a });
    expect(routeOf(workerHandoff('stuck', { next_action: 'redraft' })).to).toBe('redraft');
    expect(routeOf(workerHandoff('stuck', { next_action: 'golf' })).to).toBe('golf');
    expect(routeOf(workerHandoff('stuck', { next_action: 'stop' })).to).toBe('stop');
    const stop = (r: Handoff['stop_reason']): Handoff => ({
      ...workerHandoff('solved'),
      status: 'stopped',
      stop_reason: r,
      next_action: 'redraft',
    });
    expect(routeOf(stop('max-cycles')).to).toBe('unproved');
    expect(routeOf(stop('protocol-error')).to).toBe('failed');
    // a blocker-driven max-stuck stop routes like stuck
    expect(routeOf({ ...stop('max-stuck'), blocker_signature: 'x' }).to).toBe('redraft');
  });

  it('hostile: a worker-forged next_action on a solved or operational stop never routes to a redraft', () => {
    const forged = { ...workerHandoff('solved'), next_action: 'redraft' as const };
    expect(routeOf(forged).to).toBe('proved');
    const crashed: Handoff = {
      ...workerHandoff('solved'),
      status: 'stopped',
      stop_reason: 'operational-error',
      stop_detail: '\u001b[2Jrm -rf /',
      next_action: 'redraft',
    };
    expect(routeOf(crashed).to).toBe('failed');
  });

  it('per-claim budgets and the session runtime bound the again route', () => {
    let c = started();
    expect(claimBudgetLeft(c)).toBe(true);
    c = {
      ...c,
      ...absorbProve(c, {
        now: 10,
        handoff: workerHandoff('stuck'),
        cycles: 3,
        stuckCycles: 1,
        stuckDeclaration: null,
      }),
    };
    expect(claimBudgetLeft(c)).toBe(false); // 3/3 cycles
    const late = { ...started(), now: 60_000 };
    expect(runtimeExhausted(late)).toBe(true);
    expect(claimBudgetLeft(late)).toBe(false);
    expect(runtimeExhausted({ ...late, input: { ...late.input, maxRuntimeMs: 0 } })).toBe(false);
  });
});

describe('claim lifecycle, provenance and the report', () => {
  it('start-claim/reset-claim pair with the claim; provenance grows with validated drafts only and survives the claim', () => {
    let c = started();
    expect(c.tracker.claim_active).toBe(true);
    c = { ...c, active: c.active && { ...c.active, declarations: ['foo'] } };
    c = { ...c, ...absorbValidated(c, { now: 1, ok: true, errors: [] }) };
    expect(c.provenance).toEqual(gen('foo'));
    c = { ...c, ...endClaim(c, { status: 'proved', reason: null }) };
    expect(c.tracker.claim_active).toBe(false);
    expect(c.tracker.claims_attempted).toBe(1);
    expect(c.provenance).toEqual(gen('foo'));
    expect(synthesisOutput(c).reports.map((r) => r.status)).toEqual(['proved']);
    expect(initialSynthesisContext(input()).provenance).toEqual([]);
  });

  it('exit codes: stuck 3, halted 4, extraction failed 2, early stop 1, all good 0', () => {
    const r = (status: 'proved' | 'stuck' | 'skipped' | 'formalized') => ({ status }) as never;
    expect(synthesisExitCode({ ending: 'done', reports: [r('proved'), r('skipped')] })).toBe(0);
    expect(synthesisExitCode({ ending: 'done', reports: [r('proved'), r('stuck')] })).toBe(3);
    expect(synthesisExitCode({ ending: 'halted', reports: [r('stuck')] })).toBe(4);
    expect(synthesisExitCode({ ending: 'extract-failed', reports: [] })).toBe(2);
    expect(synthesisExitCode({ ending: 'runtime', reports: [r('proved')] })).toBe(1);
    expect(synthesisExitCode({ ending: 'done', reports: [r('formalized')] })).toBe(1);
  });
});

describe('declaration blocks', () => {
  const target = 'theorem keep : True := trivial\n';
  const draft = (name: string, stmt: string) => `/-- d -/\ntheorem ${name} : ${stmt} := by\n  sorry\n`;

  it('a rewrite takes the previous draft out with its boundary markers, byte-exact', () => {
    const a = assembleDraft(target, {
      text: draft('foo', '0 < n'),
      imports: [],
      claim: { id: 'c1', text: 'x' },
      timestamp: 'T1',
    });
    expect(a.ok).toBe(true);
    if (!a.ok) return;
    const removed = withoutDeclarations(a.text, ['foo']);
    expect(removed).toBe(target);
    const again = assembleDraft(removed, {
      text: draft('foo', '1 < 2'),
      imports: [],
      claim: { id: 'c1', text: 'x' },
      timestamp: 'T2',
    });
    expect(again.ok && again.text).toBe(a.ok && a.text.replace('0 < n', '1 < 2').replace('(T1)', '(T2)'));
  });

  it('finds the range of a declaration and the declaration holding a line; unknown names change nothing', () => {
    const text = 'theorem a : True := by\n  sorry\n\ntheorem b : True := by\n  trivial\n';
    expect(declarationLines(text, 'a')).toEqual({ start: 1, end: 2 });
    expect(declarationLines(text, 'b')).toEqual({ start: 4, end: 5 });
    expect(declarationNameAt(text, 2)).toBe('a');
    expect(declarationNameAt(text, 5)).toBe('b');
    expect(declarationNameAt(text, 99)).toBeNull();
    expect(declarationNameAt(text, 3)).toBeNull();
    expect(withoutDeclarations(text, ['zzz'])).toBe(text);
  });

  it('one line-start rule: the block finder and the collision check agree on every head shape', () => {
    const heads = [
      '@[simp] @[reducible] theorem two_attrs : True := trivial',
      '  theorem indented : True := trivial',
      'private noncomputable def mods : Nat := 1',
      'theorem unicode⦃x : Nat⦄ : x = x := rfl',
      '-- theorem commented : True := trivial',
      'theorem_like : True',
    ];
    for (const h of heads) {
      const text = `${h}\n`;
      for (const name of ['two_attrs', 'indented', 'mods', 'unicode', 'commented', 'theorem_like']) {
        expect(declarationLines(text, name) !== null, `${name} in ${h}`).toBe(
          declaredAtLineStart(text, name),
        );
      }
    }
    expect(headNames(heads.join('\n'))).toEqual(['two_attrs', 'indented', 'mods', 'unicode']);
  });

  it("the redraft rule has one home: the loop re-exports the statement policy's verdict", () => {
    expect(redraftVerdict).toBe(policy.redraftVerdict);
  });
});

describe('golf route and the commit question (pure)', () => {
  it('a golf route is listed once: the router notes it, the pass adds nothing', () => {
    const c0 = started();
    const routed = {
      ...c0,
      ...absorbProve(c0, {
        now: 5,
        handoff: workerHandoff('stuck', { next_action: 'golf' }),
        cycles: 1,
        stuckCycles: 1,
        stuckDeclaration: null,
      }),
    };
    const noted = { ...routed, ...noteRoute(routed) };
    const golfed = { ...noted, ...absorbGolf(noted, { now: 6, handoff: workerHandoff('solved') }) };
    expect(golfed.active?.routes).toEqual(['golf']);
  });

  it("a declined draft: commit turns commits off for the claim's inner cycle and golf pass", () => {
    const c = started({ mode: 'guided', commit: 'ask' });
    expect(commitQuestion(c).options).toEqual(['commit', 'keep', 'stop']);
    expect(proveInput(c).commit).toBe(true);
    const kept = { ...c, ...absorbCommitAnswer(c, { now: 4, answer: 'keep' }) };
    expect(proveInput(kept).commit).toBe(false);
    expect(golfInput(kept).commit).toBe(false);
    const again = { ...kept, ...absorbCommitAnswer(kept, { now: 5, answer: 'commit' }) };
    expect(proveInput(again).commit).toBe(true);
    expect(proveInput(started({ commit: 'never' })).commit).toBe(false);
  });
});
