/**
 * examples/delegate end to end: the demo project is created, the honest subagent's handoff is
 * accepted and journaled, the overreaching one is refused with its owned edit put back, the rerun
 * guard holds the relaunch, the run loads back through its cite, and the `handoff inspect`
 * command the example prints draws it.
 */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../examples/delegate/run.js';
import { main as cli } from '../../src/cli/main.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'delegate-example-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs the delegate example end to end', async () => {
  const lines: string[] = [];
  const report = await main([dir], (l) => lines.push(l));

  expect(report.honest).toMatchObject({ outcome: 'accepted', status: 'solved', violations: [] });
  expect(report.honest.cite).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
  expect(await readFile(join(dir, 'src', 'greeting.ts'), 'utf8')).toBe("export const greeting = 'hello';\n");

  expect(report.overreach).toMatchObject({
    outcome: 'refused',
    status: 'stopped',
    violations: ['outside_owned'],
  });
  expect(report.overreach.detail).toBe(
    'the worker wrote outside its owned files: README.md; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md',
  );
  expect(await readFile(join(dir, 'src', 'farewell.ts'), 'utf8')).toBe(
    "export const farewell = 'TODO(agent)';\n",
  );

  expect(report.relaunch.allowed).toBe(false);
  expect(report.inspected).toEqual({
    run_id: report.honest.cite?.split('#')[0],
    events: ['#1 handoff'],
    cited: 'handoff solved',
  });
  expect(lines[0]).toBe(`project: ${dir}`);
  expect(lines.at(-1)).toBe(`inspect it: npx handoff inspect ${report.inspected.run_id} --project ${dir}`);

  // the command the example prints
  let out = '';
  const code = await cli(['inspect', report.inspected.run_id, '--project', dir], {
    out: (t) => {
      out += t;
    },
    err: () => {},
    readStdin: async () => Buffer.alloc(0),
    env: {},
    cwd: dir,
    isTTY: false,
  });
  expect(code).toBe(0);
  expect(out).toContain(`#1 2`);
  expect(out).toMatch(/handoff {2}solved src\/greeting\.ts:1/);
});
