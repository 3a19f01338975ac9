/**
 * JUnit XML reports read into test cases (src/junit): the four writers' real shapes —
 * node:test and vitest generated on this machine (`node --test --test-reporter=junit`,
 * `vitest run --reporter=junit`; the temp path rewritten to /project), jest-junit and pytest
 * transcribed from their documented output (test/fixtures/junit/) — and the XML reader's
 * refusals (never a throw).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  decodeEntities,
  MAX_XML_DEPTH,
  parseJunitReport,
  projectPath,
  readXml,
} from '../../src/junit/index.js';

const fixture = (name: string) =>
  readFileSync(join(import.meta.dirname, '..', 'fixtures', 'junit', name), 'utf8');
const parse = (name: string) => {
  const r = parseJunitReport(fixture(name), { projectRoot: '/project' });
  if (!r.ok) throw new Error(r.error);
  return r.cases;
};

describe('the four writers', () => {
  it('node:test: cases nested in a suite and directly under <testsuites>; the failure located by its stack', () => {
    const cases = parse('node-test.xml');
    expect(cases.map((c) => [c.suite, c.name, c.status])).toEqual([
      ['math', 'adds', 'passed'],
      // node double-escapes the quote in names; the text is kept as written
      ['math', 'subtracts <&> &quot;quoted&quot;', 'failed'],
      ['', 'top level fails', 'failed'],
      ['', 'skipped', 'skipped'],
    ]);
    expect(cases[1]?.message).toBe('two minus one1 !== 3');
    expect(cases[1]?.location).toEqual({ file: 'a.test.mjs', line: 5 });
    expect(cases[2]?.message).toBe('boom & <bang>');
    expect(cases[2]?.failureAt).toEqual({ file: 'a.test.mjs', line: 7 });
    expect(cases[0]?.location).toBeNull();
    expect(cases[3]?.message).toBeNull();
  });

  it('vitest: "describe > it" names, the frame in the failure text', () => {
    const cases = parse('vitest.xml');
    expect(cases.map((c) => [c.name, c.status])).toEqual([
      ['math > adds', 'passed'],
      ['math > subtracts', 'failed'],
      ['math > later', 'skipped'],
    ]);
    expect(cases[1]?.message).toBe('expected 1 to be 3 // Object.is equality');
    expect(cases[1]?.location).toEqual({ file: 'test/m.test.ts', line: 4 });
  });

  it('jest-junit: the file attribute, the line from the frame in that file, never node_modules', () => {
    const cases = parse('jest-junit.xml');
    expect(cases[1]).toMatchObject({
      status: 'failed',
      location: { file: 'src/cart.test.js', line: 14 },
      failureAt: { file: 'src/cart.test.js', line: 14 },
    });
    expect(cases[1]?.message).toBe('Error: expect(received).toBe(expected) // Object.is equality');
    expect(cases[0]?.location).toEqual({ file: 'src/cart.test.js', line: null });
  });

  it("pytest: 0-based line attributes made 1-based; an error (setup) is not a failure; the failure's own frame kept", () => {
    const cases = parse('pytest.xml');
    expect(cases.map((c) => [c.name, c.status, c.location?.line])).toEqual([
      ['test_sum', 'passed', 4],
      ['test_discount', 'failed', 8],
      ['test_setup', 'error', 12],
      ['test_later', 'skipped', 16],
    ]);
    expect(cases[1]?.message).toBe('assert 100 == 90\n +  where 100 = total([100], discount=0.1)');
    expect(cases[1]?.failureAt).toEqual({ file: 'tests/test_cart.py', line: 9 });
    expect(cases[2]?.failureAt).toEqual({ file: 'tests/conftest.py', line: 4 });
  });
});

describe('bad reports are errors, never a throw', () => {
  it.each([
    ['', 'no root element'],
    ['<testsuites><testcase name="a"></testsuites>', 'matches no open element'],
    ['<testsuites>', 'never closed'],
    ['<html><body/></html>', 'the root element is <html>'],
    ['<!DOCTYPE x [<!ENTITY a "b">]><testsuites/>', 'DOCTYPE'],
    ['<testsuites/><testsuites/>', 'a second root element'],
    ['<testsuites a="1" a="2"/>', 'repeated'],
    ['junk<testsuites/>', 'text outside the root element'],
    ['<testsuites><!-- open', 'unclosed comment'],
  ])('%j', (xml, why) => {
    const r = parseJunitReport(xml, { projectRoot: '/p' });
    expect(r.ok).toBe(false);
    expect(r.ok ? '' : r.error).toContain(why);
  });

  it('nesting is bounded', () => {
    const deep = `${'<a>'.repeat(MAX_XML_DEPTH + 1)}${'</a>'.repeat(MAX_XML_DEPTH + 1)}`;
    const r = readXml(deep);
    expect(r.ok ? '' : r.error).toContain('nested deeper');
    expect(readXml(`${'<a>'.repeat(MAX_XML_DEPTH)}${'</a>'.repeat(MAX_XML_DEPTH)}`).ok).toBe(true);
  });
});

describe('the pieces', () => {
  it('entities: named and numeric decoded, out-of-range and unknown kept as written', () => {
    expect(decodeEntities('&lt;&gt;&amp;&quot;&apos;&#65;&#x42;')).toBe(`<>&"'AB`);
    expect(decodeEntities('&#xD800; &#0; &nbsp;')).toBe('&#xD800; &#0; &nbsp;');
  });

  it('CDATA is text; comments and processing instructions are skipped', () => {
    const r = readXml('<?xml version="1.0"?><s><!-- c --><f><![CDATA[a < b]]> &amp; c</f></s>');
    expect(r.ok && r.root.children).toEqual([{ name: 'f', attrs: {}, children: ['a < b & c'] }]);
  });

  it('project paths: inside the root only, never node_modules or ..', () => {
    expect(projectPath('/p/src/a.ts', '/p')).toBe('src/a.ts');
    expect(projectPath('./src/a.ts', '/p')).toBe('src/a.ts');
    expect(projectPath('/other/a.ts', '/p')).toBeNull();
    expect(projectPath('/p/node_modules/x/a.js', '/p')).toBeNull();
    expect(projectPath('../a.ts', '/p')).toBeNull();
    expect(projectPath('/pp/a.ts', '/p')).toBeNull();
  });
});
