/**
 * examples/openai-agents end to end, offline: the lead agent's three `fix_file` calls through the
 * SDK's real Runner — the honest sub-agent's handoff accepted and journaled, the overreaching one
 * refused with its edit put back (its escape attempt refused by the file tool), the blind relaunch
 * held by the rerun guard — and the `handoff inspect` command the example prints draws the run.
 */
import { mkdtemp, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../../examples/openai-agents/run.js';
import { main as cli } from '../../../src/cli/main.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'openai-agents-example-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs the openai-agents example end to end', async () => {
  const lines: string[] = [];
  const report = await main([dir], (l) => lines.push(l));

  const [honest, overreach, blind] = report.calls;
  expect(report.calls).toHaveLength(3);
  expect(honest).toMatchObject({ outcome: 'accepted', status: 'solved', violations: [], detail: null });
  expect(honest?.cite).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
  expect(overreach).toMatchObject({ outcome: 'refused', status: 'stopped', violations: ['outside_owned'] });
  expect(overreach?.detail).toBe(
    'the worker wrote outside its owned files: README.md; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md',
  );
  expect(overreach?.cite).toMatch(/#1$/);
  expect(blind).toMatchObject({ outcome: 'refused', violations: ['rerun_guard'], cite: null });
  expect(report.files.greeting).toBe("export const greeting = 'hello';\n");
  expect(report.files.farewell).toBe("export const farewell = 'TODO(agent)';\n");
  expect(report.files.readme).toBe('A demo project for handoff-runtime/openai-agents.\n'); // named and put back (from git)
  expect(report.lead).toMatch(/^The farewell needs another plan: rerun guard: /);

  expect(lines[0]).toBe(`project: ${dir}`);
  const runId = honest?.cite?.split('#')[0] ?? '';
  expect(lines.at(-1)).toBe(`inspect it: npx handoff inspect ${runId} --project ${dir}`);

  let out = '';
  const code = await cli(['inspect', runId, '--project', dir], {
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
  expect(out).toMatch(/handoff {2}solved src\/greeting\.ts:1/);
});
