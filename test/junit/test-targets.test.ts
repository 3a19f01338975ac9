/**
 * Failing tests as targets (src/junit/test-targets.ts), over the four writers' fixtures: one
 * target per failing case's location, names qualified the way each writer means them, narrowing
 * by file, folder or name, unlocated failures said, and a pass on rerun called flaky.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { flakyTests, parseJunitReport, type TestCase, testTargets } from '../../src/junit/index.js';

const cases = (name: string): readonly TestCase[] => {
  const r = parseJunitReport(
    readFileSync(join(import.meta.dirname, '..', 'fixtures', 'junit', name), 'utf8'),
    {
      projectRoot: '/project',
    },
  );
  if (!r.ok) throw new Error(r.error);
  return r.cases;
};

describe('failing tests as targets', () => {
  it('one target per failing case, named as its writer means it', () => {
    expect(testTargets(cases('node-test.xml')).targets.map((t) => [t.target, t.name])).toEqual([
      ['a.test.mjs:5', 'math > subtracts <&> &quot;quoted&quot;'],
      ['a.test.mjs:7', 'top level fails'],
    ]);
    expect(testTargets(cases('vitest.xml')).targets.map((t) => [t.target, t.name])).toEqual([
      ['test/m.test.ts:4', 'math > subtracts'],
    ]);
    expect(testTargets(cases('jest-junit.xml')).targets.map((t) => [t.target, t.name])).toEqual([
      ['src/cart.test.js:14', 'cart totals applies the discount'],
    ]);
    const py = testTargets(cases('pytest.xml')).targets;
    expect(py.map((t) => [t.target, t.name])).toEqual([
      ['tests/test_cart.py:8', 'tests.test_cart > test_discount'],
      ['tests/test_cart.py:12', 'tests.test_cart > test_setup'],
    ]);
    expect(py[0]?.failureAt).toEqual({ file: 'tests/test_cart.py', line: 9 });
  });

  it('narrowed to a file, a folder or one name', () => {
    const node = cases('node-test.xml');
    expect(testTargets(node, { kind: 'name', name: 'top level fails' }).targets.map((t) => t.target)).toEqual(
      ['a.test.mjs:7'],
    );
    expect(testTargets(cases('vitest.xml'), { kind: 'path', path: 'test/' }).targets).toHaveLength(1);
    expect(testTargets(cases('vitest.xml'), { kind: 'path', path: 'src' }).targets).toHaveLength(0);
    expect(testTargets(cases('vitest.xml'), { kind: 'path', path: 'test/m.test.ts' }).targets).toHaveLength(
      1,
    );
    expect(testTargets(cases('vitest.xml'), { kind: 'path', path: 'tes' }).targets).toHaveLength(0);
  });

  it('a failing case with no location is said, not dropped; two cases on one line share a target', () => {
    const base = { suite: '', classname: '', message: 'x', detail: null, failureAt: null } as const;
    const r = testTargets([
      { ...base, name: 'nowhere', status: 'failed', location: null },
      { ...base, name: 'p[1]', status: 'failed', location: { file: 'a.test.js', line: 3 } },
      { ...base, name: 'p[2]', status: 'failed', location: { file: 'a.test.js', line: 3 } },
      { ...base, name: 'ok', status: 'passed', location: { file: 'a.test.js', line: 9 } },
    ]);
    expect(r.unlocated).toEqual(['nowhere']);
    expect(r.targets.map((t) => [t.target, t.name])).toEqual([['a.test.js:3', 'p[1]']]);
  });

  it('failed, then passed on a rerun over the same bytes: flaky', () => {
    const first = cases('vitest.xml');
    const again = first.map((c) => (c.status === 'failed' ? { ...c, status: 'passed' as const } : c));
    expect(flakyTests(first, again)).toEqual(['math > subtracts']);
    expect(flakyTests(first, first)).toEqual([]);
  });
});
