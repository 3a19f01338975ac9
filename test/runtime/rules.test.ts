import { describe, expect, it } from 'vitest';
import { HandoffError } from '../../src/errors/index.js';
import { splitCommand } from '../../src/runtime/command-line.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import {
  detectStuck,
  isTrivialGoal,
  pickTarget,
  reviewDue,
  reviewScopeFor,
} from '../../src/runtime/cycle-rules.js';
import type { AttemptRecord, TargetInfo } from '../../src/runtime/cycle-types.js';
import { isBlockedGit } from '../../src/runtime/git-checkpointer.js';
import { scanMarkers } from '../../src/runtime/marker-scan.js';
import { parseWorkerOutput } from '../../src/runtime/worker-framing.js';

const T: TargetInfo = { id: 'A.lean:4', file: 'A.lean', line: 4, goal: 'sorry' };
const fail = (sig: string | null, snippets: string[] = [], emptySearch = false): AttemptRecord => ({
  cycle: 1,
  solved: false,
  signature: sig,
  snippets,
  emptySearch,
});
const stuckIn = (attempts: AttemptRecord[], extra: Partial<Parameters<typeof detectStuck>[0]> = {}) =>
  detectStuck({
    target: T,
    attempts,
    gateErrors: [],
    now: 0,
    lastDecreaseAt: 0,
    openCount: 1,
    stallMinutes: 10,
    maxFailuresPerTarget: 3,
    ...extra,
  });

describe('splitCommand', () => {
  it('splits with quotes and never interprets shell syntax', () => {
    expect(splitCommand(`python3 'my worker.py' --x "a \\"b\\" c" d\\ e`)).toEqual([
      'python3',
      'my worker.py',
      '--x',
      'a "b" c',
      'd e',
    ]);
    expect(splitCommand('node w.js $(rm -rf /) ; `x` | y')).toEqual([
      'node',
      'w.js',
      '$(rm',
      '-rf',
      '/)',
      ';',
      '`x`',
      '|',
      'y',
    ]);
    expect(splitCommand("a ''")).toEqual(['a', '']);
  });
  it('refuses unterminated quotes and empty commands', () => {
    expect(() => splitCommand("a 'b")).toThrow(HandoffError);
    expect(() => splitCommand('a "b')).toThrow(HandoffError);
    expect(() => splitCommand('   ')).toThrow(HandoffError);
  });
});

describe('worker framing', () => {
  const h = { schema: 'run-contract/v1', record: 'handoff' };
  it('accepts progress lines then one handoff (single line or pretty)', () => {
    const f = parseWorkerOutput(`{"schema":"run-persist-progress/v1"}\n\n${JSON.stringify(h)}\n`);
    expect(f).toMatchObject({ ok: true, progress: [{ schema: 'run-persist-progress/v1' }], handoff: h });
    expect(parseWorkerOutput(JSON.stringify(h, null, 2))).toMatchObject({ ok: true });
  });
  it('reports garbage, a missing handoff and a non-object', () => {
    expect(parseWorkerOutput('hello\n')).toMatchObject({
      ok: false,
      defect: expect.stringMatching(/not protocol output/),
    });
    expect(parseWorkerOutput('{"schema":"run-persist-progress/v1"}\n')).toMatchObject({
      ok: false,
      defect: 'the worker printed no handoff record',
    });
    expect(parseWorkerOutput('[1,2]')).toMatchObject({ ok: false });
    expect(parseWorkerOutput(`${JSON.stringify(h)}\ntrailing`)).toMatchObject({ ok: false });
  });
});

describe('options and autoprove coercions', () => {
  it('applies mode defaults', () => {
    const p = resolveCycleOptions({ target: '.', scope: 'project', mode: 'prove' });
    expect(p).toMatchObject({
      ok: true,
      options: { planning: 'ask', commit: 'ask', maxCycles: 20, maxStuck: 3, maxRuntime: '120m' },
    });
    const a = resolveCycleOptions({ target: '.', scope: 'project', mode: 'autoprove' });
    expect(a).toMatchObject({ ok: true, options: { planning: 'on', commit: 'auto' }, warnings: [] });
  });
  it('coerces with a warning each', () => {
    const r = resolveCycleOptions({
      target: '.',
      scope: 'file',
      mode: 'autoprove',
      commit: 'ask',
      reviewSource: 'both',
      deep: 'ask',
      deepRollback: 'never',
      deepRegressionGate: 'off',
    });
    if (!r.ok) throw new Error(r.error);
    expect(r.options).toMatchObject({
      commit: 'auto',
      reviewSource: 'internal',
      deep: 'stuck',
      deepRollback: 'on-regression',
      deepRegressionGate: 'strict',
    });
    expect(r.warnings).toHaveLength(5);
    const p = resolveCycleOptions({
      target: '.',
      scope: 'file',
      mode: 'prove',
      deepRollback: 'never',
      commit: 'ask',
    });
    expect(p).toMatchObject({ ok: true, warnings: [], options: { deepRollback: 'never', commit: 'ask' } });
  });
  it('rejects bad values', () => {
    for (const bad of [
      { mode: 'golf' },
      { scope: 'everything' },
      { commit: 'sometimes' },
      { maxCycles: '0' },
      { maxRuntime: '2d' },
      { reviewEvery: 'often' },
    ]) {
      expect(resolveCycleOptions({ target: '.', scope: 'file', mode: 'prove', ...bad }).ok).toBe(false);
    }
  });
});

