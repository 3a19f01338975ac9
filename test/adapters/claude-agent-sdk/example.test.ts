/**
 * examples/claude-agent-sdk end to end: the route subagent's late departure stops the chain at
 * the seam and the retry from the checkpoint is accepted under the same stage_run_id; in the demo
 * project the honest editor's handoff is accepted and journaled (its cite loads back and
 * `handoff inspect` draws it), the overreaching one is refused with its owned edit put back.
 */
import { mkdtemp, readFile, realpath, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { main } from '../../../examples/claude-agent-sdk/run.js';
import { main as cli } from '../../../src/cli/main.js';
import { createFsStore, parseCite, resolveCite } from '../../../src/store/index.js';

let dir: string;
beforeEach(async () => {
  dir = await realpath(await mkdtemp(join(tmpdir(), 'claude-example-')));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

it('runs the Claude Agent SDK example end to end', async () => {
  const lines: string[] = [];
  const report = await main([dir], (l) => lines.push(l));

  expect(report.chain.first).toMatchObject({ code: 'fact_semantic_violation', stage: 'route', revision: 1 });
  expect(report.chain.first.detail).toBe(
    "'depart_by': departure 21:00 is after the policy's latest departure",
  );
  expect(report.chain.retry).toEqual({ decision: 'accepted', revision: 3, depart_by: '18:00' });
  expect(report.chain.stage_run_ids).toHaveLength(2);
  expect(report.chain.stage_run_ids[0]).toBe(report.chain.stage_run_ids[1]);
  expect(report.chain.stage_run_ids[0]).toMatch(/^trip-1::route::r1::[0-9a-f]{16}$/);

  expect(report.honest).toMatchObject({
    outcome: 'accepted',
    status: 'solved',
    violations: [],
    detail: null,
  });
  expect(report.honest.text).toBe("export const greeting = 'hello';\n");
  const cite = report.honest.cite ?? '';
  expect(cite).toMatch(/^[0-9]{8}T[0-9]{6}Z-[0-9a-f]{8}#1$/);
  const parsed = parseCite(cite);
  const run = await createFsStore({ projectRoot: dir }).load(parsed?.run_id ?? '');
  expect(run.ok).toBe(true);
  if (run.ok) {
    const event = resolveCite(run.value, cite);
    expect(event.ok && event.kind === 'event' && event.event.kind).toBe('handoff');
  }

  expect(report.overreach).toMatchObject({
    outcome: 'refused',
    status: 'stopped',
    violations: ['outside_owned'],
    detail:
      'the worker wrote outside its owned files: README.md; owned files restored to their pre-dispatch bytes; restored outside the owned files: README.md',
  });
  // the overreaching subagent's edit of its owned file was put back, and README.md with it
  expect(report.overreach.text).toBe("export const farewell = 'TODO(agent)';\n");
  expect(await readFile(join(dir, 'README.md'), 'utf8')).toBe(
    'A demo project for handoff-runtime/claude-agent-sdk.\n',
  );

  expect(lines).toEqual([
    "chain, first run: stopped at 'route' [fact_semantic_violation] 'depart_by': departure 21:00 is after the policy's latest departure",
    'chain, retry from revision 1: accepted, revision 3, depart_by 18:00',
    `  both attempts ran as ${report.chain.stage_run_ids[0]}`,
    `project: ${dir}`,
    `honest subagent:       accepted (solved) ${cite}`,
    `overreaching subagent: refused [outside_owned] ${report.overreach.detail}`,
    'real subagents: pass the SDK query (see examples/claude-agent-sdk/README.md)',
  ]);

  let out = '';
  const code = await cli(['inspect', parsed?.run_id ?? '', '--project', dir], {
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
