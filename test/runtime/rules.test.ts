import { describe, expect, it } from 'vitest';
import { HandoffError } from '../../src/errors/index.js';
import { splitCommand } from '../../src/runtime/command-line.js';
import { resolveCycleOptions } from '../../src/runtime/cycle-options.js';
import { isBlockedGit } from '../../src/runtime/git-checkpointer.js';
import { scanMarkers } from '../../src/runtime/marker-scan.js';
import { parseWorkerOutput } from '../../src/runtime/worker-framing.js';

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