describe('stuck conditions', () => {
  it('same blocker on two consecutive attempts', () => {
    expect(stuckIn([fail('A.lean:4:x')])).toBeNull();
    expect(stuckIn([fail('A.lean:4:x'), fail('A.lean:4:x')])).toMatchObject({
      condition: 'repeated-failure',
      signature: 'A.lean:4:x',
    });
    expect(stuckIn([fail('A.lean:4:x'), fail('A.lean:4:y')])).toBeNull();
  });
  it('failed N times with no new approach', () => {
    const a = [fail('s1', ['simp']), fail('s2', ['omega']), fail('s3', ['simp'])];
    expect(stuckIn(a)?.detail).toMatch(/failed 3 times with no new approach/);
    expect(stuckIn([fail('s1', ['simp']), fail('s2', ['omega']), fail('s3', ['ring'])])).toBeNull();
  });
  it('the same build error after two repair attempts', () => {
    const e = ['A.lean:9:type mismatch'];
    expect(stuckIn([fail('a')], { gateErrors: [e, e] })).toBeNull();
    expect(stuckIn([fail('a')], { gateErrors: [e, e, e] })).toMatchObject({
      condition: 'repeated-build-error',
      signature: 'A.lean:9:type mismatch',
    });
  });
  it('no decrease for the stall time, and empty search twice', () => {
    expect(stuckIn([fail('a')], { now: 599_999 })).toBeNull();
    expect(stuckIn([fail('a')], { now: 600_000 })?.condition).toBe('no-progress');
    expect(stuckIn([fail('a', [], true), fail('b', [], true)])?.condition).toBe('empty-search');
  });
});

describe('target choice, trivial goals, reviews', () => {
  it('prefers plan order and unblocked targets; skips refused ones', () => {
    const a = { id: 'A:1', file: 'A', line: 1, goal: '' };
    const b = { id: 'B:1', file: 'B', line: 1, goal: '' };
    const base = {
      targets: [a, b],
      plan: [
        { target: 'B:1', note: '' },
        { target: 'A:1', note: '' },
      ],
      blocked: {},
      refused: [],
    };
    expect(pickTarget(base)?.id).toBe('B:1');
    expect(pickTarget({ ...base, blocked: { 'B:1': {} as never } })?.id).toBe('A:1');
    expect(pickTarget({ ...base, refused: ['A:1', 'B:1'] })).toBeNull();
  });
  it('recognizes trivial goals', () => {
    expect(isTrivialGoal('rfl')).toBe(true);
    expect(isTrivialGoal('  sorry -- hint: simp')).toBe(true);
    expect(isTrivialGoal('sorry -- trivial')).toBe(true);
    expect(isTrivialGoal('theorem t : a = b := sorry')).toBe(false);
  });
  it('schedules reviews and never picks project scope', () => {
    expect(reviewDue('checkpoint', 1, true)).toBe(true);
    expect(reviewDue('checkpoint', 1, false)).toBe(false);
    expect(reviewDue(2, 4, false)).toBe(true);
    expect(reviewDue('never', 4, true)).toBe(false);
    expect(reviewScopeFor('sorry', T)).toEqual({ scope: 'sorry', file: 'A.lean', line: 4 });
    for (const s of ['project', 'changed', 'deps', 'file'] as const)
      expect(reviewScopeFor(s, T).scope).toBe('file');
  });
});

describe('safety and the marker scanner', () => {
  it('recognizes the blocked git commands', () => {
    for (const b of [
      ['push'],
      ['commit', '--amend'],
      ['checkout', '--', 'x'],
      ['restore', 'x'],
      ['reset', '--hard'],
      ['clean', '-fd'],
    ]) {
      expect(isBlockedGit(b)).toBe(true);
    }
    for (const ok of [
      ['commit', '-m', 'x', '--', 'a'],
      ['add', '--', 'a'],
      ['checkout', 'main'],
      ['reset', 'HEAD'],
      ['-c', 'user.name=x', 'commit'],
    ]) {
      expect(isBlockedGit(ok)).toBe(false);
    }
  });
  it('counts the marker as a whole word per line and reports errors', () => {
    const s = scanMarkers('A.lean', 'a := sorry\nsorrySomething\nb := by sorry -- error: type mismatch\n');
    expect(s.targets.map((t) => t.id)).toEqual(['A.lean:1', 'A.lean:3']);
    expect(s.errors).toEqual(['A.lean:3:type mismatch']);
    expect(scanMarkers('B.txt', 'TODO here\n', 'TODO').targets).toHaveLength(1);
  });
});
