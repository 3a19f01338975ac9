/**
 * The command extractor against real child processes: the Python example, and Node scripts that
 * echo, hang, print garbage, exit non-zero or flood stdout.
 */
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseResponse } from '../../src/fence/command-extractor.js';
import {
  commandHeaderExtractor,
  compareHeaders,
  describeViolation,
  type FenceViolation,
  HEADER_EXTRACT_RESPONSE_SCHEMA,
} from '../../src/fence/index.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const PYTHON_EXTRACTOR = ['python3', 'examples/extractors/python-signatures.py'];
const node = (script: string) => [process.execPath, '-e', script];
const options = { cwd: ROOT, timeoutMs: 20_000 };

const MODULE = [
  'from dataclasses import dataclass',
  '',
  'def area(w: int, h: int) -> int:',
  '    """Area of a rectangle."""',
  '    return w * h',
  '',
  'def _helper(x):',
  '    return x',
  '',
  'class Shape:',
  '    def __init__(self, sides: int) -> None:',
  '        self.sides = sides',
  '',
  '    async def render(self, scale: float = 1.0) -> str:',
  '        return "shape"',
  '',
].join('\n');

describe('commandHeaderExtractor with the Python example', () => {
  const py = commandHeaderExtractor(PYTHON_EXTRACTOR, options);

  it('declares the exported signatures of a module', async () => {
    expect(await py.extract('/project/shapes.py', MODULE)).toEqual({
      ok: true,
      headers: [
        { name: 'area', kind: 'def', signature: '(w: int, h: int) -> int', line: 3 },
        { name: 'Shape', kind: 'class', signature: '', line: 10 },
        { name: 'Shape.__init__', kind: 'def', signature: '(self, sides: int) -> None', line: 11 },
        { name: 'Shape.render', kind: 'async def', signature: '(self, scale: float=1.0) -> str', line: 14 },
      ],
    });
  });

  it('lets the fence catch a changed signature and ignore a changed body', async () => {
    const [before, bodyOnly, weakened] = await Promise.all([
      py.extract('shapes.py', MODULE),
      py.extract('shapes.py', MODULE.replace('return w * h', 'return h * w  # commuted')),
      py.extract('shapes.py', MODULE.replace('def area(w: int, h: int)', 'def area(w, h)')),
    ]);
    if (!before.ok || !bodyOnly.ok || !weakened.ok) throw new Error('extraction failed');
    expect(compareHeaders(before.headers, bodyOnly.headers)).toEqual([]);
    const v = compareHeaders(before.headers, weakened.headers);
    expect(v.map((x) => [x.declaration, x.change])).toEqual([['area', 'changed']]);
    expect(describeViolation('shapes.py', v[0] as FenceViolation)).toBe(
      'header fence: shapes.py: def area: statement changed (`(w: int, h: int) -> int` → `(w, h) -> int`)',
    );
  });

  it('reports a syntax error as a failed extraction', async () => {
    expect(await py.extract('bad.py', 'def broken(:\n')).toEqual({
      ok: false,
      error: 'extractor reported: syntax error at line 1: invalid syntax',
    });
  });
});

describe('commandHeaderExtractor failures are results, never throws', () => {
  it('sends one request on stdin and reads one response on stdout', async () => {
    const echo = commandHeaderExtractor(
      node(`
        let s = '';
        process.stdin.on('data', (d) => (s += d)).on('end', () => {
          const r = JSON.parse(s);
          process.stdout.write(JSON.stringify({
            schema: '${HEADER_EXTRACT_RESPONSE_SCHEMA}',
            headers: [{ name: r.schema, kind: 'echo', signature: r.file + '\\n\\n  ' + r.text, line: 1 }],
          }));
        });`),
      options,
    );
    expect(await echo.extract('/p/x.txt', 'a := b')).toEqual({
      ok: true,
      headers: [{ name: 'header-extract-request/v1', kind: 'echo', signature: '/p/x.txt a := b', line: 1 }],
    });
  });

  it('times out a command that hangs, killing its process group', async () => {
    const hang = commandHeaderExtractor(
      node(
        "require('node:child_process').spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'inherit' }); setInterval(() => {}, 1000);",
      ),
      { cwd: ROOT, timeoutMs: 300 },
    );
    expect(await hang.extract('a.txt', '')).toEqual({ ok: false, error: 'extractor timed out after 300 ms' });
  });

  it('fails on garbage output', async () => {
    const r = await commandHeaderExtractor(node("process.stdout.write('not json at all')"), options).extract(
      'a',
      '',
    );
    expect(r.ok).toBe(false);
    expect(!r.ok && r.error).toMatch(/^extractor stdout is not JSON: /);
  });

  it('fails on a response of another schema or with extra keys', async () => {
    const wrong = JSON.stringify({ schema: 'something/v1', headers: [] });
    const r = await commandHeaderExtractor(
      node(`process.stdout.write(${JSON.stringify(wrong)})`),
      options,
    ).extract('a', '');
    expect(!r.ok && r.error).toMatch(/^extractor response is not header-extract-response\/v1/);
    expect(
      parseResponse(JSON.stringify({ schema: HEADER_EXTRACT_RESPONSE_SCHEMA, headers: [], extra: 1 })).ok,
    ).toBe(false);
    expect(
      parseResponse(
        JSON.stringify({
          schema: HEADER_EXTRACT_RESPONSE_SCHEMA,
          headers: [{ name: 'x', kind: 'def', signature: '' }],
        }),
      ).ok,
    ).toBe(false);
  });

  it('fails on a non-zero exit, quoting the end of stderr', async () => {
    const r = await commandHeaderExtractor(
      node("process.stderr.write('boom'); process.exit(3)"),
      options,
    ).extract('a', '');
    expect(r).toEqual({ ok: false, error: 'extractor exited with 3: boom' });
  });

  it('fails on a command that cannot start', async () => {
    const r = await commandHeaderExtractor(['/nonexistent/extractor-binary'], options).extract('a', '');
    expect(!r.ok && r.error).toMatch(/^cannot start extractor: /);
    expect(await commandHeaderExtractor([], options).extract('a', '')).toEqual({
      ok: false,
      error: 'extractor command is empty',
    });
  });

  it('fails on output beyond the bound', async () => {
    const r = await commandHeaderExtractor(node("process.stdout.write('x'.repeat(100000))"), {
      ...options,
      maxOutputBytes: 1000,
    }).extract('a', '');
    expect(r).toEqual({ ok: false, error: 'extractor output exceeds 1000 bytes' });
  });
});
